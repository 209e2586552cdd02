/** Fewer observations than this in the trailing year give no rank or percentile. */
export const MIN_RANK_OBSERVATIONS = 20;
const YEAR_MS = 365 * 86_400_000;

export interface IvObservation {
  /** YYYY-MM-DD */
  date: string;
  /** ATM implied volatility; null on a day without one (it is skipped). */
  iv: number | null;
}

export interface IvStanding {
  /** (iv − min)/(max − min) over the trailing year including today, in percent. */
  rank: number | null;
  /** Share of the trailing year's earlier days with a lower IV, in percent. */
  percentile: number | null;
}

const dayMs = (date: string) => Date.parse(`${date}T00:00:00Z`);

/**
 * IV rank and IV percentile of every observation against the trailing calendar year before it
 * (dates d − 365 days < date ≤ d), for a series sorted by date. Days without an IV get nulls and are
 * left out of everyone's window.
 */
export function ivStandings(series: readonly IvObservation[]): IvStanding[] {
  const out: IvStanding[] = [];
  const times = series.map((o) => dayMs(o.date));
  let start = 0;
  for (let i = 0; i < series.length; i++) {
    const iv = series[i]!.iv;
    while (times[start]! <= times[i]! - YEAR_MS) start++;
    if (iv === null) {
      out.push({ rank: null, percentile: null });
      continue;
    }
    let min = iv;
    let max = iv;
    let count = 1;
    let below = 0;
    for (let j = start; j < i; j++) {
      const v = series[j]!.iv;
      if (v === null) continue;
      count++;
      if (v < min) min = v;
      if (v > max) max = v;
      if (v < iv) below++;
    }
    if (count < MIN_RANK_OBSERVATIONS) out.push({ rank: null, percentile: null });
    else
      out.push({
        rank: max > min ? ((iv - min) / (max - min)) * 100 : null,
        percentile: (below / (count - 1)) * 100,
      });
  }
  return out;
}
