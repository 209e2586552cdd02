import type { Pool } from '@mdp/db';
import { type FinancialStatementRow, financialsByCompany, type GeneratedDataset } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import type pg from 'pg';
import { copyDay, copyRows, copyValue } from '../../store/copy.ts';

export const TABLE = 'financial_periods';
const COLUMNS = ['stock_id', 'section', 'basis', 'period_end', 'available_from', 'source', 'items'] as const;

/** Where a company's statement periods come from: Postgres in the service, memory in tests. */
export interface FinancialsSource {
  /** Every period held for the stock, every section and basis, in no particular order. */
  periods(stockId: number): Promise<FinancialStatementRow[]>;
}

const encode = (r: FinancialStatementRow) => [
  String(r.stockId),
  r.section,
  r.basis,
  copyDay(r.periodEnd),
  copyDay(r.availableFrom),
  copyValue(r.source),
  copyValue(JSON.stringify(r.items)),
];

/** Copies the generated statements of every listed company (about 45 periods each). */
export async function writeGeneratedFinancials(
  client: pg.PoolClient,
  market: GeneratedDataset,
  log: (line: string) => void,
): Promise<string> {
  let companies = 0;
  const periods = await copyRows(client, TABLE, COLUMNS, async (write, drained) => {
    for (const rows of financialsByCompany(market)) {
      for (const r of rows) write(encode(r));
      if (++companies % 500 === 0) {
        await drained();
        if (companies % 2000 === 0) log(`financials: ${companies} companies copied`);
      }
    }
  });
  return `${periods} statement periods of ${companies} companies`;
}

interface Row {
  stock_id: number;
  section: FinancialStatementRow['section'];
  basis: FinancialStatementRow['basis'];
  period_end: string;
  available_from: string;
  source: string;
  items: Record<string, number>;
}

export function pgFinancialsSource(pool: Pool | pg.PoolClient): FinancialsSource {
  return {
    async periods(stockId) {
      const { rows } = await pool.query<Row>(
        `SELECT stock_id, section, basis, to_char(period_end, 'YYYY-MM-DD') AS period_end,
                to_char(available_from, 'YYYY-MM-DD') AS available_from, source, items
           FROM ${TABLE} WHERE stock_id = $1`,
        [stockId],
      );
      return rows.map((r) => ({
        stockId: r.stock_id,
        section: r.section,
        basis: r.basis,
        periodEnd: day(r.period_end),
        availableFrom: day(r.available_from),
        source: r.source,
        items: r.items,
      }));
    },
  };
}

/** Inserts imported periods; a period already held is replaced only by an earlier filing of it. */
export async function upsertPeriods(client: pg.PoolClient, rows: readonly FinancialStatementRow[]) {
  const res = await client.query(
    `INSERT INTO ${TABLE} AS t (${COLUMNS.join(', ')})
     SELECT x.stock_id, x.section, x.basis, DATE '1970-01-01' + x.period_end, DATE '1970-01-01' + x.available_from,
            x.source, x.items::jsonb
       FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[])
         AS x(stock_id, section, basis, period_end, available_from, source, items)
     ON CONFLICT (stock_id, section, basis, period_end) DO UPDATE
       SET available_from = excluded.available_from, source = excluded.source, items = excluded.items
       WHERE excluded.available_from < t.available_from
          OR (excluded.available_from = t.available_from AND t.items IS DISTINCT FROM excluded.items)`,
    [
      rows.map((r) => r.stockId),
      rows.map((r) => r.section),
      rows.map((r) => r.basis),
      rows.map((r) => r.periodEnd),
      rows.map((r) => r.availableFrom),
      rows.map((r) => r.source),
      rows.map((r) => JSON.stringify(r.items)),
    ],
  );
  return res.rowCount ?? 0;
}
