import { type DayNumber, tradingDayOnOrBefore } from '@mdp/nse-calendar';
import type { GeneratedDataset } from '../dataset.ts';
import { fiscalYearEnd } from '../financials/statements.ts';
import { Rng } from '../rng.ts';
import type { CorporateEventRow } from './model.ts';
import { actionsByStock, listedEquities, sharesOn } from './universe.ts';

const STREAM = 6_300_000;

/**
 * Final dividends and AGMs of every listed equity for the fiscal years in its annual results, dated
 * in the dataset's history. A dividend is the year's `dividendPs` (on today's share count) restated
 * per share as declared, i.e. on the share count of its ex-date. The record date equals the ex-date
 * (T+1 settlement); the AGM follows the record date. Splits and bonuses are not repeated here: they
 * are the dataset's CorporateActionRows.
 */
export function generateCorporateEvents(ds: GeneratedDataset): CorporateEventRow[] {
  const actions = actionsByStock(ds);
  const listed = new Map(listedEquities(ds).map((s) => [s.id, s]));
  const out: CorporateEventRow[] = [];
  const end = ds.options.endDay;
  for (const a of ds.annual) {
    const s = listed.get(a.stockId);
    if (!s) continue;
    const rng = new Rng(ds.options.seed, STREAM + a.stockId * 16 + (a.fiscalYear % 16));
    const exDate = tradingDayOnOrBefore(fiscalYearEnd(a.fiscalYear) + rng.int(110, 160));
    const agm: DayNumber = exDate + rng.int(5, 12);
    if (agm > end || (s.listedOn !== null && exDate < s.listedOn)) continue;
    if (a.dividendPs > 0) {
      const now = s.sharesOutstanding!;
      const amount =
        Math.round(((a.dividendPs * now) / sharesOn(now, actions.get(s.id) ?? [], exDate)) * 100) / 100;
      if (amount >= 0.01)
        out.push({
          stockId: s.id,
          kind: 'dividend',
          exDate,
          recordDate: exDate,
          eventDate: null,
          amount,
          description: `Final dividend FY${a.fiscalYear} - Rs ${amount.toFixed(2)} per share`,
        });
    }
    out.push({
      stockId: s.id,
      kind: 'agm',
      exDate: null,
      recordDate: null,
      eventDate: agm,
      amount: null,
      description: `Annual general meeting for FY${a.fiscalYear}`,
    });
  }
  return out;
}
