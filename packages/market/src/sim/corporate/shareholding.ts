import { tradingDayOnOrBefore } from '@mdp/nse-calendar';
import type { GeneratedDataset } from '../dataset.ts';
import { Rng } from '../rng.ts';
import type { PledgeEventRow, ShareholdingRow } from './model.ts';
import { actionsByStock, listedEquities, quarterEnds, sharesOn } from './universe.ts';

const STREAM = 6_100_000;
/** Quarters of shareholding pattern kept per company. */
export const SHAREHOLDING_QUARTERS = 12;
/** Companies file the pattern within 21 days of the quarter end (SEBI LODR regulation 31). */
export const FILING_LAG_DAYS = 21;

const PLEDGEES = [
  'Catalyst Trusteeship Limited',
  'Axis Trustee Services Limited',
  'IDBI Trusteeship Services Limited',
  'Vistra ITCL (India) Limited',
  'Beacon Trusteeship Limited',
  'SBICAP Trustee Company Limited',
];

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * Quarterly shareholding patterns of every listed equity for the quarters it was listed in, filed by
 * the dataset's end day. Holdings are kept in hundredths of a percent so each quarter sums to exactly
 * 100; public is the remainder. The pledged share of the promoter holding is part of the same row, so
 * the pledge never exceeds what the promoters hold.
 */
export function generateShareholding(ds: GeneratedDataset): ShareholdingRow[] {
  const rows: ShareholdingRow[] = [];
  const end = ds.options.endDay - FILING_LAG_DAYS;
  for (const s of listedEquities(ds)) {
    const rng = new Rng(ds.options.seed, STREAM + s.id);
    const quarters = quarterEnds(end - 3 * 366 - 92, end)
      .filter((q) => s.listedOn === null || q >= s.listedOn)
      .slice(-SHAREHOLDING_QUARTERS);
    const size = Math.log10(Math.max(1, ds.plans.get(s.id)!.marketCapCr));
    const psu = rng.chance(0.06);
    let promoter = psu ? 0 : rng.chance(0.1) ? 0 : 3000 + rng.int(0, 4500);
    let government = psu ? 5100 + rng.int(0, 2400) : rng.chance(0.08) ? rng.int(1, 200) : 0;
    let fii = clamp(Math.round((size - 2) * 700 + rng.normal() * 400), 0, 3500);
    let dii = clamp(Math.round((size - 2) * 550 + rng.normal() * 400), 0, 3000);
    let pledged = !psu && promoter > 0 && rng.chance(0.14) ? rng.int(100, 4000) : 0;
    for (const q of quarters) {
      const promoterGov = promoter + government;
      // Minimum public shareholding: promoters and government hold at most 75 %.
      if (promoterGov > 7500) promoter = Math.max(0, 7500 - government);
      const room = 10_000 - promoter - government - 300;
      const inst = fii + dii;
      if (inst > room) {
        fii = Math.floor((fii * room) / inst);
        dii = Math.floor((dii * room) / inst);
      }
      rows.push({
        stockId: s.id,
        quarterEnd: q,
        promoter: promoter / 100,
        fii: fii / 100,
        dii: dii / 100,
        government: government / 100,
        public: (10_000 - promoter - fii - dii - government) / 100,
        pledgedOfPromoter: promoter > 0 ? pledged / 100 : 0,
      });
      if (promoter > 0) promoter = clamp(promoter + Math.round(rng.normal() * 60 - 10), 500, 7500);
      if (government > 200) government = clamp(government + Math.round(rng.normal() * 30), 5100, 7500);
      fii = clamp(fii + Math.round(rng.normal() * 80), 0, 4000);
      dii = clamp(dii + Math.round(rng.normal() * 70 + 10), 0, 3500);
      if (pledged > 0 || (promoter > 0 && rng.chance(0.01)))
        pledged = rng.chance(0.08) ? 0 : clamp(pledged + Math.round(rng.normal() * 400), 0, 8000);
    }
  }
  return rows;
}

/**
 * Pledge creations and releases implied by the change in pledged shares between consecutive
 * quarters, dated on a trading day inside the later quarter.
 */
export function pledgeEvents(ds: GeneratedDataset, holdings: readonly ShareholdingRow[]): PledgeEventRow[] {
  const actions = actionsByStock(ds);
  const shares = new Map(ds.stocks.map((s) => [s.id, s.sharesOutstanding ?? 0]));
  const out: PledgeEventRow[] = [];
  const rng = new Rng(ds.options.seed, STREAM - 1);
  let prev: ShareholdingRow | undefined;
  for (const h of holdings) {
    // Compared on today's share basis so a split or bonus alone is no pledge event.
    const now = shares.get(h.stockId)!;
    const delta = prev?.stockId === h.stockId ? pledgedShares(h, now) - pledgedShares(prev, now) : 0;
    if (delta !== 0) {
      const d = tradingDayOnOrBefore(h.quarterEnd - rng.int(1, 80));
      out.push({
        stockId: h.stockId,
        d,
        kind: delta > 0 ? 'creation' : 'release',
        shares: Math.round((Math.abs(delta) * sharesOn(now, actions.get(h.stockId) ?? [], d)) / now),
        pledgee: rng.pick(PLEDGEES),
      });
    }
    prev = h;
  }
  return out;
}

/** Pledged shares of a quarter: the promoter holding times its pledged share, of `shares` in issue. */
export function pledgedShares(h: ShareholdingRow, shares: number): number {
  return Math.round((shares * h.promoter * h.pledgedOfPromoter) / 10_000);
}
