import { istDay } from '@mdp/nse-calendar';
import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import {
  ChargedCells,
  DayEvents,
  dayCounts,
  dayDate,
  type EventShape,
  encodeEvent,
  istDayNumber,
  istDayStartMs,
  partitionName,
  ROW_BYTES,
  uuidText,
  zipfCdf,
} from '../../bench/ledger-events.ts';

// 2026-11-25 14:00 IST; the shape spans the 3 days before and this one up to now.
const NOW = Date.UTC(2026, 10, 25, 8, 30);
const TODAY = istDayNumber(NOW);
const shape: EventShape = {
  count: 30_000,
  fromMs: istDayStartMs(TODAY - 3),
  toMs: NOW,
  accounts: 200,
  routes: 25,
  refundShare: 0.03,
  mcpShare: 0.1,
  seed: 7,
};

interface Seen {
  id: string;
  account: number;
  atMs: number;
  day: number;
  route: number;
  status: number;
  kind: 'c' | 'r';
  via: 'r' | 'm';
}

function all(s: EventShape): Seen[] {
  const { first, last } = dayCounts(s);
  const out: Seen[] = [];
  for (let d = first; d <= last; d++) {
    const day = new DayEvents(s, d);
    for (let e = day.next(); e; e = day.next()) {
      const { requestId, ...rest } = e;
      out.push({ ...rest, id: uuidText(requestId) });
    }
  }
  return out;
}

describe('generated usage events (make bench-ledger)', () => {
  const events = all(shape);

  it('names IST days as the ledger does', () => {
    expect(dayDate(TODAY)).toBe('2026-11-25');
    expect(dayDate(istDayNumber(Date.UTC(2026, 10, 25, 18, 29, 59, 999)))).toBe('2026-11-25');
    expect(dayDate(istDayNumber(Date.UTC(2026, 10, 25, 18, 30)))).toBe('2026-11-26');
    expect(istDayStartMs(TODAY)).toBe(Date.UTC(2026, 10, 24, 18, 30));
    expect(partitionName(TODAY)).toBe('usage_events_20261125');
  });

  it('spreads the count over the days in proportion to their time', () => {
    const { first, last, counts } = dayCounts(shape);
    expect([first, last]).toEqual([TODAY - 3, TODAY]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(shape.count);
    // Three whole days and the 14 hours of today.
    expect(counts[3]! / counts[0]!).toBeCloseTo(14 / 24, 2);
    expect(events).toHaveLength(shape.count);
  });

  it('makes UUIDv7 request ids in time order, carrying their admission millisecond', () => {
    const wrong = events.filter(
      (e, i) =>
        !validate(e.id) ||
        version(e.id) !== 7 ||
        Number.parseInt(e.id.replaceAll('-', '').slice(0, 12), 16) !== e.atMs ||
        (i > 0 && !(e.id > events[i - 1]!.id && e.atMs >= events[i - 1]!.atMs)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps every event within the span and on its IST day', () => {
    const outside = events.filter(
      (e) => e.atMs < shape.fromMs || e.atMs >= shape.toMs || dayDate(e.day) !== istDay(e.atMs),
    );
    expect(outside).toEqual([]);
  });

  it('has the shape of real traffic: busy accounts, popular routes, mostly charges, some MCP', () => {
    const byAccount = new Map<number, number>();
    for (const e of events) byAccount.set(e.account, (byAccount.get(e.account) ?? 0) + 1);
    const busiest = [...byAccount.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    expect(busiest).toBe(0);
    expect(byAccount.size).toBeGreaterThan(150);
    expect(Math.max(...events.map((e) => e.account))).toBeLessThan(shape.accounts);
    expect(new Set(events.map((e) => e.route)).size).toBe(shape.routes);
    const share = (f: (e: Seen) => boolean) => events.filter(f).length / events.length;
    expect(share((e) => e.kind === 'r')).toBeCloseTo(0.03, 1);
    expect(share((e) => e.via === 'm')).toBeCloseTo(0.1, 1);
    expect(events.every((e) => (e.kind === 'c' ? e.status === 200 : e.status >= 400))).toBe(true);
  });

  it('is reproducible but for the random bits of the ids', () => {
    const again = all(shape);
    const strip = ({ id, ...rest }: Seen) => ({ ...rest, idTime: id.slice(0, 18) });
    expect(again.map(strip)).toEqual(events.map(strip));
  });

  it('encodes a row in COPY binary format', () => {
    const day = new DayEvents(shape, TODAY);
    const e = day.next()!;
    const accountIds = Array.from({ length: shape.accounts }, (_, i) => i + 1_000);
    const buf = Buffer.alloc(ROW_BYTES + 10);
    expect(
      encodeEvent(
        buf,
        0,
        e,
        accountIds,
        Array.from({ length: 25 }, (_, i) => i + 100),
      ),
    ).toBe(ROW_BYTES);
    expect(buf.readInt16BE(0)).toBe(7);
    expect(buf.readInt32BE(2)).toBe(16);
    expect(uuidText(buf.subarray(6, 22))).toBe(uuidText(e.requestId));
    expect(buf.readInt32BE(22)).toBe(8);
    expect(buf.readBigInt64BE(26)).toBe(BigInt(e.atMs - Date.UTC(2000, 0, 1)) * 1000n);
    expect(buf.readInt32BE(34)).toBe(4);
    expect(buf.readInt32BE(38)).toBe(e.account + 1_000);
    expect(buf.readInt16BE(46)).toBe(e.route + 100);
    expect(buf.readInt16BE(52)).toBe(e.status);
    expect(String.fromCharCode(buf[58]!, buf[63]!)).toBe(`${e.kind}${e.via}`);
  });

  it('counts charges into the projection rows: one per account, day, route and interface', () => {
    const { first, last } = dayCounts(shape);
    const cells = new ChargedCells(shape.accounts, first, last - first + 1, shape.routes);
    for (let d = first; d <= last; d++) {
      const day = new DayEvents(shape, d);
      for (let e = day.next(); e; e = day.next()) cells.add(e);
    }
    const charged = events.filter((e) => e.kind === 'c');
    expect(cells.total()).toBe(charged.length);
    const numbers = Array.from({ length: shape.accounts }, (_, i) => 1_000 + i);
    const routes = Array.from({ length: shape.routes }, (_, i) => 100 + i);
    const sum = (rows: (string | number)[][]) => rows.reduce((n, r) => n + (r.at(-1) as number), 0);
    const byRoute = [...cells.rows(numbers, routes)];
    expect(sum(byRoute)).toBe(charged.length);
    expect(byRoute.every((r) => (r.at(-1) as number) > 0)).toBe(true);
    // The busiest account's MCP charges on the first day.
    const expected = charged.filter((e) => e.account === 0 && e.day === first && e.via === 'm').length;
    expect(expected).toBeGreaterThan(0);
    expect(sum(byRoute.filter((r) => r[0] === 1_000 && r[1] === dayDate(first) && r[3] === 'm'))).toBe(
      expected,
    );
    expect(byRoute.every((r) => String(r[1]).startsWith('2026-11'))).toBe(true);
  });

  it('puts rank 0 first under Zipf', () => {
    const cdf = zipfCdf(5);
    expect(cdf[4]).toBe(1);
    expect(cdf[0]).toBeCloseTo(1 / (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5));
  });
});
