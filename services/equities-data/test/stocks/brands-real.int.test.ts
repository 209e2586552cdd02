import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { withCheckDigit } from '@mdp/market';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EquitiesDataset } from '../../src/areas/stocks/dataset.ts';
import { BUILT_IN_BRANDS } from '../../src/areas/stocks/importers/brands.ts';
import { readDataset } from '../../src/areas/stocks/read.ts';
import { runImport } from '../../src/importers/index.ts';
import { DATABASE_URL, REALDATA } from '../support.ts';

// The built-in brands on the real NSE and BSE equity lists, into a fresh schema: every brand must find
// its owner first. Only the two current master lists are imported (a few seconds).
const schema = `eqbrand_${randomBytes(5).toString('hex')}`;
const tmp = mkdtempSync(join(tmpdir(), 'eqbrand-'));
let pool: Pool;

const brandCount = async () =>
  Number((await pool.query(`SELECT count(*) AS n FROM aliases WHERE kind = 'brand'`)).rows[0].n);
const ownerOf = async (brand: string) =>
  (
    await pool.query<{ symbol: string }>(
      `SELECT s.symbol FROM aliases a JOIN stocks s ON s.id = a.stock_id WHERE a.kind = 'brand' AND a.alias = $1`,
      [brand],
    )
  ).rows.map((r) => r.symbol);

beforeAll(async () => {
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../../migrations/', import.meta.url).pathname,
    max: 2,
    applicationName: 'equities-brands-test',
  });
  await runImport(pool, 'nse-securities', [join(REALDATA, 'nse_EQUITY_L_2026-07.csv')]);
  await runImport(pool, 'bse-scrips', [join(REALDATA, 'bse_Equity_scrip_master_with_industry.csv')]);
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
  rmSync(tmp, { recursive: true, force: true });
});

describe('brands on the real equity lists', () => {
  it('imports every built-in brand, each owner found by its ISIN', async () => {
    const report = await runImport(pool, 'brands', []);
    const total = BUILT_IN_BRANDS.reduce((n, o) => n + o.brands.length, 0);
    expect(report).toMatchObject({ read: total, loaded: total, rejected: 0 });
    expect(await brandCount()).toBe(total);
    expect(await ownerOf('Surf Excel')).toEqual(['HINDUNILVR']);
    // Again: nothing changes.
    expect((await runImport(pool, 'brands', [])).changed).toBe(0);
  });

  it('finds the owner first when searching any built-in brand', async () => {
    const ds = new EquitiesDataset(await readDataset(pool));
    // Exact exchange codes come first (SPEC 4.5): "CIL" is the BSE scrip id of Citizen Infoline, and
    // Coal India, known as CIL, comes second.
    const codeOfAnother = new Set(['CIL']);
    const misses: string[] = [];
    for (const { symbol, brands } of BUILT_IN_BRANDS) {
      for (const q of brands.filter((b) => !codeOfAnother.has(b))) {
        const top = ds.search.search({ q, limit: 3 }).hits.map((h) => ds.entries[h]!.row.symbol);
        if (top[0] !== symbol) misses.push(`"${q}": wanted ${symbol}, got ${top.join(', ') || 'nothing'}`);
      }
    }
    expect(misses).toEqual([]);
    expect(ds.search.search({ q: 'CIL', limit: 2 }).hits.map((h) => ds.entries[h]!.row.symbol)).toEqual([
      '538786',
      'COALINDIA',
    ]);
    // As people type them.
    for (const [q, symbol] of [
      ['maggi', 'NESTLEIND'],
      ['surf excel', 'HINDUNILVR'],
      ['fevicol', 'PIDILITIND'],
      ['tanishq', 'TITAN'],
      ['naukri', 'NAUKRI'],
      ['taj hotels', 'INDHOTEL'],
      ['complan', 'ZYDUSWELL'],
      ['mcdonalds', 'WESTLIFE'],
      ['dominos', 'JUBLFOOD'],
      ['ponds', 'HINDUNILVR'],
    ] as const) {
      const hit = ds.search.search({ q, limit: 1 }).hits[0];
      expect(hit === undefined ? undefined : ds.entries[hit]!.row.symbol, q).toBe(symbol);
    }
  });

  it('adds CSV brands to the built-in ones, by ISIN when the row has one', async () => {
    const before = await brandCount();
    const file = join(tmp, 'brands.csv');
    writeFileSync(
      file,
      [
        'symbol,brand,isin',
        // A former symbol: the ISIN names today's ETERNAL.
        'ZOMATO,Zomato Gold,INE758T01015',
        // No symbol at all.
        ',Hyperpure,INE758T01015',
        // A symbol only.
        'BRITANNIA,Bourbon,',
        // An ISIN no listed stock has: the symbol still names the stock.
        `ITC,Candico,${withCheckDigit('INE000X0101')}`,
        'NOSUCHSYMBOL,Nothing,',
      ].join('\n'),
    );
    const report = await runImport(pool, 'brands', [file]);
    expect(report).toMatchObject({ read: 5, loaded: 4, rejected: 1 });
    expect(report.files[0]!.reasons['no listed stock has this symbol']?.count).toBe(1);
    expect(await ownerOf('Zomato Gold')).toEqual(['ETERNAL']);
    expect(await ownerOf('Hyperpure')).toEqual(['ETERNAL']);
    expect(await ownerOf('Bourbon')).toEqual(['BRITANNIA']);
    expect(await ownerOf('Candico')).toEqual(['ITC']);
    // Added to, not replacing, the built-in list.
    expect(await brandCount()).toBe(before + 4);
    expect(await ownerOf('Surf Excel')).toEqual(['HINDUNILVR']);
    expect((await runImport(pool, 'brands', [])).changed).toBe(0);
  });
});
