import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema } from '@mdp/db';
import { formatDay, lastCompletedSession } from '@mdp/nse-calendar';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { startFakePushgateway } from '../../../test/ops/pushgateway.ts';
import { freePort } from '../../../test/stack.ts';

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
const BHAV = 'nse_cm_bhavcopy_2025-08_to_2026-07/';

interface Report {
  folder: string;
  days?: string[];
  kinds: { kind: string; files: string[]; loaded: number }[];
  lastTradingDay: string;
}

const cli = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgsFor(CLI), ...args],
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

  it('a bad schema name or Pushgateway URL: exit 78 naming the variable', async () => {
    const r = await cli([dir], { OPTIONS_DB_SCHEMA: 'Options; DROP' });
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(/invalid configuration: .*OPTIONS_DB_SCHEMA/);
    const push = await cli([dir], { PUSHGATEWAY_URL: 'pushgateway:9091' });
    expect(push.code).toBe(78);
    expect(push.stderr).toMatch(/invalid configuration: .*PUSHGATEWAY_URL/);
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

  it('--day-folder imports every day folder after the last day held, up to the last session; --json gives the report as data', async () => {
    const session = lastCompletedSession(Date.now());
    const day = formatDay(session);
    const put = (from: string, to: string) => {
      mkdirSync(join(dir, to, '..'), { recursive: true });
      copyFileSync(`${REAL}${from}`, join(dir, to));
    };
    put('nse_EQUITY_L_2026-07.csv', '2026-07-22/EQUITY_L.csv');
    put(`${BHAV}cm_bhav_2026-07-22.csv`, '2026-07-22/cm_bhav_2026-07-22.csv');
    put('nse_fo/fo_mktlots_2026-08.csv', `${day}/fo_mktlots.csv`);
    put('nse_fo/fo_mktlots_2026-08.csv', `${formatDay(session + 1)}/fo_mktlots.csv`); // not a session yet
    put('nse_fo/fo_mktlots_2026-08.csv', 'misc/fo_mktlots.csv'); // not a day folder
    put('nse_fo/fo_mktlots_2026-08.csv', 'not-today.csv');
    // The exchange's list for the coming year, dropped into the day's folder as the runbook says.
    writeFileSync(join(dir, day, 'holidays-2027.csv'), 'date,description\n2027-01-26,Republic Day\n');
    const first = await cli([dir, '--day-folder', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as Report;
    expect(report.folder).toBe(dir);
    expect(report.days).toEqual(['2026-07-22', day]);
    expect(report.kinds.map((k) => [k.kind, k.files])).toEqual([
      ['holidays', [`${day}/holidays-2027.csv`]],
      ['nse-securities', ['2026-07-22/EQUITY_L.csv']],
      ['brands', []],
      ['bhavcopy', ['2026-07-22/cm_bhav_2026-07-22.csv']],
      ['fo-lots', [`${day}/fo_mktlots.csv`]],
    ]);
    expect(report.lastTradingDay).toBe('2026-07-22');

    // A missed day is caught up; a day already held is not read again; without the last session's
    // folder the run still imports the days before it, and says the last one is missing.
    rmSync(join(dir, day), { recursive: true });
    put(`${BHAV}cm_bhav_2026-07-21.csv`, '2026-07-21/cm_bhav_2026-07-21.csv');
    put(`${BHAV}cm_bhav_2026-07-23.csv`, '2026-07-23/cm_bhav_2026-07-23.csv');
    const second = await cli([dir, '--day-folder', '--json']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `${join(dir, day)} is not a folder: the last session’s files have not arrived (imported the days before it)`,
    );
    const caughtUp = JSON.parse(second.stdout) as Report;
    expect(caughtUp.days).toEqual(['2026-07-23']);
    expect(caughtUp.kinds.find((k) => k.kind === 'bhavcopy')?.files).toEqual([
      '2026-07-23/cm_bhav_2026-07-23.csv',
    ]);
    expect(caughtUp.lastTradingDay).toBe('2026-07-23');
  });

  it('a broken zip is reported, not fatal; a Pushgateway that is down costs only a warning', async () => {
    const other = mkdtempSync(join(tmpdir(), 'mdp-import-cli-'));
    try {
      writeFileSync(join(other, 'PR161225.zip'), 'PK\u0003\u0004 this is not a zip archive');
      copyFileSync(`${REAL}nse_fo/fo_mktlots_2026-08.csv`, join(other, 'fo_mktlots.csv'));
      const r = await cli([other, '--json'], { PUSHGATEWAY_URL: `http://127.0.0.1:${await freePort()}` });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as Report & { unrecognised: { path: string; reason: string }[] };
      expect(report.unrecognised).toEqual([
        { path: 'PR161225.zip', reason: expect.stringMatching(/^not a readable zip archive \(.+\)$/) },
      ]);
      expect(report.kinds.map((k) => k.kind)).toEqual(['fo-lots']);
      expect(r.stderr).toMatch(/could not push metrics to http:\/\/127\.0\.0\.1:\d+: /);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
