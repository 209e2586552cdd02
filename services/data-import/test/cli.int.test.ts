import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema } from '@mdp/db';
import { formatDay, lastCompletedSession } from '@mdp/nse-calendar';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakePushgateway } from '../../../test/ops/pushgateway.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const CLI = new URL('../src/cli.ts', import.meta.url).pathname;
const REAL = new URL('../../../../shared/realdata/', import.meta.url).pathname;
const tag = `t${randomBytes(4).toString('hex')}`;
const schemas = {
  EQUITIES_DB_SCHEMA: `${tag}_eq`,
  OPTIONS_DB_SCHEMA: `${tag}_op`,
  FILINGS_DB_SCHEMA: `${tag}_fi`,
};
const dir = mkdtempSync(join(tmpdir(), 'mdp-import-cli-'));

const cli = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
      { env: { ...process.env, DATABASE_URL, ...schemas, ...env } },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

afterAll(async () => {
  for (const s of Object.values(schemas)) await dropSchema(DATABASE_URL, s);
  rmSync(dir, { recursive: true, force: true });
});

describe('the data-import command line', () => {
  it('without a folder: usage, exit 2', async () => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing <folder>');
    expect(r.stderr).toContain('usage: data-import <folder>');
  });

  it('a bad schema name: exit 78 naming the variable', async () => {
    const r = await cli([dir], { OPTIONS_DB_SCHEMA: 'Options; DROP' });
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(/invalid configuration: .*OPTIONS_DB_SCHEMA/);
  });

  it('--day-folder before the day’s files arrived: exit 1 saying which folder it looked for, and freshness pushed without a success', async () => {
    const day = formatDay(lastCompletedSession(Date.now()));
    const gateway = await startFakePushgateway();
    try {
      const r = await cli([dir, '--day-folder'], { PUSHGATEWAY_URL: gateway.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(dir, day)} is not a folder`);
      expect(gateway.pushes).toHaveLength(1);
      const served = gateway.exposition();
      expect(served).toMatch(/^mdp_data_import_last_run_timestamp_seconds\{job="mdp-data-import"\} \d+/m);
      expect(served).toContain('mdp_data_import_sessions_behind{job="mdp-data-import"} Nan'); // no prices at all
      expect(served).not.toContain('mdp_data_import_last_success_timestamp_seconds');
    } finally {
      await gateway.close();
    }
  });

  it('--day-folder imports the last session’s folder; --json gives the report as data', async () => {
    const day = formatDay(lastCompletedSession(Date.now()));
    mkdirSync(join(dir, day));
    copyFileSync(`${REAL}nse_fo/fo_mktlots_2026-08.csv`, join(dir, day, 'fo_mktlots.csv'));
    copyFileSync(`${REAL}nse_fo/fo_mktlots_2026-08.csv`, join(dir, 'not-today.csv'));
    const r = await cli([dir, '--day-folder', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      folder: string;
      kinds: { kind: string; files: string[]; loaded: number }[];
      unrecognised: unknown[];
      lastTradingDay: string;
    };
    expect(report.folder).toBe(join(dir, day));
    expect(report.kinds.map((k) => [k.kind, k.files])).toEqual([['fo-lots', ['fo_mktlots.csv']]]);
    expect(report.kinds[0]!.loaded).toBeGreaterThan(200);
    expect(report.lastTradingDay).toBe('none');
  });
});
