import type { DayNumber } from '@mdp/nse-calendar';
import { day, formatDay } from '@mdp/nse-calendar';
import type { CorporateActionRow, StockRow } from '../../model.ts';
import type { GeneratedDataset } from '../dataset.ts';

/** The companies that get corporate data: listed equities with a price plan and a share count. */
export function listedEquities(ds: GeneratedDataset): StockRow[] {
  return ds.stocks.filter(
    (s) =>
      s.status === 'listed' && s.stockType === 'equity' && s.sharesOutstanding !== null && ds.plans.has(s.id),
  );
}

export function actionsByStock(ds: GeneratedDataset): Map<number, CorporateActionRow[]> {
  const map = new Map<number, CorporateActionRow[]>();
  for (const a of ds.actions) map.set(a.stockId, [...(map.get(a.stockId) ?? []), a]);
  return map;
}

/** Shares in issue on day `d`: today's count undone for splits and bonuses after `d`. */
export function sharesOn(current: number, actions: readonly CorporateActionRow[], d: DayNumber): number {
  let shares = current;
  for (const a of actions) if (a.exDate > d) shares = (shares * a.ratioOld) / a.ratioNew;
  return Math.round(shares);
}

/** Last close in rupees implied by the plan's market cap and the share count derived from it. */
export function lastPrice(ds: GeneratedDataset, s: StockRow): number {
  return (ds.plans.get(s.id)!.marketCapCr * 1e7) / s.sharesOutstanding!;
}

const MONTH_END = ['03-31', '06-30', '09-30', '12-31'] as const;

/** Quarter ends (31 Mar, 30 Jun, 30 Sep, 31 Dec) from `from` to `to`, oldest first. */
export function quarterEnds(from: DayNumber, to: DayNumber): DayNumber[] {
  const out: DayNumber[] = [];
  const [y0] = formatDay(from).split('-').map(Number) as [number];
  const [y1] = formatDay(to).split('-').map(Number) as [number];
  for (let y = y0; y <= y1; y++)
    for (const md of MONTH_END) {
      const d = day(`${y}-${md}`);
      if (d >= from && d <= to) out.push(d);
    }
  return out;
}
