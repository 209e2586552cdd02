import type { Pool } from '@mdp/db';
import { type GeneratedDataset, generateIndices, type IndexFamily } from '@mdp/market';
import type pg from 'pg';
import { copyDay, copyRows, copyValue } from '../../store/copy.ts';
import { type IndexSeries, IndicesData } from './data.ts';

export const INDEX_TABLES = ['index_bars', 'index_constituents', 'indices'] as const;

/** Generates every index of the dataset and copies them in; ids follow the definitions' order. */
export async function writeGeneratedIndices(
  client: pg.PoolClient,
  market: GeneratedDataset,
  log: (line: string) => void,
): Promise<string> {
  const started = Date.now();
  const indices = generateIndices(market);
  log(`  ${indices.length} indices generated in ${((Date.now() - started) / 1000).toFixed(1)} s; copying`);
  await copyRows(client, 'indices', ['id', 'name', 'family'], (write) => {
    indices.forEach((x, i) => {
      write([String(i + 1), copyValue(x.name), x.family]);
    });
  });
  const members = await copyRows(client, 'index_constituents', ['index_id', 'stock_id'], (write) => {
    indices.forEach((x, i) => {
      for (const id of x.constituents) write([String(i + 1), String(id)]);
    });
  });
  const bars = await copyRows(
    client,
    'index_bars',
    ['index_id', 'd', 'open', 'high', 'low', 'close', 'pe', 'pb', 'div_yield'],
    (write) => {
      indices.forEach((x, i) => {
        for (const b of x.bars)
          write([
            String(i + 1),
            copyDay(b.d),
            String(b.open),
            String(b.high),
            String(b.low),
            String(b.close),
            copyValue(b.pe),
            copyValue(b.pb),
            copyValue(b.divYield),
          ]);
      });
    },
  );
  await client.query("SELECT setval(pg_get_serial_sequence('indices', 'id'), $1)", [
    Math.max(1, indices.length),
  ]);
  return `indices ${indices.length} (${members} constituents, ${bars} daily bars)`;
}

type Num = number | null;

/** Every index with its days (some 200,000 for the default dataset: well under a second). */
export async function readIndices(pool: Pool): Promise<IndicesData> {
  const [indices, days] = await Promise.all([
    pool.query<{ id: number; name: string; family: IndexFamily; members: number }>(
      `SELECT i.id, i.name, i.family, (SELECT count(*)::int FROM index_constituents c WHERE c.index_id = i.id) AS members
         FROM indices i ORDER BY i.id`,
    ),
    pool.query<[number, number, Num, Num, Num, Num, Num, Num, Num]>({
      text: `SELECT index_id, d - DATE '1970-01-01', open, high, low, close, pe, pb, div_yield
               FROM index_bars ORDER BY index_id, d`,
      rowMode: 'array',
    }),
  ]);
  const byId = new Map<number, IndexSeries>(
    indices.rows.map((r) => [
      r.id,
      { id: r.id, name: r.name, family: r.family, days: [], constituents: r.members },
    ]),
  );
  for (const [id, d, open, high, low, close, pe, pb, divYield] of days.rows)
    byId.get(id)!.days.push({ d, open, high, low, close, pe, pb, divYield });
  return new IndicesData([...byId.values()]);
}
