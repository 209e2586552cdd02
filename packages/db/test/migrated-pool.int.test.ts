import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@mdp/telemetry';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool, dropSchema, migrateDown, migratedPool } from '../src/index.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const schema = `t${randomBytes(4).toString('hex')}_migrated_pool`;
const dir = mkdtempSync(join(tmpdir(), 'mdp-db-migrations-'));
writeFileSync(
  join(dir, '0001_widgets.sql'),
  `-- Up Migration
CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);
INSERT INTO widgets VALUES (1, 'first');

-- Down Migration
DROP TABLE widgets;
`,
);

afterAll(async () => {
  await dropSchema(DATABASE_URL, schema);
  rmSync(dir, { recursive: true, force: true });
});

/** A logger whose lines are kept, to see which migrations a call reports applying. */
function recordingLogger() {
  const lines: { msg: string; migrations?: string[] }[] = [];
  const logger = createLogger('db-test', 'info', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('migratedPool', () => {
  it('migrates a fresh schema, then opens a pool on it; a second call applies nothing', async () => {
    const first = recordingLogger();
    const pool = await migratedPool({
      url: DATABASE_URL,
      schema,
      dir,
      max: 2,
      applicationName: 'db-migrated-pool-test',
      logger: first.logger,
    });
    try {
      // Unqualified: the pool's search_path is the migrated schema.
      const { rows } = await pool.query('SELECT name FROM widgets WHERE id = 1');
      expect(rows).toEqual([{ name: 'first' }]);
      const settings = await pool.query(
        "SELECT current_schema() AS schema, current_setting('application_name') AS app, current_setting('jit') AS jit",
      );
      // No JIT compilation on the request path (tens of milliseconds per statement once estimates grow).
      expect(settings.rows[0]).toEqual({ schema, app: 'db-migrated-pool-test', jit: 'off' });
    } finally {
      await pool.end();
    }
    expect(first.lines.filter((l) => l.msg === 'migrations applied')).toEqual([
      expect.objectContaining({ migrations: ['0001_widgets'] }),
    ]);

    const second = recordingLogger();
    const again = await migratedPool({
      url: DATABASE_URL,
      schema,
      dir,
      max: 1,
      applicationName: 'db-migrated-pool-test',
      logger: second.logger,
    });
    try {
      expect(second.lines.filter((l) => l.msg === 'migrations applied')).toEqual([]);
      expect((await again.query('SELECT count(*)::int AS n FROM pgmigrations')).rows[0].n).toBe(1);
      expect((await again.query('SELECT count(*)::int AS n FROM widgets')).rows[0].n).toBe(1);
    } finally {
      await again.end();
    }
  });
});

describe('migrateDown', () => {
  it("undoes a schema's migrations while other schemas are migrated down at the same moment", async () => {
    const schemas = Array.from({ length: 4 }, (_, i) => `${schema}_down${i}`);
    try {
      const pools = await Promise.all(
        schemas.map((s) =>
          migratedPool({ url: DATABASE_URL, schema: s, dir, max: 1, applicationName: 'db-down-test' }),
        ),
      );
      try {
        // Each schema's own lock: none waits for another's, none is refused as "already running".
        await Promise.all(schemas.map((s) => migrateDown({ url: DATABASE_URL, schema: s, dir, count: 1 })));
        for (const pool of pools) {
          const { rows } = await pool.query(
            "SELECT to_regclass('widgets') IS NULL AS gone, (SELECT count(*)::int FROM pgmigrations) AS applied",
          );
          expect(rows[0]).toEqual({ gone: true, applied: 0 });
        }
      } finally {
        await Promise.all(pools.map((p) => p.end()));
      }
    } finally {
      for (const s of schemas) await dropSchema(DATABASE_URL, s);
    }
  });
});

describe('createPool settings', () => {
  it('applies them to every connection, beside the schema and jit', async () => {
    const pool = createPool({
      url: DATABASE_URL,
      schema,
      max: 2,
      applicationName: 'db-settings-test',
      settings: { enable_seqscan: 'off', statement_timeout: '1500' },
    });
    try {
      const clients = await Promise.all([pool.connect(), pool.connect()]);
      for (const c of clients) {
        const { rows } = await c.query(
          "SELECT current_setting('enable_seqscan') AS seqscan, current_setting('statement_timeout') AS timeout, current_setting('jit') AS jit, current_schema() AS schema",
        );
        expect(rows[0]).toEqual({ seqscan: 'off', timeout: '1500ms', jit: 'off', schema });
        c.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('refuses a name or value that could smuggle another option', () => {
    const open = (settings: Record<string, string>) =>
      createPool({ url: DATABASE_URL, schema, max: 1, applicationName: 'db-settings-test', settings });
    expect(() => open({ enable_seqscan: 'off -c search_path=public' })).toThrow(/invalid setting/);
    expect(() => open({ 'work_mem=1GB -c x': 'on' })).toThrow(/invalid setting/);
  });
});
