// A gateway's settlement message as the NATS benches publish it: a batch of `charges` charge events of
// one account as `Settler` sends them, compact (about 140 bytes a charge with its traceparent) or, as
// before 4 December 2026 and still to a ledger that does not read compact batches, version 1 (about 330).
import { compactBatch, type SettlementEvent } from '@mdp/usage';

const charge = (i: number): SettlementEvent => ({
  v: 1,
  request_id: `0193a1b2-c3d4-7e5f-8a9b-${i.toString(16).padStart(12, '0')}`,
  account_id: '3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b',
  kind: 'charged',
  admitted_at_ms: Date.now(),
  settled_at_ms: Date.now(),
  route: 'getStockQuote',
  status: 200,
  interface: 'rest',
  traceparent: '00-0193a1b2c3d47e5f8a9b0c1d2e3f4a5b-8a9b0c1d2e3f4a5b-00',
});

export type BatchForm = 'compact' | 'v1';

/** The JSON payload of one batch message. */
export function settlementBatch(charges: number, form: BatchForm = 'compact'): string {
  const events = Array.from({ length: charges }, (_, i) => charge(i));
  return form === 'compact' ? compactBatch(events) : JSON.stringify({ v: 1, events });
}
