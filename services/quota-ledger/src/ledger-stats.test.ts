import { createLogger, createRegistry } from '@mdp/telemetry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountBook } from './admission/account-book.ts';
import { chargedCounts } from './admission/charged-counts.ts';
import { startLedgerStats, TOP_ACCOUNTS } from './ledger-stats.ts';

const T = Date.parse('2026-03-14T10:00:00Z'); // IST day 2026-03-14, month 2026-03
const logger = createLogger('test', 'silent');

/** A book with `charged[i]` requests charged today (and this month) for account `acct-<i>`. */
function bookWith(charged: number[]): AccountBook {
  const book = new AccountBook(30_000, () => 0);
  for (const [i, n] of charged.entries())
    book.loaded(
      `acct-${i}`,
      {
        day: '2026-03-14',
        dayCharged: { rest: n, mcp: 0 },
        month: '2026-03',
        monthCharged: { rest: n + 100, mcp: 0 },
      },
      T,
    );
  return book;
}

function stats(opts: {
  shard?: number;
  book?: AccountBook;
  lag?: () => Promise<{ pending: number; ackPending: number }>;
  differences?: number;
  rebuildCheckIntervalMs?: number;
}) {
  const registry = createRegistry('quota-ledger');
  const s = startLedgerStats({
    shard: opts.shard ?? 0,
    consumer: { lag: opts.lag ?? (async () => ({ pending: 7, ackPending: 2 })) },
    book: opts.book ?? bookWith([]),
    store: {
      rebuildDifferences: async () =>
        Array.from({ length: opts.differences ?? 0 }, (_, i) => ({
          account_id: `a${i}`,
          period: '2026-03-14',
          via: 'rest' as const,
          live: 1,
          rebuilt: 2,
        })),
    },
    clock: () => T,
    logger,
    registry,
    intervalMs: 60_000,
    rebuildCheckIntervalMs: opts.rebuildCheckIntervalMs ?? 60_000,
  });
  return { s, metrics: () => registry.metrics() };
}

const sample = (text: string, series: string) =>
  text
    .split('\n')
    .find((l) => l.startsWith(`${series} `))
    ?.split(' ')[1];

describe('AccountBook.topCharged', () => {
  it('lists the busiest accounts of a period, most first, leaving out accounts with nothing charged', () => {
    const book = bookWith([3, 0, 9, 5]);
    expect(book.topCharged('2026-03-14', 2)).toEqual([
      { accountId: 'acct-2', charged: 9 },
      { accountId: 'acct-3', charged: 5 },
    ]);
    expect(book.topCharged('2026-03', 10).map((r) => r.charged)).toEqual([109, 105, 103, 100]);
    expect(book.topCharged('2026-03-13', 10)).toEqual([]);
  });

  it('is the first n of every account sorted by charged, most first, ties by account id', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(6), { maxLength: 40 }), fc.nat(12), (charged, n) => {
        const all = charged
          .map((c, i) => ({ accountId: `acct-${i}`, charged: c }))
          .filter((r) => r.charged > 0)
          .sort((a, b) => b.charged - a.charged || (a.accountId < b.accountId ? -1 : 1));
        expect(bookWith(charged).topCharged('2026-03-14', n)).toEqual(all.slice(0, n));
      }),
    );
  });
});

describe('ledger stats gauges', () => {
  it("export this shard's consumer lag", async () => {
    const { s, metrics } = stats({});
    await s.refresh();
    const text = await metrics();
    expect(sample(text, 'ledger_consumer_pending_messages{shard="0",service="quota-ledger"}')).toBe('7');
    expect(sample(text, 'ledger_consumer_ack_pending_messages{shard="0",service="quota-ledger"}')).toBe('2');
    s.stop();
  });

  it('say NaN, not a stale number, when JetStream cannot be asked', async () => {
    const { s, metrics } = stats({
      lag: async () => {
        throw new Error('timeout');
      },
    });
    await s.refresh();
    // prom-client writes NaN as "Nan"; Prometheus parses either spelling.
    expect(
      sample(await metrics(), 'ledger_consumer_pending_messages{shard="0",service="quota-ledger"}'),
    ).toMatch(/^nan$/i);
    s.stop();
  });

  it('show at most TOP_ACCOUNTS accounts per window, and forget accounts that left the top', async () => {
    const book = bookWith(Array.from({ length: TOP_ACCOUNTS + 5 }, (_, i) => i + 1));
    const { s, metrics } = stats({ book });
    await s.refresh();
    let text = await metrics();
    const day = text.split('\n').filter((l) => l.startsWith('ledger_top_account_charged{window="day"'));
    const month = text.split('\n').filter((l) => l.startsWith('ledger_top_account_charged{window="month"'));
    expect(day).toHaveLength(TOP_ACCOUNTS);
    expect(month).toHaveLength(TOP_ACCOUNTS);
    expect(
      sample(
        text,
        `ledger_top_account_charged{window="day",account="acct-${TOP_ACCOUNTS + 4}",service="quota-ledger"}`,
      ),
    ).toBe(String(TOP_ACCOUNTS + 5));
    expect(text).not.toContain('account="acct-0"');
    // acct-0 becomes the busiest; the least busy of the old top drops out of the gauge.
    book.loaded('acct-0', chargedCounts(T), T);
    book.charge({ accountId: 'acct-0', day: '2026-03-14', month: '2026-03', via: 'rest', delta: 1_000 });
    await s.refresh();
    text = await metrics();
    expect(
      sample(text, 'ledger_top_account_charged{window="day",account="acct-0",service="quota-ledger"}'),
    ).toBe('1001');
    expect(
      text.split('\n').filter((l) => l.startsWith('ledger_top_account_charged{window="day"')),
    ).toHaveLength(TOP_ACCOUNTS);
    s.stop();
  });

  it('count rebuild differences on shard 0, with the time of the check', async () => {
    const { s, metrics } = stats({ differences: 3 });
    expect(await s.checkRebuild()).toBe(3);
    const text = await metrics();
    expect(sample(text, 'ledger_rebuild_differences{service="quota-ledger"}')).toBe('3');
    expect(sample(text, 'ledger_rebuild_check_timestamp_seconds{service="quota-ledger"}')).toBe(
      String(T / 1000),
    );
    s.stop();
  });

  it('export the rebuild check interval, in seconds, for the staleness alert', async () => {
    const { s, metrics } = stats({ rebuildCheckIntervalMs: 5_400_000 });
    expect(sample(await metrics(), 'ledger_rebuild_check_interval_seconds{service="quota-ledger"}')).toBe(
      '5400',
    );
    s.stop();
  });

  it('leave the rebuild check to shard 0, and export nothing for it when it is off', async () => {
    for (const opts of [{ shard: 1 }, { shard: 0, rebuildCheckIntervalMs: 0 }]) {
      const { s, metrics } = stats(opts);
      const text = await metrics();
      expect(text).not.toContain('ledger_rebuild_differences');
      expect(text).not.toContain('ledger_rebuild_check_interval_seconds');
      s.stop();
    }
  });
});
