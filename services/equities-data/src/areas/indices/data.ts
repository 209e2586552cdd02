import type { IndexFamily } from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';

/** One session of an index as stored: levels null on rows that carry only ratios. */
export interface IndexDay {
  d: DayNumber;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  pe: number | null;
  pb: number | null;
  divYield: number | null;
}

export interface IndexSeries {
  id: number;
  name: string;
  family: IndexFamily;
  /** Oldest first. */
  days: IndexDay[];
  constituents: number;
}

/** Every index in memory, found by name without regard to case. */
export class IndicesData {
  private readonly byName: Map<string, IndexSeries>;

  constructor(readonly list: readonly IndexSeries[]) {
    this.byName = new Map(list.map((s) => [nameKey(s.name), s]));
  }

  find(name: string): IndexSeries | undefined {
    return this.byName.get(nameKey(name));
  }
}

/** Case and runs of spaces do not tell index names apart. */
export const nameKey = (name: string) => name.trim().replace(/\s+/g, ' ').toUpperCase();

/** Bars with a closing level, on or before `today`. */
export function levelsUpTo(s: IndexSeries, today: DayNumber): IndexDay[] {
  return s.days.filter((b) => b.close !== null && b.d <= today);
}
