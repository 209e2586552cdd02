import {
  DEFAULT_HISTORY_DAYS,
  DEFAULT_SEED,
  DEFAULT_SIZE,
  type GeneratedDataset,
  generateDataset,
} from '@mdp/market';
import { lastCompletedSession } from '@mdp/nse-calendar';

export interface Company {
  symbol: string;
  name: string;
  sector: string;
  /** Annual revenue in crore (the latest reported year), for plausible figures. */
  revenueCr: number;
}

let defaultMarket: GeneratedDataset | undefined;

/** The generated market the equities service serves by default (a few seconds to build; built once). */
function market(): GeneratedDataset {
  defaultMarket ??= generateDataset({
    seed: DEFAULT_SEED,
    size: DEFAULT_SIZE,
    endDay: lastCompletedSession(Date.now()),
    historyDays: DEFAULT_HISTORY_DAYS,
  });
  return defaultMarket;
}

/**
 * The companies that file documents in the default dataset: the largest listed NSE companies of the
 * generated market, largest first, with their own symbols, names, sectors and latest revenue — so a
 * symbol with filings is a stock the equities service knows.
 */
export function generateCompanies(count: number, ds: GeneratedDataset = market()): Company[] {
  const sales = new Map<number, number>();
  for (const a of ds.annual) sales.set(a.stockId, a.sales);
  return ds.stocks
    .filter((s) => s.status === 'listed' && s.stockType === 'equity' && s.nseSymbol && sales.has(s.id))
    .map((s) => ({ s, cap: ds.plans.get(s.id)?.marketCapCr ?? 0 }))
    .sort((a, b) => b.cap - a.cap || a.s.id - b.s.id)
    .slice(0, count)
    .map(({ s }) => ({
      symbol: s.symbol,
      name: s.name,
      sector: s.sector ?? 'Diversified',
      revenueCr: Math.max(1, Math.round(sales.get(s.id)!)),
    }));
}
