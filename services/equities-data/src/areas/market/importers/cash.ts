import type { CashFlowRow } from '@mdp/market';
import { type DayNumber, formatDay, isTradingDay } from '@mdp/nse-calendar';
import { readCsv, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { crore } from '../tables.ts';

const COLUMNS = [
  'TRADE DATE',
  'GROSS PURCHASE FII',
  'GROSS SALES FII',
  'NET PURCHASE SALES FII',
  'GROSS PURCHASE DII',
  'GROSS SALES DII',
  'NET PURCHASE SALES DII',
] as const;

const monthOf = (d: DayNumber) => formatDay(d).slice(0, 7);

/**
 * A file is monthly when it has several rows, no two in one calendar month, and every row but the
 * last (a month in progress) dated its month's last day: the real fii_dii_cash_monthly file. Any
 * other file is daily.
 */
export function granularityOf(days: readonly DayNumber[]): CashFlowRow['period'] {
  const months = new Set(days.map(monthOf));
  const monthEnds = days.slice(0, -1).every((d) => monthOf(d + 1) !== monthOf(d));
  return days.length >= 2 && months.size === days.length && monthEnds ? 'month' : 'day';
}

/**
 * FII/DII cash-market activity (trade_date, gross purchase / gross sales / net for FII and DII, rupees
 * crore). Rows whose net is not gross purchase minus gross sales, or with negative gross figures, are
 * rejected; a daily row must fall on an NSE session.
 */
export const fiiDiiCash = defineKind<CashFlowRow>({
  describe:
    'FII/DII cash flows CSV (trade_date, gross_purchase_fii ... net_purchase_sales_dii), daily or monthly',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<CashFlowRow>(file.path);
    const parsed: { line: number; row: CashFlowRow }[] = [];
    for (const r of readCsv(file, COLUMNS).rows) {
      const h = (c: string) => Math.round(r.number(c) * 100);
      const [fiiBuy, fiiSell, fiiNet, diiBuy, diiSell, diiNet] = COLUMNS.slice(1).map(h) as number[];
      const row: CashFlowRow = {
        period: 'day',
        d: r.date('TRADE DATE'),
        fiiBuy: fiiBuy!,
        fiiSell: fiiSell!,
        diiBuy: diiBuy!,
        diiSell: diiSell!,
      };
      if ([fiiBuy, fiiSell, diiBuy, diiSell].some((x) => x! < 0)) out.reject(r.line, 'negative gross amount');
      else if (fiiBuy! - fiiSell! !== fiiNet || diiBuy! - diiSell! !== diiNet)
        out.reject(r.line, 'net is not gross purchase minus gross sales');
      else parsed.push({ line: r.line, row });
    }
    const period = granularityOf(parsed.map((p) => p.row.d));
    for (const { line, row } of parsed) {
      if (period === 'day' && !isTradingDay(row.d)) out.reject(line, 'not an NSE trading day');
      else out.ok(line, { ...row, period });
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<CashFlowRow>> {
    // A later row for the same period and day (say the same file given twice) wins.
    const v = [...new Map(rows.map((r) => [`${r.value.period}:${r.value.d}`, r.value])).values()];
    // Each month is held at one granularity: imported figures replace the other granularity's rows.
    const replaced = await client.query(
      `DELETE FROM fii_dii_cash t USING unnest($1::text[], $2::text[]) AS x(period, month)
        WHERE t.period <> x.period AND to_char(t.d, 'YYYY-MM') = x.month`,
      [v.map((x) => x.period), v.map((x) => formatDay(x.d).slice(0, 7))],
    );
    const { rowCount } = await client.query(
      `INSERT INTO fii_dii_cash AS t (period, d, fii_buy, fii_sell, dii_buy, dii_sell)
       SELECT * FROM unnest($1::text[], $2::date[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[])
       ON CONFLICT (period, d) DO UPDATE SET fii_buy = EXCLUDED.fii_buy, fii_sell = EXCLUDED.fii_sell,
         dii_buy = EXCLUDED.dii_buy, dii_sell = EXCLUDED.dii_sell
       WHERE (t.fii_buy, t.fii_sell, t.dii_buy, t.dii_sell)
             IS DISTINCT FROM (EXCLUDED.fii_buy, EXCLUDED.fii_sell, EXCLUDED.dii_buy, EXCLUDED.dii_sell)`,
      [
        v.map((x) => x.period),
        v.map((x) => formatDay(x.d)),
        v.map((x) => crore(x.fiiBuy)),
        v.map((x) => crore(x.fiiSell)),
        v.map((x) => crore(x.diiBuy)),
        v.map((x) => crore(x.diiSell)),
      ],
    );
    return { loaded: rows, rejections: [], changed: (rowCount ?? 0) + (replaced.rowCount ?? 0) };
  },
});
