import type { ExpiryQuotes, OptionQuote } from '../analytics/chain-analytics.ts';

export type UnderlyingKind = 'index' | 'stock';

/** The index underlyings with option chains on the public chain route. */
export const CHAIN_UNDERLYINGS = ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY'] as const;

export interface OptionContractQuote extends OptionQuote {
  expiry: string;
}

export interface FutureQuote {
  expiry: string;
  /** Null when it did not trade. */
  close: number | null;
  oi: number;
  oiChange: number;
  volume: number;
  lotSize: number;
}

/** One underlying's derivatives at the close of one trading day. */
export interface Snapshot {
  underlying: string;
  kind: UnderlyingKind;
  /** YYYY-MM-DD */
  tradeDate: string;
  /** Epoch ms of the snapshot (15:30 IST on the trade date for end-of-day data). */
  snapshotMs: number;
  underlyingPrice: number;
  options: OptionContractQuote[];
  futures: FutureQuote[];
}

/** Groups a snapshot's contracts by expiry, each with its future's close, in expiry order. */
export function expiryQuotes(s: Pick<Snapshot, 'options' | 'futures'>): ExpiryQuotes[] {
  const byExpiry = new Map<string, OptionQuote[]>();
  for (const o of s.options) {
    const list = byExpiry.get(o.expiry) ?? [];
    list.push(o);
    byExpiry.set(o.expiry, list);
  }
  const futures = new Map(s.futures.map((f) => [f.expiry, f.close]));
  return [...byExpiry.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([expiry, options]) => ({ expiry, options, futureClose: futures.get(expiry) ?? null }));
}
