import { describe, expect, it } from 'vitest';
import { type LogRow, uniqueLogRows } from './usage-log.ts';

const row = (request_id: string, account: number, kind: LogRow['kind'], status = 200): LogRow => ({
  request_id,
  account,
  kind,
  admitted_at_ms: 1_000,
  route: 1,
  status,
  interface: 'r',
});

describe('uniqueLogRows', () => {
  it('orders by request id, then account, then kind', () => {
    const rows = [row('b', 1, 'c'), row('a', 2, 'c'), row('a', 1, 'v'), row('a', 1, 'c')];
    expect(uniqueLogRows(rows).map((r) => `${r.request_id}${r.account}${r.kind}`)).toEqual([
      'a1c',
      'a1v',
      'a2c',
      'b1c',
    ]);
  });

  it('keeps one row per request, account and kind: the one delivered last', () => {
    const rows = [row('a', 1, 'c', 200), row('b', 1, 'r', 404), row('a', 1, 'c', 201), row('a', 1, 'c', 202)];
    expect(uniqueLogRows(rows)).toEqual([row('a', 1, 'c', 202), row('b', 1, 'r', 404)]);
  });

  it('keeps a request id two accounts share as two requests', () => {
    expect(uniqueLogRows([row('a', 2, 'c'), row('a', 1, 'c'), row('a', 2, 'c')])).toEqual([
      row('a', 1, 'c'),
      row('a', 2, 'c'),
    ]);
  });

  it('agrees with a keyed map over random batches with repeats', () => {
    for (let trial = 0; trial < 200; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(Math.random() * 40) }, (_, i) =>
        row(
          `r${Math.floor(Math.random() * 8)}`,
          1 + Math.floor(Math.random() * 3),
          'crv'[i % 3] as LogRow['kind'],
          i,
        ),
      );
      const byKey = new Map(rows.map((r) => [`${r.request_id}/${r.account}/${r.kind}`, r]));
      const expected = [...byKey.values()].sort((x, y) =>
        x.request_id !== y.request_id
          ? x.request_id < y.request_id
            ? -1
            : 1
          : x.account !== y.account
            ? x.account - y.account
            : x.kind < y.kind
              ? -1
              : 1,
      );
      expect(uniqueLogRows([...rows])).toEqual(expected);
    }
  });
});
