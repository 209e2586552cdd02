import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reviewMigration } from './destructive.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Migrations from before this check that remove or rename what the release before them may have used:
 * an upgrade across one had a window, until every pod had rolled, in which the old release could fail
 * against the migrated schema (across the quota ledger's 0005, 0006 and 0013, a shard not yet rolled
 * could not record; its charges waited in JetStream). They stay as written (a migration, once released,
 * never changes); none may join them.
 */
const BEFORE_THIS_CHECK = new Set([
  'equities-data/0003_corporate.sql',
  'quota-ledger/0002_usage_by_interface.sql',
  'quota-ledger/0004_request_key_by_account.sql',
  'quota-ledger/0005_partitioned_usage_log.sql',
  'quota-ledger/0006_usage_log_account_numbers.sql',
  'quota-ledger/0013_projections_from_routes.sql',
]);

function migrations(): { name: string; sql: string }[] {
  return readdirSync(join(ROOT, 'services')).flatMap((svc) => {
    let files: string[];
    try {
      files = readdirSync(join(ROOT, 'services', svc, 'migrations'));
    } catch {
      return [];
    }
    return files
      .filter((f) => f.endsWith('.sql'))
      .map((f) => ({
        name: `${svc}/${f}`,
        sql: readFileSync(join(ROOT, 'services', svc, 'migrations', f), 'utf8'),
      }));
  });
}

describe('migrations work with the release still running', () => {
  it('remove or rename nothing in their Up section unless they say what, and since when it is unused', () => {
    const found = migrations();
    expect(found.length).toBeGreaterThan(20);
    const unsaid = found
      .filter((m) => !BEFORE_THIS_CHECK.has(m.name))
      .map((m) => ({ name: m.name, ...reviewMigration(m.sql) }))
      .filter((r) => r.destructive.length > 0 && r.contracts.length === 0)
      .map((r) => `${r.name}: ${r.destructive.join(' | ')}`);
    expect(unsaid).toEqual([]);
  });

  it('lists before this check only migrations that do remove or rename something', () => {
    const names = new Map(migrations().map((m) => [m.name, m.sql]));
    for (const name of BEFORE_THIS_CHECK) {
      expect(names.has(name), name).toBe(true);
      expect(reviewMigration(names.get(name)!).destructive.length, name).toBeGreaterThan(0);
    }
  });
});

describe('reviewMigration', () => {
  const migration = (up: string, down = 'DROP TABLE widgets;') =>
    `-- Up Migration\n${up}\n\n-- Down Migration\n${down}\n`;

  it('finds what removes, renames or retypes in the Up section only', () => {
    expect(reviewMigration(migration('CREATE TABLE widgets (id int);')).destructive).toEqual([]);
    expect(
      reviewMigration(
        migration(
          [
            'DROP TABLE usage_daily;',
            'ALTER TABLE t RENAME COLUMN a TO b;',
            'ALTER TABLE t ALTER COLUMN a TYPE bigint;',
            'ALTER TABLE t DROP CONSTRAINT t_pkey;',
            'drop view v;',
            '  TRUNCATE usage_route_daily;',
          ].join('\n'),
        ),
      ).destructive,
    ).toEqual([
      'DROP TABLE usage_daily;',
      'ALTER TABLE t RENAME COLUMN a TO b;',
      'ALTER TABLE t ALTER COLUMN a TYPE bigint;',
      'ALTER TABLE t DROP CONSTRAINT t_pkey;',
      'drop view v;',
      'TRUNCATE usage_route_daily;',
    ]);
  });

  it('reads neither comments nor loosening as removal', () => {
    const sql = migration(
      [
        '-- The old table is dropped a release later.',
        'ALTER TABLE plans ALTER COLUMN burst DROP NOT NULL;',
        'ALTER TABLE plans ADD COLUMN note text;',
        'CREATE TRIGGER kept BEFORE UPDATE OR DELETE OR TRUNCATE ON usage_events',
      ].join('\n'),
    );
    expect(reviewMigration(sql).destructive).toEqual([]);
  });

  it('reads a Contract line as the reason given', () => {
    const sql = migration(
      '-- Contract: usage_route_daily, unused since migration 0015\nDROP TABLE usage_route_daily;',
    );
    expect(reviewMigration(sql)).toEqual({
      destructive: ['DROP TABLE usage_route_daily;'],
      contracts: ['usage_route_daily, unused since migration 0015'],
    });
  });
});
