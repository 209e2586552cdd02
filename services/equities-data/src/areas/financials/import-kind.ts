import { type FinancialStatementRow, fiscalYearOf, periodLabel, quarterEnd } from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';
import type pg from 'pg';
import { defineKind, ParseResult } from '../../importers/kind.ts';
import { resolveRows } from '../../importers/symbol-resolver.ts';
import { annualResultsFrom } from './annual.ts';
import { pgFinancialsSource, TABLE, upsertPeriods } from './store.ts';
import { readXbrl, XbrlError } from './xbrl.ts';
import { type Filing, filingDayFromName, filingStatements } from './xbrl-statements.ts';

interface FilingRow extends Filing {
  file: string;
  filedOn: DayNumber;
}

/**
 * `nse-xbrl`: NSE financial-results XBRL filings (quarterly, half-yearly and annual; Ind AS,
 * banking and NBFC formats; standalone and consolidated), one file each, named as NSE's archive
 * names them (the name gives the filing time, which is when the figures became public).
 * A company's imported statements replace its generated ones. When a period is filed more than once
 * (a re-filing), the first filing is kept: it is what the market knew from that day.
 */
export const nseXbrl = defineKind<FilingRow>({
  describe: 'NSE financial-results XBRL filings (<ddMonyyyy_hhmm>_<kind>_<ids>.xml)',
  needsFiles: true,
  parse(file) {
    const out = new ParseResult<FilingRow>(file.path);
    const filedOn = filingDayFromName(file.name);
    if (filedOn === undefined) {
      out.reject(1, 'file name does not start with the NSE filing time (ddMonyyyy_hhmm_)');
      return out;
    }
    try {
      const filing = filingStatements(readXbrl(file.text), filedOn);
      out.ok(1, { ...filing, file: file.name, filedOn });
    } catch (err) {
      if (!(err instanceof XbrlError)) throw err;
      out.reject(1, err.message);
    }
    return out;
  },
  async apply(client, rows) {
    // Earliest filing first, so a re-filing of a period never replaces what was known before it.
    const { resolved, rejections } = await resolveRows(
      client,
      [...rows].sort((a, b) => a.value.filedOn - b.value.filedOn),
      (f) => f.filedOn,
      (f) => `symbol ${f.symbol} not in the stock master`,
    );
    const loaded = resolved.map((r) => r.row);
    const kept = new Map<string, FinancialStatementRow>();
    for (const { row, stockId } of resolved) {
      const f = row.value;
      for (const p of f.periods) {
        const key = `${stockId}/${p.section}/${f.basis}/${p.periodEnd}`;
        if (!kept.has(key)) kept.set(key, { ...p, stockId, basis: f.basis, source: `nse-xbrl:${f.file}` });
      }
    }
    const pathOf = new Map(loaded.map((r) => [r.value.file, r.file]));
    for (const { file, why } of dropTransitionYears(kept))
      rejections.push({ file: pathOf.get(file) ?? file, line: 1, reason: why });
    const periods = [...kept.values()];
    const stockIds = [...new Set(periods.map((p) => p.stockId))];
    const removed = await client.query(
      `DELETE FROM ${TABLE} WHERE stock_id = ANY($1) AND source = 'generated'`,
      [stockIds],
    );
    let changed = (removed.rowCount ?? 0) + (await upsertPeriods(client, periods));
    changed += await replaceAnnualResults(client, stockIds);
    return { loaded, rejections, changed };
  },
});

/**
 * Drops a year whose P&L covers more than its four quarters: a filing may label a transition period
 * (ACC's 15 months to March 2023) as an April-March year. Checked on Revenue when all four quarters
 * of the same basis are in the import (a year more than 15% above their sum); the year's cash flow
 * goes with it, the 31 March balance sheet stays. Smaller differences are restatements (mergers,
 * discontinued operations) and the audited year is kept as filed.
 */
function dropTransitionYears(kept: Map<string, FinancialStatementRow>): { file: string; why: string }[] {
  const out: { file: string; why: string }[] = [];
  for (const [key, year] of kept) {
    if (year.section !== 'profit_loss') continue;
    const quarters = [1, 2, 3, 4].map((q) =>
      kept.get(`${year.stockId}/quarterly/${year.basis}/${quarterEnd(fiscalYearOf(year.periodEnd), q as 1)}`),
    );
    if (quarters.some((q) => q?.items.Revenue === undefined) || year.items.Revenue === undefined) continue;
    const sum = quarters.reduce((a, q) => a + q!.items.Revenue!, 0);
    // Restated quarters differ from the audited year by a few %; a longer period by a whole quarter.
    if (year.items.Revenue <= 1.15 * sum) continue;
    kept.delete(key);
    kept.delete(key.replace('/profit_loss/', '/cash_flow/'));
    out.push({
      file: year.source.replace(/^nse-xbrl:/, ''),
      why: `${periodLabel('profit_loss', year.periodEnd)} ${year.basis} revenue ${year.items.Revenue} exceeds the sum of its quarters (${Math.round(sum * 100) / 100}): year not imported`,
    });
  }
  return out;
}

/**
 * Rewrites the annual results of imported companies from their statements (see annualResultsFrom),
 * so that the profile's growth figures agree with the financials route. A company whose statements
 * hold no year with a balance sheet keeps the annual results it had.
 */
async function replaceAnnualResults(client: pg.PoolClient, stockIds: readonly number[]): Promise<number> {
  const source = pgFinancialsSource(client);
  let changed = 0;
  for (const id of stockIds) {
    const { rows } = await client.query<{ shares: string | null }>(
      'SELECT shares_outstanding AS shares FROM stocks WHERE id = $1',
      [id],
    );
    const shares = rows[0]?.shares == null ? null : Number(rows[0].shares);
    const annual = annualResultsFrom(id, await source.periods(id), shares);
    if (annual.length === 0) continue;
    const old = await client.query(
      'SELECT fiscal_year, sales, net_profit, equity, borrowings, ebit, dividend_ps FROM annual_results WHERE stock_id = $1 ORDER BY fiscal_year',
      [id],
    );
    const same =
      old.rows.length === annual.length &&
      old.rows.every((o, i) => {
        const a = annual[i]!;
        return (
          o.fiscal_year === a.fiscalYear &&
          o.sales === a.sales &&
          o.net_profit === a.netProfit &&
          o.equity === a.equity &&
          o.borrowings === a.borrowings &&
          o.ebit === a.ebit &&
          o.dividend_ps === a.dividendPs
        );
      });
    if (same) continue;
    await client.query('DELETE FROM annual_results WHERE stock_id = $1', [id]);
    await client.query(
      `INSERT INTO annual_results (stock_id, fiscal_year, sales, net_profit, equity, borrowings, ebit, dividend_ps)
       SELECT $1, * FROM unnest($2::int[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[])`,
      [
        id,
        annual.map((a) => a.fiscalYear),
        annual.map((a) => a.sales),
        annual.map((a) => a.netProfit),
        annual.map((a) => a.equity),
        annual.map((a) => a.borrowings),
        annual.map((a) => a.ebit),
        annual.map((a) => a.dividendPs),
      ],
    );
    changed += annual.length;
  }
  return changed;
}
