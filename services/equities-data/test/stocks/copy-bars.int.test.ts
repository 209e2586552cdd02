import { randomBytes } from 'node:crypto';
import { createPool, dropSchema, type Pool } from '@mdp/db';
import type { BarRow } from '@mdp/market';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyBars } from '../../src/areas/stocks/copy-bars.ts';
import { barsTable } from '../../src/areas/stocks/tables.ts';
import { copyRows } from '../../src/store/copy.ts';
import { DATABASE_URL, smallDataset } from '../support.ts';

// The default dataset's bars go in with COPY's binary format; the importers' bars with its text format.
// Both must store exactly the same rows.
const schema = `copybars_${randomBytes(5).toString('hex')}`;
let pool: Pool;
const COLUMNS = `stock_id integer NOT NULL, d date NOT NULL, open integer NOT NULL, high integer NOT NULL,
  low integer NOT NULL, close integer NOT NULL, volume bigint NOT NULL, delivery_qty bigint`;

beforeAll(async () => {
  pool = createPool({ url: DATABASE_URL, schema, max: 1, applicationName: 'copy-bars-test' });
  await pool.query(`CREATE SCHEMA "${schema}"`);
  await pool.query(`CREATE TABLE daily_bars (${COLUMNS})`);
  await pool.query(`CREATE TABLE text_bars (${COLUMNS})`);
});

afterAll(async () => {
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

describe('daily bars copied in the binary format', () => {
  it('are the rows the text format stores, nulls, large volumes and old days included', async () => {
    const { bars } = smallDataset(40);
    const all: BarRow[] = [...bars.values()].flat();
    all.push(
      { stockId: 9_001, d: 0, open: 1, high: 2, low: 1, close: 2, volume: 2 ** 40 + 7, deliveryQty: null },
      { stockId: 9_001, d: -365, open: 5, high: 5, low: 5, close: 5, volume: 0, deliveryQty: 2 ** 33 },
    );
    expect(all.some((b) => b.deliveryQty === null)).toBe(true);
    const client = await pool.connect();
    try {
      const binary = await copyBars(client, async (write, drained) => {
        for (const [i, b] of all.entries()) {
          write(b);
          if (i % 5_000 === 0) await drained();
        }
      });
      const text = await copyRows(client, 'text_bars', barsTable.columns, (write) => {
        for (const b of all) write(barsTable.encode(b));
      });
      expect(binary).toBe(all.length);
      expect(text).toBe(all.length);
    } finally {
      client.release();
    }
    const differ = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ((TABLE daily_bars EXCEPT ALL TABLE text_bars)
                                  UNION ALL (TABLE text_bars EXCEPT ALL TABLE daily_bars)) AS d`,
    );
    expect(Number(differ.rows[0]!.n)).toBe(0);
    const { rows } = await pool.query<{ d: string; volume: string; delivery_qty: string | null }>(
      "SELECT to_char(d, 'YYYY-MM-DD') AS d, volume::text, delivery_qty::text FROM daily_bars WHERE stock_id = 9001 ORDER BY d",
    );
    expect(rows).toEqual([
      { d: '1969-01-01', volume: '0', delivery_qty: String(2 ** 33) },
      { d: '1970-01-01', volume: String(2 ** 40 + 7), delivery_qty: null },
    ]);
  }, 60_000);

  it('refuses a price that is not a whole number, storing nothing of that copy', async () => {
    const client = await pool.connect();
    try {
      await expect(
        copyBars(client, (write) =>
          write({
            stockId: 1,
            d: 20_000,
            open: 1.5,
            high: 2,
            low: 1,
            close: 2,
            volume: 1,
            deliveryQty: null,
          }),
        ),
      ).rejects.toThrow(/not a 32-bit integer/);
      // The COPY was aborted and the connection still answers.
      expect(
        (await client.query('SELECT count(*)::int AS n FROM daily_bars WHERE stock_id = 77')).rows,
      ).toEqual([{ n: 0 }]);
    } finally {
      client.release();
    }
  });
});
