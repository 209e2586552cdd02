import { jsonDocument, RpcError } from '@mdp/grpc';
import type { Clock } from '@mdp/nse-calendar';
import type { common } from '@mdp/proto';
import { LRUCache } from 'lru-cache';
import type { OptionsAnalyticsImpl } from '../app.ts';
import { CHAIN_UNDERLYINGS } from '../domain/snapshot.ts';
import type { OptionsStore, SnapshotHeader } from '../store/options-store.ts';
import { type AnalysedSnapshot, analyseSnapshot } from './analysed-snapshot.ts';
import { chainView } from './chain-view.ts';
import { barInterval, IV_RANGES, type IvRange, ivBars, lookbackStart, rangeStart } from './iv-history.ts';
import { stockOptionsView } from './stock-options-view.ts';

export interface OptionsServiceDeps {
  store: OptionsStore;
  /** Risk-free rate (a fraction): discounting and Greeks. */
  r: number;
  clock: Clock;
  /** How long a read of the data version is trusted: a new load shows within this time. */
  versionTtlMs?: number;
  /** The data version as served (versionReader): shared with whatever announces a new version. */
  dataVersion?: () => Promise<number>;
}

/**
 * The data version, read from the store at most once per `ttlMs`. The service and the announcement of
 * a change share one reader, so a change is announced only once the service serves it: a gateway that
 * drops its copy on the announcement and asks again gets the new document, not the old one again.
 */
export function versionReader(store: OptionsStore, clock: Clock, ttlMs = 1_000): () => Promise<number> {
  let version: { at: number; value: Promise<number> } | null = null;
  return () => {
    const now = clock();
    if (version === null || now - version.at >= ttlMs) {
      const value = store.dataVersion();
      version = { at: now, value };
      value.catch(() => {
        version = null;
      });
    }
    return version.value;
  };
}

const MAX_STRIKES_EACH_SIDE = 25;
/** The one NOT_FOUND reason for an underlying with nothing loaded (what the empty service said too). */
const NO_DATA = 'no derivatives data for this underlying';

/**
 * The three RPCs over the service's tables. Every load (import or generation) records a row whose id is
 * the data version; the service reads it at most once per `versionTtlMs` and keys its caches by it, so
 * a warm call does no database work and a new load is served within that time. A snapshot's analytics
 * (every IV and Greek) are computed once per data version (a calendar change may move its expiries).
 */
export function optionsService(deps: OptionsServiceDeps): OptionsAnalyticsImpl {
  const { store, r, clock, versionTtlMs = 1_000 } = deps;
  const analysed = new LRUCache<string, Promise<AnalysedSnapshot>>({ max: 64 });
  const headers = new LRUCache<string, Promise<SnapshotHeader | null>>({ max: 1_024 });
  const docs = new LRUCache<string, Promise<common.Document>>({ max: 1_024 });
  const dataVersion = deps.dataVersion ?? versionReader(store, clock, versionTtlMs);

  /** Caches what `make` resolves to under `key`, forgetting it if it fails. */
  function cached<K extends {}, V>(
    cache: LRUCache<K, Promise<V>>,
    key: K,
    make: () => Promise<V>,
  ): Promise<V> {
    let pending = cache.get(key);
    if (!pending) {
      pending = make();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  }

  async function latest(symbol: string): Promise<AnalysedSnapshot | null> {
    const v = await dataVersion();
    const header = await cached(headers, `${v}|${symbol}`, () => store.latestSnapshot(symbol));
    if (!header) return null;
    // Keyed by the data version too: a calendar change moves a held snapshot's expiries in place.
    const key = `${v}|${header.id}`;
    let pending = analysed.get(key);
    if (!pending) {
      pending = (async () => {
        const kind = (await store.underlying(symbol))?.kind ?? 'stock';
        return analyseSnapshot(header.id, await store.snapshot(header, kind), header.source, r);
      })();
      analysed.set(key, pending);
      pending.catch(() => analysed.delete(key));
    }
    return pending;
  }

  return {
    async getOptionChain({ symbol: asked, expiry, strikes }) {
      // Symbols match case-insensitively, as on the other options routes.
      const symbol = asked.toUpperCase();
      if (!(CHAIN_UNDERLYINGS as readonly string[]).includes(symbol))
        throw RpcError.invalidArgument(
          'symbol',
          `option chains are served for ${CHAIN_UNDERLYINGS.join(', ')}`,
        );
      if (
        strikes !== undefined &&
        !(Number.isInteger(strikes) && strikes >= 1 && strikes <= MAX_STRIKES_EACH_SIDE)
      )
        throw RpcError.invalidArgument(
          'strikes',
          `strikes must be a whole number from 1 to ${MAX_STRIKES_EACH_SIDE}`,
        );
      const [a, v] = await Promise.all([latest(symbol), dataVersion()]);
      if (!a) throw RpcError.notFound(NO_DATA);
      if (a.expiries.length === 0)
        throw RpcError.notFound(
          `the ${a.snapshot.tradeDate} snapshot of ${symbol} has no unexpired contracts`,
        );
      const e = expiry === undefined ? a.expiries[0]! : a.expiries.find((x) => x.expiry === expiry);
      if (!e)
        throw RpcError.invalidArgument(
          'expiry',
          `no ${expiry} expiry in the ${a.snapshot.tradeDate} snapshot of ${symbol}; its expiries are ${a.expiries.map((x) => x.expiry).join(', ')}`,
        );
      return cached(docs, `chain|${v}|${a.id}|${e.expiry}|${strikes ?? ''}`, async () =>
        jsonDocument(chainView(a, e, strikes, r), {
          snapshot_ts: new Date(a.snapshot.snapshotMs).toISOString(),
          source: a.source,
        }),
      );
    },

    async getIvHistory({ symbol, range }) {
      const sym = symbol.toUpperCase();
      const r0 = (range === '' ? '1y' : range) as IvRange;
      if (!IV_RANGES.includes(r0))
        throw RpcError.invalidArgument('range', `range must be one of ${IV_RANGES.join(', ')}`);
      const v = await dataVersion();
      return cached(docs, `history|${v}|${sym}|${r0}`, async () => {
        const last = await store.lastDailyDate(sym);
        if (last === null) throw RpcError.notFound(NO_DATA);
        const from = rangeStart(last, r0);
        const [rows, underlying] = await Promise.all([
          store.dailyRows(sym, from === null ? null : lookbackStart(from)),
          store.underlying(sym),
        ]);
        const interval = barInterval(r0);
        const bars = ivBars(rows, from, interval);
        return jsonDocument(
          {
            symbol: sym,
            range: r0,
            bar_interval: interval,
            from: bars[0]?.date ?? null,
            to: last,
            derivatives_until: underlying?.derivativesUntil ?? null,
            bars,
          },
          { bar_interval: interval, bars: bars.length },
        );
      });
    },

    async getStockOptions({ symbol }) {
      const sym = symbol.toUpperCase();
      const v = await dataVersion();
      return cached(docs, `stock|${v}|${sym}`, async () => {
        const underlying = await store.underlying(sym);
        if (!underlying) throw RpcError.notFound(NO_DATA);
        if (underlying.derivativesUntil !== null)
          throw RpcError.notFound(
            `${sym} has no derivatives: they were discontinued after ${underlying.derivativesUntil}`,
          );
        const a = await latest(sym);
        if (!a) throw RpcError.notFound(NO_DATA);
        const history = await store.dailyRows(sym, lookbackStart(a.snapshot.tradeDate));
        const upToSnapshot = history.filter((h) => h.tradeDate <= a.snapshot.tradeDate);
        return jsonDocument(stockOptionsView(a, upToSnapshot, r), {
          snapshot_ts: new Date(a.snapshot.snapshotMs).toISOString(),
          source: a.source,
        });
      });
    },
  };
}
