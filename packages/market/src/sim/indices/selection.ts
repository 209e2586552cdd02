import type { AnnualResultRow, StockRow } from '../../model.ts';
import { type GeneratedDataset, latestReportedFiscalYear } from '../dataset.ts';
import { Rng } from '../rng.ts';
import type { Factor, IndexDefinition, Tag } from './definitions.ts';
import type { StockSeries } from './series.ts';

/** Rng stream of the index generator's own company traits (no other generator draws from it). */
const TRAITS_STREAM = 7_300_001;
/** Sessions in the trailing year that momentum and volatility look at. */
const YEAR_SESSIONS = 250;
/** Listed within this many days of the last day: an "IPO" for NIFTY IPO. */
const IPO_DAYS = 3 * 365;

/** What the rules choose from: listed equities ranked by market cap, their traits and latest results. */
export interface Universe {
  /** Main-board listed equities, largest first; index i has rank i + 1. */
  main: StockRow[];
  sme: StockRow[];
  marketCapCr: Map<number, number>;
  tags: Map<number, Set<Tag>>;
  esg: Map<number, number>;
  latest: Map<number, AnnualResultRow>;
}

export function rankUniverse(ds: GeneratedDataset): Universe {
  const endDay = ds.options.endDay;
  const fy = latestReportedFiscalYear(endDay);
  const latest = new Map<number, AnnualResultRow>();
  for (const a of ds.annual) if (a.fiscalYear === fy) latest.set(a.stockId, a);
  const marketCapCr = new Map<number, number>();
  const tags = new Map<number, Set<Tag>>();
  const esg = new Map<number, number>();
  const rng = new Rng(ds.options.seed, TRAITS_STREAM);
  const eligible: StockRow[] = [];
  for (const s of ds.stocks) {
    // Drawn for every stock in id order, so a stock's traits never depend on which indices are asked for.
    // Public-sector ownership is commonest among banks, as on NSE.
    const psu = rng.chance(s.industry === 'Banks' ? 0.35 : 0.12);
    const mnc = rng.chance(0.08);
    const score = rng.normal();
    const plan = ds.plans.get(s.id);
    if (s.stockType !== 'equity' || s.status !== 'listed' || !plan || s.sharesOutstanding === null) continue;
    if (plan.lastDay < endDay) continue;
    eligible.push(s);
    marketCapCr.set(s.id, plan.marketCapCr);
    esg.set(s.id, score);
    const set = new Set<Tag>([psu ? 'psu' : 'private']);
    if (mnc) set.add('mnc');
    if (s.listedOn !== null && s.listedOn > endDay - IPO_DAYS) set.add('ipo');
    const r = latest.get(s.id);
    if (s.sector !== 'Financial Services' && r && r.equity > 0 && r.borrowings / r.equity < 0.33)
      set.add('shariah');
    tags.set(s.id, set);
  }
  const bySize = (a: StockRow, b: StockRow) => marketCapCr.get(b.id)! - marketCapCr.get(a.id)! || a.id - b.id;
  const ranked = eligible.sort(bySize);
  return {
    main: ranked.filter((s) => s.board === 'main'),
    sme: ranked.filter((s) => s.board === 'sme'),
    marketCapCr,
    tags,
    esg,
    latest,
  };
}

/** The stocks a definition chooses among, largest first. */
export function candidates(def: IndexDefinition, u: Universe): StockRow[] {
  const pool = def.ranks === 'sme' ? u.sme : u.main.slice(def.ranks[0] - 1, def.ranks[1]);
  const narrowed = Boolean(def.sectors || def.industries);
  return pool.filter(
    (s) =>
      (!narrowed ||
        def.sectors?.includes(s.sector ?? '') === true ||
        def.industries?.includes(s.industry ?? '') === true) &&
      !def.excludeIndustries?.includes(s.industry ?? '') &&
      (!def.tag || u.tags.get(s.id)!.has(def.tag)),
  );
}

/** Log return of market value over the trailing year (or since listing when younger). */
function momentum(s: StockSeries): number {
  if (s.last < 0) return Number.NEGATIVE_INFINITY;
  const from = Math.max(s.first, s.last - YEAR_SESSIONS);
  return Math.log(s.close[s.last]! / s.close[from]!);
}

/** Standard deviation of daily log returns over the trailing year. */
function volatility(s: StockSeries): number {
  const rets: number[] = [];
  for (let t = Math.max(s.first + 1, s.last - YEAR_SESSIONS + 1); t <= s.last; t++)
    rets.push(Math.log(s.close[t]! / s.close[t - 1]!));
  if (rets.length < 2) return Number.POSITIVE_INFINITY;
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  return Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1));
}

/**
 * The `pick` best candidates. Each factor gives a score (higher is better); several factors are
 * combined by summing each candidate's rank under each, ties going to the larger company.
 */
export function select(
  def: IndexDefinition,
  pool: readonly StockRow[],
  u: Universe,
  ds: GeneratedDataset,
  series: (id: number) => StockSeries,
): number[] {
  const factors = def.by ?? ['size'];
  if (factors.length === 1 && factors[0] === 'size') return pool.slice(0, def.pick).map((s) => s.id);
  // Alpha is momentum beyond what the stock's beta earned on the candidates' average momentum.
  const meanMomentum = factors.includes('alpha')
    ? pool.reduce((a, s) => a + Math.max(-5, momentum(series(s.id))), 0) / Math.max(1, pool.length)
    : 0;
  const score = (f: Factor, s: StockRow): number => {
    const cap = u.marketCapCr.get(s.id)!;
    const r = u.latest.get(s.id);
    switch (f) {
      case 'size':
        return cap;
      case 'lowvol':
        return -volatility(series(s.id));
      case 'beta':
        return ds.plans.get(s.id)!.beta;
      case 'momentum':
        return momentum(series(s.id));
      case 'alpha':
        return momentum(series(s.id)) - ds.plans.get(s.id)!.beta * meanMomentum;
      case 'quality':
        return r && r.netProfit > 0 && r.equity > 0 ? r.netProfit / r.equity : Number.NEGATIVE_INFINITY;
      case 'value':
        return r && r.netProfit > 0 ? r.netProfit / cap : Number.NEGATIVE_INFINITY;
      case 'dividend':
        return r ? (r.dividendPs * s.sharesOutstanding!) / 1e7 / cap : 0;
      case 'liquidity':
        return ds.plans.get(s.id)!.turnover * cap;
      case 'esg':
        return u.esg.get(s.id)!;
    }
  };
  const rankSum = new Map<number, number>(pool.map((s) => [s.id, 0]));
  for (const f of factors) {
    const scored = pool.map((s, sizeRank) => ({ id: s.id, v: score(f, s), sizeRank }));
    scored.sort((a, b) => b.v - a.v || a.sizeRank - b.sizeRank);
    scored.forEach((x, i) => {
      rankSum.set(x.id, rankSum.get(x.id)! + i);
    });
  }
  return pool
    .map((s, sizeRank) => ({ id: s.id, sum: rankSum.get(s.id)!, sizeRank }))
    .sort((a, b) => a.sum - b.sum || a.sizeRank - b.sizeRank)
    .slice(0, def.pick)
    .map((x) => x.id);
}
