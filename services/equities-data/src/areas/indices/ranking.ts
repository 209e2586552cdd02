import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import type { IndexDay, IndexSeries } from './data.ts';
import type { Period } from './periods.ts';

export interface RankedIndex {
  name: string;
  family: string;
  returnPct: number;
  start: { d: DayNumber; close: number };
  end: { d: DayNumber; close: number };
}

/** The official close of the period: the last session with a closing level within it. */
function periodClose(days: readonly IndexDay[], p: Period): { d: DayNumber; close: number } | undefined {
  for (let i = days.length - 1; i >= 0; i--) {
    const b = days[i]!;
    if (b.d < p.start) return undefined;
    if (b.d <= p.end && b.close !== null) return { d: b.d, close: b.close };
  }
  return undefined;
}

/**
 * Return from the close of the base period (periods[0]) to the close of the latest completed period,
 * in percent. Undefined when the index has no close in either (no history yet, or data not in).
 */
export function periodReturn(s: IndexSeries, periods: readonly Period[]): RankedIndex | undefined {
  const start = periodClose(s.days, periods[0]!);
  const end = periodClose(s.days, periods.at(-1)!);
  if (!start || !end) return undefined;
  return {
    name: s.name,
    family: s.family,
    returnPct: (end.close / start.close - 1) * 100,
    start,
    end,
  };
}

/** Best first for gainers, worst first for losers; equal returns by name. */
export function rank(items: RankedIndex[], order: 'gainers' | 'losers'): RankedIndex[] {
  const sign = order === 'gainers' ? -1 : 1;
  return items.sort((a, b) => sign * (a.returnPct - b.returnPct) || a.name.localeCompare(b.name));
}

export function rankedJson(r: RankedIndex, position: number) {
  return {
    rank: position,
    name: r.name,
    family: r.family,
    return_pct: Math.round(r.returnPct * 100) / 100,
    start: { date: formatDay(r.start.d), close: r.start.close },
    end: { date: formatDay(r.end.d), close: r.end.close },
  };
}
