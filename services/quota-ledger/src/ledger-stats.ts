import { type Clock, istDay, istMonth } from '@mdp/nse-calendar';
import { Gauge, type Logger, type Registry } from '@mdp/telemetry';
import type { AccountBook } from './admission/account-book.ts';
import type { ProjectionStore } from './settlement/projections.ts';
import type { SettlementConsumer } from './settlement/settlement-consumer.ts';

/** How many accounts the top-usage gauge shows per window: bounded, so its label set stays small. */
export const TOP_ACCOUNTS = 10;

export interface LedgerStatsOptions {
  shard: number;
  consumer: Pick<SettlementConsumer, 'lag'>;
  book: Pick<AccountBook, 'topCharged'>;
  store: Pick<ProjectionStore, 'rebuildDifferences'>;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  /** How often consumer lag and the top accounts are refreshed. */
  intervalMs: number;
  /**
   * How often the projections are compared with a replay of the event log; 0 never. The log and the
   * projections are shared by every shard, so only shard 0 runs the check (a full scan of the log).
   */
  rebuildCheckIntervalMs: number;
}

export interface LedgerStats {
  /** Refreshes consumer lag and the top accounts now. */
  refresh(): Promise<void>;
  /** Replays the log against the projections now; resolves to the number of differences. */
  checkRebuild(): Promise<number>;
  stop(): void;
}

/**
 * Gauges that need a query to compute, refreshed on a timer rather than on scrape, so a slow NATS or
 * Postgres can never stall `/metrics`: consumer lag, the top accounts by charged requests, and the
 * rebuild check.
 */
export function startLedgerStats(o: LedgerStatsOptions): LedgerStats {
  const shard = String(o.shard);
  const pending = new Gauge({
    name: 'ledger_consumer_pending_messages',
    help: "Settlement events in JetStream not yet delivered to this shard's durable consumer (NaN: unknown)",
    labelNames: ['shard'] as const,
    registers: [o.registry],
  });
  const ackPending = new Gauge({
    name: 'ledger_consumer_ack_pending_messages',
    help: 'Settlement events delivered to this shard but not yet recorded and acknowledged (NaN: unknown)',
    labelNames: ['shard'] as const,
    registers: [o.registry],
  });
  const top = new Gauge({
    name: 'ledger_top_account_charged',
    help: `Charged requests in the current IST day or month of this shard's ${TOP_ACCOUNTS} busiest accounts in memory (active in the last minutes)`,
    labelNames: ['window', 'account'] as const,
    registers: [o.registry],
  });
  const checking = o.rebuildCheckIntervalMs > 0 && o.shard === 0;
  const differences = checking
    ? new Gauge({
        name: 'ledger_rebuild_differences',
        help: 'Account periods where the live projections differ from a replay of the event log (must be 0)',
        registers: [o.registry],
      })
    : null;
  const checkedAt = checking
    ? new Gauge({
        name: 'ledger_rebuild_check_timestamp_seconds',
        help: 'When the rebuild check last completed (Unix seconds)',
        registers: [o.registry],
      })
    : null;
  // What the staleness alert measures the last check against (REBUILD_CHECK_INTERVAL_MS is configurable).
  if (checking)
    new Gauge({
      name: 'ledger_rebuild_check_interval_seconds',
      help: 'How often shard 0 runs the rebuild check (REBUILD_CHECK_INTERVAL_MS, in seconds)',
      registers: [o.registry],
    }).set(o.rebuildCheckIntervalMs / 1000);

  // Said once when it starts and once when it ends, not on every refresh of an outage.
  let lagUnavailable = false;
  const refreshLag = async () => {
    try {
      const lag = await o.consumer.lag();
      pending.set({ shard }, lag.pending);
      ackPending.set({ shard }, lag.ackPending);
      if (lagUnavailable) o.logger.info('consumer lag available again');
      lagUnavailable = false;
    } catch (err) {
      pending.set({ shard }, Number.NaN);
      ackPending.set({ shard }, Number.NaN);
      if (!lagUnavailable) o.logger.warn({ err: (err as Error).message }, 'consumer lag unavailable');
      lagUnavailable = true;
    }
  };
  const refreshTop = () => {
    const now = o.clock();
    top.reset();
    for (const [window, period] of [
      ['day', istDay(now)],
      ['month', istMonth(now)],
    ] as const) {
      for (const row of o.book.topCharged(period, TOP_ACCOUNTS))
        top.set({ window, account: row.accountId }, row.charged);
    }
  };
  const refresh = async () => {
    refreshTop();
    await refreshLag();
  };
  const checkRebuild = async () => {
    // Today and yesterday, the days still being recorded: a full replay reads the whole retained log
    // (tens of millions of events at volume), which `make ledger-rebuild` does on demand.
    const diffs = await o.store.rebuildDifferences(istDay(o.clock() - 86_400_000));
    differences?.set(diffs.length);
    checkedAt?.set(o.clock() / 1000);
    if (diffs.length > 0)
      o.logger.error(
        { differences: diffs.length, first: diffs.slice(0, 5) },
        'live projections differ from a replay of the event log',
      );
    return diffs.length;
  };

  void refresh();
  const timers: NodeJS.Timeout[] = [setInterval(() => void refresh(), o.intervalMs)];
  if (checking) {
    const run = () =>
      void checkRebuild().catch((err) =>
        o.logger.warn({ err: (err as Error).message }, 'rebuild check failed'),
      );
    // The first check soon after start-up, then on the interval.
    timers.push(setTimeout(run, Math.min(o.rebuildCheckIntervalMs, 60_000)));
    timers.push(setInterval(run, o.rebuildCheckIntervalMs));
  }
  for (const t of timers) t.unref();

  return {
    refresh,
    checkRebuild,
    stop: () => {
      for (const t of timers) clearInterval(t);
    },
  };
}
