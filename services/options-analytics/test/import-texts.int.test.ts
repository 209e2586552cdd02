import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFoTexts, OptionsFileError } from '../src/import/import-fo.ts';
import { importLotText } from '../src/import/import-lots.ts';
import { freshSchema, R } from './harness.ts';
import { LOT_FILE, NIFTY_BANKNIFTY_DIR, readReal } from './realdata.ts';

// The folder import's entry points: several files in one transaction, a malformed one named file:line
// with nothing written, and a file imported before left out.

let env: Awaited<ReturnType<typeof freshSchema>>;
beforeAll(async () => {
  env = await freshSchema('import_texts');
});
afterAll(async () => {
  await env?.drop();
});

const count = async (table: string) =>
  Number((await env.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
const nifty = { path: 'fo.zip/NIFTY.csv', text: readReal(`${NIFTY_BANKNIFTY_DIR}NIFTY_2026-03-27.csv`) };

describe('importing F&O and lot files handed over as text', () => {
  it('a malformed F&O file stops the import at its file:line, and nothing of the batch is written', async () => {
    const [header, row, ...rest] = readReal(`${NIFTY_BANKNIFTY_DIR}BANKNIFTY_2026-03-27.csv`).split('\n');
    const cells = row!.split(',');
    cells[header!.split(',').indexOf('UndrlygPric')] = 'abc';
    const bad = { path: 'fo.zip/BANKNIFTY.csv', text: [header, cells.join(','), ...rest].join('\n') };
    const attempt = importFoTexts(env.pool, [nifty, bad], { r: R, skipLoaded: true });
    await expect(attempt).rejects.toThrow(OptionsFileError);
    await expect(attempt).rejects.toThrow('fo.zip/BANKNIFTY.csv:2: UndrlygPric is not a number: "abc"');
    expect(await count('snapshots')).toBe(0);
    expect(await count('loads')).toBe(0);
  });

  it('a file whose exact content was imported before is left out, and says so', async () => {
    const [first] = await importFoTexts(env.pool, [nifty], { r: R, skipLoaded: true });
    expect(first).toMatchObject({ unchanged: false, tradeDates: ['2026-03-27'] });
    expect(first!.options).toBeGreaterThan(100);
    const [again] = await importFoTexts(env.pool, [nifty], { r: R, skipLoaded: true });
    expect(again).toMatchObject({ unchanged: true, options: 0 });
    expect(await count('loads')).toBe(1);
  });

  it('a malformed market-lot file names file:line; a repeat of a good one is unchanged', async () => {
    await expect(importLotText(env.pool, { path: 'lots.csv', text: 'SYMBOL,LOT\nX,1\n' })).rejects.toThrow(
      'lots.csv:1: not an NSE market-lot file: the header must start UNDERLYING,SYMBOL',
    );
    const lots = { path: 'fo_mktlots.csv', text: readReal(LOT_FILE) };
    expect((await importLotText(env.pool, lots, { skipLoaded: true })).unchanged).toBe(false);
    expect(await importLotText(env.pool, lots, { skipLoaded: true })).toEqual({
      indices: 0,
      stocks: 0,
      unchanged: true,
    });
  });
});
