import { type DayNumber, tradingDayOnOrBefore } from '@mdp/nse-calendar';
import type { BarRow } from '../../model.ts';
import type { DealKind, DealSide } from '../../vocabulary.ts';
import type { GeneratedDataset } from '../dataset.ts';
import { Rng } from '../rng.ts';
import type { DealRow } from './model.ts';
import { actionsByStock, listedEquities, sharesOn } from './universe.ts';

const STREAM = 6_400_000;
/** Deals are generated over the last two years of the dataset. */
export const DEAL_HISTORY_DAYS = 730;

const FUNDS = [
  'SBI Mutual Fund',
  'HDFC Mutual Fund',
  'ICICI Prudential Mutual Fund',
  'Nippon India Mutual Fund',
  'Kotak Mahindra Mutual Fund',
  'Axis Mutual Fund',
  'Goldman Sachs (Singapore) Pte',
  'Morgan Stanley Asia (Singapore) Pte',
  'Societe Generale',
  'BNP Paribas Financial Markets',
  'Citigroup Global Markets Mauritius Pvt Ltd',
  'Government Pension Fund Global',
  'Life Insurance Corporation of India',
  'Graviton Research Capital LLP',
  'Jane Street Singapore Pte Ltd',
  'QE Securities LLP',
  'HRTI Private Limited',
  'Nova Global Opportunities Fund PCC',
];
const PEOPLE = ['Rakesh', 'Sunita', 'Vikram', 'Meera', 'Anil', 'Kavita', 'Suresh', 'Priya', 'Rohit', 'Asha'];

/** A deal before pricing: which stock, day, kind and party, and how large relative to the company. */
export interface DealPlan {
  stockId: number;
  d: DayNumber;
  kind: DealKind;
  client: string;
  side: DealSide;
  /** Fraction of the shares in issue that day. */
  fraction: number;
  remarks: string | null;
}

/**
 * Which deals happen: bulk deals (at least 0.5 % of the shares in one session) mostly in small
 * companies, block deals (the block window, at least Rs 10 crore) in large ones, insider trades by
 * promoters and directors, and SAST disclosures of holdings crossing 5 % thresholds.
 */
export function planDeals(ds: GeneratedDataset): DealPlan[] {
  const out: DealPlan[] = [];
  const end = ds.options.endDay;
  for (const s of listedEquities(ds)) {
    const rng = new Rng(ds.options.seed, STREAM + s.id);
    const size = Math.log10(Math.max(1, ds.plans.get(s.id)!.marketCapCr));
    const from = Math.max(end - DEAL_HISTORY_DAYS, (s.listedOn ?? 0) + 7);
    if (from >= end) continue;
    const family = `${s.name.split(' ')[0]} Family Trust`;
    const counts: [DealKind, number][] = [
      ['bulk', Math.max(0, Math.round(4 - size + rng.normal()))],
      ['block', Math.max(0, Math.round(size - 3.2 + rng.normal()))],
      ['insider', rng.int(0, 3)],
      ['sast', rng.chance(0.25) ? rng.int(1, 2) : 0],
    ];
    for (const [kind, n] of counts)
      for (let i = 0; i < n; i++) {
        const d = tradingDayOnOrBefore(from + rng.int(0, end - from));
        if (d < from) continue;
        const side = rng.chance(0.5) ? 'buy' : 'sell';
        const insider = `${rng.pick(PEOPLE)} ${s.name.split(' ')[0]}`;
        const client =
          kind === 'insider' ? insider : kind === 'sast' && rng.chance(0.4) ? family : rng.pick(FUNDS);
        const fraction =
          kind === 'bulk'
            ? 0.005 + 0.02 * rng.next()
            : kind === 'block'
              ? 0.002 + 0.02 * rng.next()
              : kind === 'insider'
                ? 0.0001 + 0.002 * rng.next()
                : 0.005 + 0.015 * rng.next();
        const remarks =
          kind === 'insider'
            ? rng.pick(['Promoter', 'Promoter group', 'Director', 'Key managerial personnel'])
            : kind === 'sast'
              ? `Holding ${side === 'buy' ? 'crossed' : 'fell below'} ${rng.pick([5, 10, 15])}%`
              : null;
        out.push({ stockId: s.id, d, kind, client, side, fraction, remarks });
      }
  }
  return out;
}

/**
 * Prices planned deals at a price inside the day's traded range, on that day's share count; deals
 * on a day the stock did not trade are dropped. Block deals are at least Rs 10 crore.
 */
export function priceDeals(
  ds: GeneratedDataset,
  plans: readonly DealPlan[],
  barOn: (stockId: number, d: DayNumber) => Pick<BarRow, 'low' | 'high'> | undefined,
): DealRow[] {
  const actions = actionsByStock(ds);
  const shares = new Map(ds.stocks.map((s) => [s.id, s.sharesOutstanding ?? 0]));
  const rng = new Rng(ds.options.seed, STREAM - 1);
  const out: DealRow[] = [];
  for (const p of plans) {
    const bar = barOn(p.stockId, p.d);
    if (!bar) continue;
    const price = bar.low + Math.round((bar.high - bar.low) * rng.next());
    let quantity = Math.max(
      1,
      Math.round(p.fraction * sharesOn(shares.get(p.stockId)!, actions.get(p.stockId) ?? [], p.d)),
    );
    // Rs 10 crore is 1e10 paise.
    if (p.kind === 'block') quantity = Math.max(quantity, Math.ceil(1e10 / price));
    out.push({
      stockId: p.stockId,
      d: p.d,
      kind: p.kind,
      client: p.client,
      side: p.side,
      quantity,
      price,
      remarks: p.remarks,
    });
  }
  return out;
}
