import { randomBytes } from 'node:crypto';
import { dropSchema, type Pool } from '@mdp/db';
import { createLogger, Registry } from '@mdp/telemetry';
import { afterAll, beforeAll } from 'vitest';
import { type ShardRegistry, startShardRegistry } from '../src/admission/shard-registry.ts';
import { DATABASE_URL, ledgerPool } from './ledger-db.ts';

type RegistryOptions = Parameters<typeof startShardRegistry>[0];

const logger = createLogger('test', 'silent');

/**
 * The shard registries of one test file, on a ledger schema of its own: made (migrated) before the
 * file's tests, every registry closed and the schema dropped after them. A registry is started with what
 * its test says and otherwise nothing recorded, held or waited for, and no notices unless given.
 */
export function registriesOnOwnSchema(name: string, poolSize: number) {
  const schema = `${name}_${randomBytes(4).toString('hex')}`;
  let pool: Pool | undefined;
  const started: ShardRegistry[] = [];
  beforeAll(async () => {
    pool = await ledgerPool(schema, `${name}-test`, poolSize);
  });
  afterAll(async () => {
    for (const r of started) await r.close();
    await pool?.end();
    await dropSchema(DATABASE_URL, schema);
  });
  return {
    pool: (): Pool => pool!,
    /** The schema's LISTEN/NOTIFY channel, for a registry that is told of changes. */
    notices: { url: DATABASE_URL, schema },
    start(
      o: Pick<RegistryOptions, 'shard' | 'count' | 'holder' | 'holdTtlMs' | 'intervalMs'> &
        Partial<RegistryOptions>,
    ): ShardRegistry {
      const r = startShardRegistry({
        pool: pool!,
        horizons: () => new Map(),
        heldRequests: () => [],
        recordedPast: async () => {},
        logger,
        registry: new Registry(),
        clock: Date.now,
        ...o,
      });
      started.push(r);
      return r;
    },
  };
}
