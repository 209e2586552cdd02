import type { GeneratedDataset } from '../dataset.ts';
import { Rng } from '../rng.ts';
import { cashFlows } from './cash.ts';
import { fpiSectors } from './fpi.ts';
import { marketReturns } from './market-returns.ts';
import type { CashFlowRow, FiiDerivativesRow, FpiSectorRow, ParticipantRow } from './model.ts';
import { fiiDerivatives, participantPositions } from './participants.ts';

export { apportion } from './apportion.ts';
export * from './model.ts';

/** This generator's own random stream, so adding it changes nothing else in the dataset. */
const FLOWS_STREAM = 0x464c4f57;

export interface MarketFlows {
  /** Daily FII/DII cash flows, one row per generated session. */
  cash: CashFlowRow[];
  participants: ParticipantRow[];
  fiiDerivatives: FiiDerivativesRow[];
  fpiSectors: FpiSectorRow[];
}

/**
 * Market-wide flows of the generated market, a pure function of the dataset: FII/DII cash flows that
 * follow the largest stocks' returns, F&O participant positioning, FII derivatives statistics and FPI
 * holdings by sector, all on the generated sessions.
 */
export function generateMarketFlows(ds: GeneratedDataset): MarketFlows {
  const root = new Rng(ds.options.seed, FLOWS_STREAM);
  const market = marketReturns(ds);
  const cash = cashFlows(root.fork(1), market);
  // Market level relative to the last session, for amounts that scale with prices.
  const level = new Map<number, number>();
  let log = 0;
  for (let t = market.days.length - 1; t >= 0; t--) {
    level.set(market.days[t]!, Math.exp(log));
    log -= market.returns[t]!;
  }
  // FII tilt: their net cash buying over the last ten sessions, in units of its usual size.
  const tilt: number[] = [];
  let window = 0;
  for (let t = 0; t < cash.length; t++) {
    const r = cash[t]!;
    window += r.fiiBuy - r.fiiSell;
    if (t >= 10) window -= cash[t - 10]!.fiiBuy - cash[t - 10]!.fiiSell;
    tilt.push(window / (10 * 250_000));
  }
  const participants = participantPositions(root.fork(2), market.days, tilt);
  return {
    cash,
    participants,
    fiiDerivatives: fiiDerivatives(participants, level),
    fpiSectors: fpiSectors(root.fork(3), ds, cash, level),
  };
}
