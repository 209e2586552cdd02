import type { SettlementEvent } from '@mdp/usage';

/** The account of the consumer tests' events (any uuid: these tests record no admissions). */
export const TEST_ACCOUNT = '3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b';

/** A settlement event of the quote route, settled now: a charge answers 200, anything else 404. */
export const settlementEvent = (
  request_id: string,
  kind: SettlementEvent['kind'] = 'charged',
): SettlementEvent => ({
  v: 1,
  request_id,
  account_id: TEST_ACCOUNT,
  kind,
  admitted_at_ms: Date.now(),
  settled_at_ms: Date.now(),
  route: 'getStockQuote',
  status: kind === 'charged' ? 200 : 404,
});
