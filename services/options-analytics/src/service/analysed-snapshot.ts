import { analyseExpiries, type ExpiryAnalytics } from '../analytics/chain-analytics.ts';
import { summarise, type UnderlyingSummary } from '../analytics/summary.ts';
import { expiryQuotes, type Snapshot } from '../domain/snapshot.ts';

/** A snapshot with everything the routes serve from it computed once. */
export interface AnalysedSnapshot {
  id: number;
  snapshot: Snapshot;
  source: string;
  expiries: ExpiryAnalytics[];
  summary: UnderlyingSummary;
  /** Lot size of the nearest expiry's contracts. */
  lotSize: number | null;
}

export function analyseSnapshot(id: number, snapshot: Snapshot, source: string, r: number): AnalysedSnapshot {
  const expiries = analyseExpiries(expiryQuotes(snapshot), {
    snapshotMs: snapshot.snapshotMs,
    spot: snapshot.underlyingPrice,
    r,
  });
  const front = expiries[0]?.strikes.find((s) => s.call ?? s.put);
  return {
    id,
    snapshot,
    source,
    expiries,
    summary: summarise(expiries),
    lotSize: (front?.call ?? front?.put)?.quote.lotSize ?? null,
  };
}
