import { describe, expect, it } from 'vitest';
import {
  LEGACY_STREAM,
  newRequestId,
  parseSettlementEvent,
  parseSettlementMessage,
  settlementMsgId,
  settlementSubject,
  shardOf,
  shardStreamSpec,
} from './index.ts';

const event = {
  v: 1,
  request_id: '0b7c5d1e-1111-4222-8333-944455556666',
  account_id: 'a6f0c1d2-0000-4000-8000-000000000001',
  kind: 'charged',
  admitted_at_ms: 1,
  settled_at_ms: 2,
  route: 'getStockQuote',
  status: 200,
};

describe('usage contract', () => {
  it('spreads accounts over shards stably', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOf(`account-${i}`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(800);
    expect(shardOf('x', 4)).toBe(shardOf('x', 4));
    expect(shardOf('anything', 1)).toBe(0);
  });

  it('names subjects and message ids', () => {
    expect(settlementSubject('usage', 2, 'refunded')).toBe('usage-2.refunded');
    // A shard's own stream holds its subjects only; none of them is one of the legacy stream's.
    const own = shardStreamSpec('USAGE', 'usage', 2, 7, 3);
    expect(own).toMatchObject({ name: 'USAGE_2', subjects: ['usage-2.*'], replicas: 3 });
    expect(LEGACY_STREAM.spec('USAGE', 'usage').subjects).toEqual(['usage.>']);
    expect(LEGACY_STREAM.subject('usage', 2, 'refunded')).toBe('usage.2.refunded');
    expect(settlementSubject('usage', 2, 'refunded').startsWith('usage.')).toBe(false);
    expect(settlementMsgId({ request_id: 'r1', account_id: 'a1', kind: 'charged' })).toBe('a1/r1');
    expect(settlementMsgId({ request_id: 'r1', account_id: 'a1', kind: 'refunded' })).toBe('a1/r1');
    expect(settlementMsgId({ request_id: 'r1', account_id: 'a1', kind: 'voided' })).toBe('a1/r1:voided');
    // Scoped by account: the same request id of two accounts is two messages, never a JetStream duplicate.
    expect(settlementMsgId({ request_id: 'r1', account_id: 'a2', kind: 'charged' })).not.toBe(
      settlementMsgId({ request_id: 'r1', account_id: 'a1', kind: 'charged' }),
    );
  });

  it('accepts a well-formed event and names what is wrong with a bad one', () => {
    expect(parseSettlementEvent(event)).toEqual(event);
    expect(parseSettlementEvent(null)).toBe('not an object');
    expect(parseSettlementEvent({ ...event, v: 2 })).toBe('unknown version 2');
    expect(parseSettlementEvent({ ...event, kind: 'gifted' })).toBe('bad kind gifted');
    expect(parseSettlementEvent({ ...event, interface: 'mcp' })).toEqual({ ...event, interface: 'mcp' });
    expect(parseSettlementEvent({ ...event, interface: 'fax' })).toBe('bad interface fax');
    expect(parseSettlementEvent({ ...event, admitted_at_ms: 'soon' })).toBe('bad admitted_at_ms');
    expect(parseSettlementEvent({ ...event, request_id: "x'; drop table" })).toBe('bad request_id');
    expect(parseSettlementEvent({ ...event, account_id: 'acct-1' })).toBe('bad account_id');
    expect(parseSettlementEvent({ ...event, route: 'get\tQuote' })).toBe('bad route');
    expect(parseSettlementEvent({ ...event, route: 'x'.repeat(65) })).toBe('bad route');
  });

  it('reads a message of one event or of a batch, leaving out a batch’s unreadable events', () => {
    expect(parseSettlementMessage(event)).toEqual({ events: [event], rejected: [] });
    const second = {
      ...event,
      request_id: 'r2',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    };
    expect(parseSettlementMessage({ v: 1, events: [event, second, { ...event, kind: 'gifted' }] })).toEqual({
      events: [event, second],
      rejected: ['bad kind gifted'],
    });
    expect(parseSettlementMessage({ v: 3, events: [] })).toBe('unknown batch version 3');
    expect(parseSettlementMessage({ v: 1, events: Array(1_001).fill(event) })).toBe('batch of 1001 events');
    expect(parseSettlementMessage('not json')).toBe('not an object');
  });

  it('makes request ids that are UUIDv7, unique, and ordered by the millisecond they were made in', async () => {
    const ids = Array.from({ length: 20_000 }, newRequestId);
    for (const id of ids.slice(0, 100))
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const msOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    const before = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    const later = newRequestId();
    expect(msOf(later)).toBeGreaterThanOrEqual(before);
    expect(Math.abs(msOf(later) - Date.now())).toBeLessThan(60_000);
    // Text order is time order across milliseconds: the log's unique index grows at its right edge.
    expect(later > ids.at(-1)!).toBe(true);
    for (let i = 1; i < ids.length; i++) expect(msOf(ids[i]!)).toBeGreaterThanOrEqual(msOf(ids[i - 1]!));
  });

  it('draws request ids from fresh randomness: no two share their 74 random bits', () => {
    const randomPart = (id: string) => id.replace(/-/g, '').slice(13);
    const parts = new Set(Array.from({ length: 20_000 }, () => randomPart(newRequestId())));
    expect(parts.size).toBe(20_000);
  });
});
