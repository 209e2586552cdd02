import { describe, expect, it } from 'vitest';
import type { SettlementEvent } from './settlement-event.ts';
import { compactBatch, parseSettlementMessage, readsCompact } from './settlement-message.ts';

const ACCOUNT = 'a6f0c1d2-0000-4000-8000-000000000001';
const OTHER = 'a6f0c1d2-0000-4000-8000-000000000002';
const TRACE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const charge = (i: number, over: Partial<SettlementEvent> = {}): SettlementEvent => ({
  v: 1,
  request_id: `0193a1b2-c3d4-7e5f-8a9b-${i.toString(16).padStart(12, '0')}`,
  account_id: ACCOUNT,
  kind: 'charged',
  admitted_at_ms: 1_764_000_000_000 + i,
  settled_at_ms: 1_764_000_000_500,
  route: 'getStockQuote',
  status: 200,
  interface: 'rest',
  ...over,
});

const wire = (text: string): unknown => JSON.parse(text);

describe('compact settlement batches', () => {
  it('read back as the events written, over several accounts, routes, interfaces and trace contexts', () => {
    const events = [
      charge(1),
      charge(2, { account_id: OTHER, interface: 'mcp' }),
      charge(3, { route: 'getPriceHistory', traceparent: TRACE }),
      charge(4, { account_id: OTHER, route: 'getPriceHistory' }),
    ];
    expect(parseSettlementMessage(wire(compactBatch(events)))).toEqual({ events, rejected: [] });
  });

  it('carry the batch’s settlement time and write an event without an interface as rest', () => {
    const first = charge(1, { settled_at_ms: 10 });
    const { interface: _, ...restless } = charge(2, { settled_at_ms: 11 });
    const read = parseSettlementMessage(wire(compactBatch([first, restless])));
    expect(read).toEqual({
      events: [first, { ...restless, interface: 'rest', settled_at_ms: 10 }],
      rejected: [],
    });
  });

  it('are a third of the size of version 1 for one account', () => {
    const events = Array.from({ length: 15 }, (_, i) => charge(i));
    const v1 = JSON.stringify({ v: 1, events });
    expect(compactBatch(events).length).toBeLessThan(v1.length / 3);
  });

  it('hold events of one kind only, and at least one', () => {
    expect(() => compactBatch([charge(1), charge(2, { kind: 'refunded' })])).toThrow(/one kind/);
    expect(() => compactBatch([])).toThrow(/needs an event/);
  });

  it('leave out rows that do not check as version 1 events would, and refuse a batch they cannot read', () => {
    const batch = wire(compactBatch([charge(1), charge(2)])) as { events: unknown[][] } & Record<
      string,
      unknown
    >;
    const good = batch.events[0]!;
    const withRow = (row: unknown) => ({ ...batch, events: [good, row] });
    const reasons = (row: unknown) =>
      (parseSettlementMessage(withRow(row)) as { rejected: string[] }).rejected;
    expect(reasons([...good.slice(0, 1), 7, ...good.slice(2)])).toEqual(['bad account_id']);
    expect(reasons([...good.slice(0, 3), 9, ...good.slice(4)])).toEqual(['bad route']);
    expect(reasons(["x'; drop table", ...good.slice(1)])).toEqual(['bad request_id']);
    expect(reasons([...good.slice(0, 5), 'fax'])).toEqual(['bad interface fax']);
    expect(reasons([...good.slice(0, 5), null])).toEqual(['bad interface null']);
    expect(reasons([...good, 'x'.repeat(129)])).toEqual(['bad traceparent']);
    expect(reasons(good.slice(0, 5))).toEqual(['not an event row']);
    expect(reasons('row')).toEqual(['not an event row']);

    expect(parseSettlementMessage({ ...batch, kind: 'gifted' })).toBe('bad batch kind gifted');
    expect(parseSettlementMessage({ ...batch, settled_at_ms: 'soon' })).toBe('bad batch settled_at_ms');
    expect(parseSettlementMessage({ ...batch, accounts: 'all' })).toMatch(/needs accounts/);
    expect(parseSettlementMessage({ ...batch, events: Array(1_001).fill(good) })).toBe(
      'batch of 1001 events',
    );
    expect(parseSettlementMessage({ ...batch, v: 3 })).toBe('unknown batch version 3');
  });

  it('are written only to a ledger that says it reads them', () => {
    expect(readsCompact('1,2')).toBe(true);
    expect(readsCompact('2')).toBe(true);
    expect(readsCompact('1')).toBe(false);
    expect(readsCompact('12')).toBe(false);
    expect(readsCompact(undefined)).toBe(false);
  });
});
