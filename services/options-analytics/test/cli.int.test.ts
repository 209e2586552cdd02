import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { defaultAsOf, run, UsageError } from '../src/cli.ts';
import { DEFAULT_SEED, marketOf } from '../src/generate/dataset.ts';
import { fnoStocks } from '../src/generate/universe.ts';
import { OptionsStore } from '../src/store/options-store.ts';
import { DATABASE_URL, freshSchema, R } from './harness.ts';
import { FULL_DAY_FILE, LOT_FILE, NIFTY_BANKNIFTY_DIR, realPath } from './realdata.ts';

let db: Awaited<ReturnType<typeof freshSchema>>;
const progress: string[] = [];
// 2026-11-22 12:00 IST, a Sunday: the default as-of day is Friday 20 November.
const clock = () => Date.parse('2026-11-22T06:30:00Z');
const cli = (...argv: string[]) =>
  run(argv, { pool: db.pool, r: R, clock, progress: (l) => progress.push(l) });

beforeAll(async () => {
  db = await freshSchema('opt_cli');
});
afterAll(async () => {
  await db.drop();
});

describe('options-data commands', () => {
  it('imports the lot-size file and bhavcopies (files, directories, a symbol filter)', async () => {
    expect(await cli('import-lots', realPath(LOT_FILE))).toBe(
      'imported lot sizes of 5 indices and 208 stocks',
    );
    expect(await cli('import-fo', realPath(FULL_DAY_FILE), '--symbols', 'NIFTY,reliance')).toMatch(
      /^imported 1 file\(s\): 2 underlying-days, \d+ options$/,
    );
    const out = await cli('import-fo', realPath(NIFTY_BANKNIFTY_DIR), '--symbols', 'BANKNIFTY');
    expect(out).toMatch(/^imported 132 file\(s\): 66 underlying-days, \d+ options$/);
    expect(progress).toContainEqual(
      expect.stringMatching(/BANKNIFTY_2026-03-27\.csv: 2026-03-27: 1 underlyings/),
    );
    expect(progress).toContainEqual(
      expect.stringMatching(/\/NIFTY_2026-03-27\.csv: nothing to import for the symbols asked$/),
    );
    const store = new OptionsStore(db.pool);
    expect(await store.underlying('M&M')).toMatchObject({
      kind: 'stock',
      name: 'MAHINDRA & MAHINDRA LTD',
      source: 'nse_mktlots',
    });
    expect(await store.underlying('NIFTY')).toMatchObject({
      kind: 'index',
      name: 'NIFTY 50',
      source: 'nse_udiff',
    });
    expect((await store.dailyRows('BANKNIFTY', null)).length).toBe(66);
    expect(await cli('status')).toMatch(/snapshots\s+68/);
  });

  it('generates a dataset, replacing what was there; load-default --if-empty then leaves it alone', async () => {
    const out = await cli('generate', '--history-days', '60');
    expect(out).toMatch(/^generated 556 underlyings, 213 chains, \d+ daily rows in [\d.]+ s$/);
    expect(progress.at(-1)).toBe(`generating: seed 20260101, market history to 2026-11-20, r = ${R}`);
    const store = new OptionsStore(db.pool);
    expect((await store.latestSnapshot('NIFTY'))!.tradeDate).toBe('2026-11-20');
    // The default market's largest company has F&O, under its own symbol and name.
    const market = marketOf({ seed: DEFAULT_SEED, asOf: '2026-11-20', r: R, historyDays: 60 });
    const largest = fnoStocks(market).current[0]!;
    expect(await store.underlying(largest.nseSymbol!)).toMatchObject({
      source: 'generated',
      name: largest.name,
      kind: 'stock',
    });
    expect(await cli('load-default', '--if-empty')).toBe('options data already loaded; nothing written');
    expect((await store.counts()).underlyings).toBe(556);
  });

  it('clears everything', async () => {
    expect(await cli('clear')).toBe('cleared');
    expect(await new OptionsStore(db.pool).isEmpty()).toBe(true);
  });

  it('takes the last completed session (IST) as the default as-of day, as the equities data does', () => {
    expect(defaultAsOf(clock)).toBe('2026-11-20');
    expect(defaultAsOf(() => Date.parse('2026-11-24T20:00:00Z'))).toBe('2026-11-23'); // 25 Nov IST; the 24th a holiday
  });

  it('refuses bad commands and options with a reason', async () => {
    await expect(cli('frobnicate')).rejects.toThrow(UsageError);
    await expect(cli()).rejects.toThrow(/no command given/);
    await expect(cli('import-fo')).rejects.toThrow(/at least one file/);
    await expect(cli('generate', '--as-of', '2026-13-01')).rejects.toThrow(/--as-of must be a date/);
    await expect(cli('generate', '--size', '5')).rejects.toThrow(/--size must be at least 20/);
    await expect(cli('generate', '--history-days', 'x')).rejects.toThrow(
      /--history-days must be a whole number/,
    );
    await expect(cli('load-default', '--seed', '3')).rejects.toThrow(/use generate/);
    await expect(cli('import-fo', realPath(LOT_FILE))).rejects.toThrow(/not a UDiFF F&O bhavcopy/);
  });
});

describe('the real command-line process', () => {
  const exec = promisify(execFile);
  const tool = (...args: string[]) =>
    exec(process.execPath, [...nodeArgsFor('services/options-analytics/src/cli.ts'), ...args], {
      env: { ...process.env, DATABASE_URL, DB_SCHEMA: db.schema },
      cwd: process.cwd(),
    });

  it('prints counts on stdout, and exits 2 with the usage for a bad command', async () => {
    const { stdout } = await tool('status');
    expect(stdout).toMatch(/^underlyings\s+0$/m);
    await expect(tool('nonsense')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/usage: options-data/),
    });
  });
});
