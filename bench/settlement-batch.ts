// A gateway's settlement message as the NATS benches publish it: a batch of `charges` charge events of
// the shape `Settler` sends (about 330 bytes a charge with its traceparent).

const charge = (i: number) => ({
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

/** The JSON payload of one batch message (`{ v: 1, events }`). */
export const settlementBatch = (charges: number): string =>
  JSON.stringify({ v: 1, events: Array.from({ length: charges }, (_, i) => charge(i)) });
