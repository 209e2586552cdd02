import {
  DEFAULT_HISTORY_DAYS,
  DEFAULT_SIZE,
  type GeneratedDataset,
  generateDataset as generateMarket,
  Rng,
} from '@mdp/market';
import { day, formatDay, tradingDays } from '@mdp/nse-calendar';
import { type DailyRow, dailyRowFromSnapshot } from '../domain/daily-row.ts';
import type { Snapshot } from '../domain/snapshot.ts';
import type { Underlying } from '../store/options-store.ts';
import { generateChain } from './chain.ts';
import { stockLotSize, stockStrikeStep } from './contract-rules.ts';
import { modelHistory } from './history.ts';
import {
  characterOf,
  impliedVolPath,
  type MarketFactors,
  marketFactors,
  surfaceOf,
  type UnderlyingSpec,
} from './underlying-model.ts';
import { underlyingSpecs } from './underlyings.ts';
import { INDEX_UNDERLYINGS } from './universe.ts';

export { DEFAULT_SEED } from '@mdp/market';

export interface DatasetOptions {
  /** The market's seed: the same as the equities service's default dataset. */
  seed: number;
  /** The last generated trading day: the snapshot's date, and the market's last session. */
  asOf: string;
  /** The risk-free rate the chains are priced with (the service must analyse them with the same). */
  r: number;
  /** The market's size and history (the equities defaults unless a test asks for a smaller market). */
  marketSize?: number;
  historyDays?: number;
}

/** Everything generated for one underlying. */
export interface UnderlyingBundle {
  underlying: Underlying;
  lotSizes: { symbol: string; month: string; lotSize: number }[];
  /** The as-of chain; null for an underlying whose derivatives have been discontinued. */
  snapshot: Snapshot | null;
  rows: DailyRow[];
}

const INDEX_PEAK_CONTRACTS: Record<string, number> = {
  NIFTY: 150_000,
  BANKNIFTY: 40_000,
  FINNIFTY: 8_000,
  MIDCPNIFTY: 15_000,
  NIFTYNXT50: 3_000,
};

/** The market the options are written on: the equities service's default dataset for the same options. */
export function marketOf(opts: DatasetOptions): GeneratedDataset {
  return generateMarket({
    seed: opts.seed,
    size: opts.marketSize ?? DEFAULT_SIZE,
    endDay: day(opts.asOf),
    historyDays: opts.historyDays ?? DEFAULT_HISTORY_DAYS,
  });
}

function ema(values: Float64Array, span: number): Float64Array {
  const out = new Float64Array(values.length);
  const a = 2 / (span + 1);
  let e = values[0] ?? 0;
  for (let i = 0; i < values.length; i++) {
    e += a * (values[i]! - e);
    out[i] = e;
  }
  return out;
}

function pcrPath(seed: number, symbol: string, level: number, n: number): Float64Array {
  const rng = Rng.named(seed, `pcr:${symbol}`);
  const a = Math.exp(-1 / 15);
  const b = Math.sqrt(1 - a * a);
  const out = new Float64Array(n);
  let y = rng.normal();
  for (let i = 0; i < n; i++) {
    y = a * y + b * rng.normal();
    out[i] = level * Math.exp(0.18 * y);
  }
  return out;
}

function bundleFor(
  spec: UnderlyingSpec,
  opts: DatasetOptions,
  days: readonly string[],
  market: MarketFactors,
): UnderlyingBundle {
  const c = characterOf(spec, opts.seed);
  const path = impliedVolPath(spec, c, market, opts.seed);
  const centres = ema(path.closes, 10);
  const pcr = pcrPath(opts.seed, spec.symbol, c.pcrLevel, days.length);
  const index = INDEX_UNDERLYINGS.find((i) => i.symbol === spec.symbol);
  const strikeStep = (price: number) => index?.strikeStep ?? stockStrikeStep(price);
  const until = spec.derivativesUntil;
  let last = days.length - 1;
  if (until !== null) while (last > 0 && days[last]! > until) last--;
  const rows = modelHistory(
    { symbol: spec.symbol, character: c, days, path, pcr, centres, strikeStep, last },
    Rng.named(opts.seed, `history:${spec.symbol}`),
  );
  const underlying: Underlying = {
    symbol: spec.symbol,
    name: spec.name,
    kind: spec.kind,
    derivativesUntil: until,
    source: 'generated',
  };
  if (until !== null) return { underlying, lotSizes: [], snapshot: null, rows };

  const spot = path.closes[last]!;
  const lotSize = index?.lotSize ?? stockLotSize(spot);
  const snapshot = generateChain(
    {
      symbol: spec.symbol,
      kind: spec.kind,
      tradeDate: days[last]!,
      spot,
      surface: surfaceOf(c, path.atmShort[last]!),
      dividendYield: c.dividendYield,
      r: opts.r,
      lotSize,
      strikeStep: strikeStep(spot),
      oiCentre: centres[last]!,
      pcr: pcr[last]!,
      peakContracts:
        INDEX_PEAK_CONTRACTS[spec.symbol] ??
        Math.round(1500 * Rng.named(opts.seed, `oi:${spec.symbol}`).uniform(0.4, 2.5)),
    },
    Rng.named(opts.seed, `chain:${spec.symbol}`),
  );
  // The last day's row comes from the chain itself, through the analytics the routes serve.
  rows[rows.length - 1] = dailyRowFromSnapshot(snapshot, opts.r, 'generated');
  const month = days[last]!.slice(0, 7);
  const months = [0, 1, 2].map((k) => {
    const d = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + k, 1));
    return d.toISOString().slice(0, 7);
  });
  return {
    underlying,
    lotSizes: months.map((m) => ({ symbol: spec.symbol, month: m, lotSize })),
    snapshot,
    rows,
  };
}

/**
 * The default dataset, a pure function of its options: underlying by underlying, so that about a
 * million daily rows never have to sit in memory at once. `only` restricts it to some symbols.
 */
export function* generateDataset(
  opts: DatasetOptions,
  only?: readonly string[],
): Generator<UnderlyingBundle> {
  const market = marketOf(opts);
  const end = market.options.endDay;
  const asOf = formatDay(end);
  const days = tradingDays(end - market.options.historyDays, end).map(formatDay);
  const factors = marketFactors(opts.seed, days.length);
  for (const spec of underlyingSpecs(market, days, only && new Set(only)))
    yield bundleFor(spec, { ...opts, asOf }, days, factors);
}
