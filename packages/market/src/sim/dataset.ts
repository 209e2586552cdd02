import { type DayNumber, formatDay, tradingDayOnOrBefore } from '@mdp/nse-calendar';
import type { AnnualResultRow, BarRow, CorporateActionRow } from '../model.ts';
import { annualResults } from './fundamentals.ts';
import { type MarketPath, marketPath, simulateStock } from './prices.ts';
import { type CreditRatingAction, creditRatings } from './ratings.ts';
import { Rng } from './rng.ts';
import { generateUniverse, type Universe } from './universe.ts';

export interface GenerateOptions {
  seed: number;
  /** Stocks in the universe, listed and delisted. */
  size: number;
  /** Last day with bars: a trading day, usually the last completed session. */
  endDay: DayNumber;
  /** Calendar days of history before endDay. */
  historyDays: number;
}

export const DEFAULT_SIZE = 8_200;
export const DEFAULT_HISTORY_DAYS = 2_200;
export const DEFAULT_SEED = 20_260_101;
/** Rng stream of each company's credit-rating history (per stock id). */
const RATING_HISTORY_STREAM = 6_600_000;

export interface GeneratedDataset extends Universe {
  options: GenerateOptions;
  annual: AnnualResultRow[];
  /** Credit-rating actions, each company's newest first. */
  ratings: CreditRatingAction[];
  /** Stocks that have bars, in id order. */
  stocksWithBars: number[];
  /** One stock's bars, oldest first, produced on demand (about 10 million in all for the default size). */
  emitBars(stockId: number, emit: (bar: BarRow) => void): void;
  barCount: number;
}

/** Fiscal year (ending March) whose annual results are out by `d`: results arrive by the end of May. */
export function latestReportedFiscalYear(d: DayNumber): number {
  const [y, m] = formatDay(d).split('-').map(Number) as [number, number];
  return m >= 6 ? y : y - 1;
}

/**
 * The default dataset, a pure function of its options: the same seed, size and end day give the same
 * stocks, aliases, prices and fundamentals on every machine.
 */
export function generateDataset(options: GenerateOptions): GeneratedDataset {
  const endDay = tradingDayOnOrBefore(options.endDay);
  const historyStart = endDay - options.historyDays;
  const root = new Rng(options.seed, 0);
  const universe = generateUniverse(root.fork(1), { size: options.size, historyStart, endDay });
  const path: MarketPath = marketPath(root.fork(2), historyStart, endDay);
  const actionsOf = new Map<number, CorporateActionRow[]>();
  for (const a of universe.actions) actionsOf.set(a.stockId, [...(actionsOf.get(a.stockId) ?? []), a]);
  const stockRng = (id: number) => new Rng(options.seed, 1_000_000 + id);

  // Pass 1: each stock's last close sets the share count behind its target market cap.
  let barCount = 0;
  const shares = new Map<number, number>();
  for (const plan of universe.plans.values()) {
    const { lastClose, bars } = simulateStock(
      plan,
      path,
      stockRng(plan.stockId),
      actionsOf.get(plan.stockId) ?? [],
      1,
    );
    barCount += bars;
    shares.set(plan.stockId, Math.max(1_000, Math.round((plan.marketCapCr * 1e7) / (lastClose / 100))));
  }
  const fundamentalsRng = root.fork(3);
  const annual: AnnualResultRow[] = [];
  const ratings: CreditRatingAction[] = [];
  const latestFy = latestReportedFiscalYear(endDay);
  for (const stock of universe.stocks) {
    stock.sharesOutstanding = shares.get(stock.id) ?? null;
    const sector = universe.sectorOf.get(stock.id);
    const plan = universe.plans.get(stock.id);
    if (stock.status !== 'listed' || !sector || !plan || stock.sharesOutstanding === null) continue;
    annual.push(
      ...annualResults(
        fundamentalsRng,
        stock.id,
        plan.marketCapCr,
        stock.sharesOutstanding,
        sector,
        latestFy,
      ),
    );
    const ratingHistory = new Rng(options.seed, RATING_HISTORY_STREAM + stock.id);
    ratings.push(...creditRatings(fundamentalsRng, ratingHistory, stock.id, plan.marketCapCr, endDay));
  }

  return {
    ...universe,
    options: { ...options, endDay },
    annual,
    ratings,
    barCount,
    stocksWithBars: [...universe.plans.keys()],
    emitBars(stockId, emit) {
      const plan = universe.plans.get(stockId);
      if (plan)
        simulateStock(
          plan,
          path,
          stockRng(stockId),
          actionsOf.get(stockId) ?? [],
          shares.get(stockId)!,
          emit,
        );
    },
  };
}
