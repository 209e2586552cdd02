import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import type { common } from '@mdp/proto';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
export const REALDATA = new URL('../../../../shared/realdata/', import.meta.url);

/** A freshly migrated, uniquely named schema for one test file; `drop` removes it. */
export async function freshSchema(
  prefix: string,
): Promise<{ pool: Pool; schema: string; drop: () => Promise<void> }> {
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  const pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: prefix,
  });
  return {
    pool,
    schema,
    drop: async () => {
      await pool.end();
      await dropSchema(DATABASE_URL, schema);
    },
  };
}

export function decode(doc: common.Document): { data: any; meta: any } {
  return {
    data: JSON.parse(Buffer.from(doc.data_json).toString('utf8')),
    meta: doc.meta_json.length ? JSON.parse(Buffer.from(doc.meta_json).toString('utf8')) : undefined,
  };
}
