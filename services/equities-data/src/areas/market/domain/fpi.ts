import { apportion, type FpiSectorRow } from '@mdp/market';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import { cr } from './money.ts';
import { monthsBefore } from './periods.ts';

/** Each sector's share of the total in hundredths of a percent, adding up to exactly 100.00. */
function shares(rows: readonly FpiSectorRow[]): Map<string, number> {
  const parts = apportion(
    10_000,
    rows.map((r) => r.aum),
  );
  return new Map(rows.map((r, i) => [r.sector, parts[i]!]));
}

/**
 * FPI holdings by sector at the latest fortnight held up to `today`: assets (crore) and their share of
 * the total (percent, adding up to 100), the change of that share since the previous fortnight
 * (percentage points), the fortnight's net investment and the net investment of the year to it.
 * Largest holding first. Null when nothing is held.
 */
export function fpiDocument(all: readonly FpiSectorRow[], today: DayNumber) {
  const ends = [...new Set(all.filter((r) => r.periodEnd <= today).map((r) => r.periodEnd))];
  const end = ends.at(-1);
  if (end === undefined) return null;
  const previous = ends.at(-2);
  const latest = all.filter((r) => r.periodEnd === end);
  const before =
    previous === undefined ? new Map<string, number>() : shares(all.filter((r) => r.periodEnd === previous));
  const now = shares(latest);
  const yearStart = monthsBefore(end, 12);
  const yearFlow = new Map<string, number>();
  for (const r of all)
    if (r.periodEnd > yearStart && r.periodEnd <= end)
      yearFlow.set(r.sector, (yearFlow.get(r.sector) ?? 0) + r.flow);
  const sectors = [...latest]
    .sort((a, b) => b.aum - a.aum || a.sector.localeCompare(b.sector))
    .map((r) => ({
      sector: r.sector,
      aum: cr(r.aum),
      aum_share_pct: now.get(r.sector)! / 100,
      share_change_pp: before.has(r.sector) ? (now.get(r.sector)! - before.get(r.sector)!) / 100 : null,
      fortnight_flow: cr(r.flow),
      one_year_flow: cr(yearFlow.get(r.sector) ?? 0),
    }));
  const sum = (f: (r: FpiSectorRow) => number) => latest.reduce((a, r) => a + f(r), 0);
  return {
    fortnight_end: formatDay(end),
    previous_fortnight_end: previous === undefined ? null : formatDay(previous),
    one_year_from: formatDay(yearStart + 1),
    unit: 'crore',
    total: {
      aum: cr(sum((r) => r.aum)),
      fortnight_flow: cr(sum((r) => r.flow)),
      one_year_flow: cr([...yearFlow.values()].reduce((a, b) => a + b, 0)),
    },
    sectors,
  };
}
