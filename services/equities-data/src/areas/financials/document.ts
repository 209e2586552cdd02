import {
  type FinancialStatementRow,
  periodLabel,
  ROWS,
  type StatementBasis,
  type StatementSection,
} from '@mdp/market';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import { RATIO_ROWS, yearRatios } from './ratios.ts';

export const SECTIONS = ['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow', 'ratios'] as const;
export type Section = (typeof SECTIONS)[number];
export const MAX_PERIODS = 40;

type Values = Record<string, number | null>;

/** One section of the SPEC 2.3 document. */
export interface SectionDocument {
  /** Null when nothing of the section is known yet. */
  basis: StatementBasis | null;
  periods: string[];
  data: Record<string, Record<string, number | null>>;
  pct_changes: Record<string, Record<string, number | null>>;
  row_order: string[];
  availability: { period: string; period_end: string; available_from: string }[];
}

interface Period {
  end: DayNumber;
  availableFrom: DayNumber;
  values: Values;
}

/** Change in % from `prev` to `value` (relative to |prev|, so a smaller loss is a positive change). */
export function pctChange(value: number | null | undefined, prev: number | null | undefined): number | null {
  if (value === null || value === undefined || prev === null || prev === undefined || prev === 0) return null;
  return Math.round(((value - prev) / Math.abs(prev)) * 10_000) / 100;
}

/**
 * The basis a section is served on: consolidated when the company has filed consolidated figures for
 * it, else standalone, so that a section never mixes the two.
 */
export function pickBasis(rows: readonly FinancialStatementRow[]): StatementBasis {
  return rows.some((r) => r.basis === 'consolidated') ? 'consolidated' : 'standalone';
}

function statementPeriods(rows: readonly FinancialStatementRow[], section: StatementSection) {
  const mine = rows.filter((r) => r.section === section);
  const basis = pickBasis(mine);
  const periods: Period[] = mine
    .filter((r) => r.basis === basis)
    .map((r) => ({ end: r.periodEnd, availableFrom: r.availableFrom, values: r.items }))
    .sort((a, b) => a.end - b.end);
  return { basis, periods };
}

function ratioPeriods(rows: readonly FinancialStatementRow[]) {
  const pl = statementPeriods(rows, 'profit_loss');
  const bs = statementPeriods(rows, 'balance_sheet');
  const cf = statementPeriods(rows, 'cash_flow');
  const bsAt = new Map(bs.periods.map((p) => [p.end, p]));
  const cfAt = new Map(cf.periods.map((p) => [p.end, p]));
  const periods: Period[] = [];
  for (const p of pl.periods) {
    const b = bsAt.get(p.end);
    if (!b) continue;
    const c = cfAt.get(p.end);
    periods.push({
      end: p.end,
      availableFrom: Math.max(p.availableFrom, b.availableFrom),
      values: yearRatios(
        p.values as Record<string, number>,
        b.values as Record<string, number>,
        c?.values as Record<string, number> | undefined,
      ),
    });
  }
  return { basis: pl.basis, periods };
}

/**
 * One section from the periods known by `today` (point in time: a period filed later does not
 * exist yet). pct_changes compare each period with the same period a year earlier: the previous
 * fiscal year for annual sections, the same quarter of the previous fiscal year for `quarterly`;
 * they are computed before `limit` keeps the latest periods, so the oldest period served still has
 * its change when the earlier year is held.
 */
export function sectionDocument(
  rows: readonly FinancialStatementRow[],
  section: Section,
  today: DayNumber,
  limit?: number,
): SectionDocument {
  const known = rows.filter((r) => r.availableFrom <= today);
  const { basis, periods: all } =
    section === 'ratios' ? ratioPeriods(known) : statementPeriods(known, section);
  if (all.length === 0)
    return { basis: null, periods: [], data: {}, pct_changes: {}, row_order: [], availability: [] };
  const label = (p: Period) => periodLabel(section, p.end);
  const byLabel = new Map(all.map((p) => [label(p), p]));
  const yearEarlier = (p: Period) =>
    byLabel.get(label(p).replace(/FY(\d+)$/, (_, y) => `FY${Number(y) - 1}`));
  const served = limit === undefined ? all : all.slice(-limit);
  const rowNames = section === 'ratios' ? RATIO_ROWS : ROWS[section];
  const rowOrder = rowNames.filter((row) => served.some((p) => p.values[row] !== undefined));
  const data: SectionDocument['data'] = {};
  const pct: SectionDocument['pct_changes'] = {};
  for (const row of rowOrder) {
    data[row] = Object.fromEntries(served.map((p) => [label(p), p.values[row] ?? null]));
    pct[row] = Object.fromEntries(
      served.map((p) => [label(p), pctChange(p.values[row], yearEarlier(p)?.values[row])]),
    );
  }
  return {
    basis,
    periods: served.map(label),
    data,
    pct_changes: pct,
    row_order: rowOrder,
    availability: served.map((p) => ({
      period: label(p),
      period_end: formatDay(p.end),
      available_from: formatDay(p.availableFrom),
    })),
  };
}

/**
 * The financials document (SPEC 2.3): every section, or only `section`, each keeping the latest
 * `limit` periods known by `today` (a section with nothing known yet is empty).
 */
export function financialsDocument(
  rows: readonly FinancialStatementRow[],
  today: DayNumber,
  opts: { section?: Section; limit?: number } = {},
): Partial<Record<Section, SectionDocument>> {
  const doc: Partial<Record<Section, SectionDocument>> = {};
  for (const section of opts.section ? [opts.section] : SECTIONS)
    doc[section] = sectionDocument(rows, section, today, opts.limit);
  return doc;
}
