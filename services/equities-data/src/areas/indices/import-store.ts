import type pg from 'pg';
import { type IndexDay, nameKey } from './data.ts';
import { familyOf } from './families.ts';

/**
 * The ids of the named indices, creating those not yet stored (family from the name). A stored index
 * keeps its spelling and family: "Nifty 50" from a file is the generated "NIFTY 50".
 */
export async function upsertIndices(
  client: pg.PoolClient,
  names: readonly string[],
): Promise<Map<string, number>> {
  const distinct = [...new Map(names.map((n) => [nameKey(n), n])).values()];
  await client.query(
    `INSERT INTO indices (name, family) SELECT * FROM unnest($1::text[], $2::text[])
     ON CONFLICT ((lower(name))) DO NOTHING`,
    [distinct, distinct.map(familyOf)],
  );
  const { rows } = await client.query<{ id: number; key: string }>(
    'SELECT id, upper(name) AS key FROM indices WHERE lower(name) = ANY($1::text[])',
    [distinct.map((n) => n.toLowerCase())],
  );
  const byKey = new Map(rows.map((r) => [r.key, r.id]));
  return new Map(names.map((n) => [n, byKey.get(nameKey(n))!]));
}

export interface IndexDayRow extends IndexDay {
  indexId: number;
}

/**
 * Writes days of indices; `all` replaces a stored day's levels and ratios, `ratios` only its ratios
 * (a stored day keeps its levels). Of one index's day given twice, the last wins. Returns the rows
 * inserted or changed.
 */
export async function upsertIndexDays(
  client: pg.PoolClient,
  rows: readonly IndexDayRow[],
  mode: 'all' | 'ratios',
): Promise<number> {
  const v = [...new Map(rows.map((r) => [`${r.indexId}:${r.d}`, r])).values()];
  const set =
    mode === 'all' ? ['open', 'high', 'low', 'close', 'pe', 'pb', 'div_yield'] : ['pe', 'pb', 'div_yield'];
  const { rowCount } = await client.query(
    `INSERT INTO index_bars AS t (index_id, d, open, high, low, close, pe, pb, div_yield)
     SELECT x.index_id, DATE '1970-01-01' + x.dn, x.open, x.high, x.low, x.close, x.pe, x.pb, x.div_yield
       FROM unnest($1::int[], $2::int[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[],
                   $8::float8[], $9::float8[]) AS x(index_id, dn, open, high, low, close, pe, pb, div_yield)
     ON CONFLICT (index_id, d) DO UPDATE SET ${set.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
     WHERE (${set.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${set.map((c) => `EXCLUDED.${c}`).join(', ')})`,
    [
      v.map((r) => r.indexId),
      v.map((r) => r.d),
      v.map((r) => r.open),
      v.map((r) => r.high),
      v.map((r) => r.low),
      v.map((r) => r.close),
      v.map((r) => r.pe),
      v.map((r) => r.pb),
      v.map((r) => r.divYield),
    ],
  );
  return rowCount ?? 0;
}
