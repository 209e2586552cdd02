import { describe, expect, it } from 'vitest';
import { black76 } from '../src/analytics/black.ts';
import { marketCloseMs } from '../src/analytics/time.ts';
import type { Snapshot } from '../src/domain/snapshot.ts';
import { optionsService } from '../src/service/options-service.ts';
import type { OptionsStore, SnapshotHeader } from '../src/store/options-store.ts';

const snapshot: Snapshot = {
  underlying: 'NIFTY',
  kind: 'index',
  tradeDate: '2026-11-20',
  snapshotMs: marketCloseMs('2026-11-20'),
  underlyingPrice: 25850,
  futures: [],
  options: [25700, 25800, 25900, 26000].flatMap((strike) =>
    (['call', 'put'] as const).map((type) => {
      const price = Math.round(black76(25860, strike, 3 / 365, 0.12, 0.9995, type) * 20) / 20;
      return {
        expiry: '2026-11-23',
        strike,
        type,
        close: price,
        last: price,
        bid: null,
        ask: null,
        oi: 6500,
        oiChange: 0,
        volume: 10,
        lotSize: 65,
      };
    }),
  ),
};

/** A store that counts what the service asks of it. */
function fakeStore() {
  const calls: Record<string, number> = {};
  const state = { version: 1, id: 10 };
  const counted =
    <T>(name: string, value: () => T) =>
    async () => {
      calls[name] = (calls[name] ?? 0) + 1;
      return value();
    };
  const store = {
    dataVersion: counted('dataVersion', () => state.version),
    latestSnapshot: counted(
      'latestSnapshot',
      (): SnapshotHeader => ({
        id: state.id,
        underlying: 'NIFTY',
        tradeDate: snapshot.tradeDate,
        snapshotMs: snapshot.snapshotMs,
        underlyingPrice: 25850,
        source: 'test',
      }),
    ),
    underlying: counted('underlying', () => ({
      symbol: 'NIFTY',
      name: null,
      kind: 'index',
      derivativesUntil: null,
      source: 'test',
    })),
    snapshot: counted('snapshot', () => snapshot),
  };
  const load = () => {
    state.version++;
    state.id++;
  };
  return { store: store as unknown as OptionsStore, calls, load };
}

describe('the service caches by data version', () => {
  it('does no database work for a warm chain call, and re-reads the version once it is older than the TTL', async () => {
    const { store, calls, load } = fakeStore();
    let now = 0;
    const svc = optionsService({ store, r: 0.065, clock: () => now, versionTtlMs: 1_000 });
    const ctx = {} as never;
    const first = await svc.getOptionChain({ symbol: 'NIFTY' }, ctx);
    for (let i = 0; i < 10; i++) expect(await svc.getOptionChain({ symbol: 'NIFTY' }, ctx)).toBe(first);
    expect(calls).toEqual({ dataVersion: 1, latestSnapshot: 1, underlying: 1, snapshot: 1 });
    now = 999;
    await svc.getOptionChain({ symbol: 'NIFTY' }, ctx);
    expect(calls.dataVersion).toBe(1);
    // A load: after the TTL the new version is read, and with it the new snapshot analysed.
    load();
    now = 1_000;
    const second = await svc.getOptionChain({ symbol: 'NIFTY' }, ctx);
    expect(second).not.toBe(first);
    expect(calls).toEqual({ dataVersion: 2, latestSnapshot: 2, underlying: 2, snapshot: 2 });
    expect(JSON.parse(second.data_json.toString())).toMatchObject({
      symbol: 'NIFTY',
      expiry: '2026-11-23',
      max_pain: expect.any(Number),
    });
  });
});
