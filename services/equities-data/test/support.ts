import { RpcError } from '@mdp/grpc';
import type { BarRow } from '@mdp/market';
import { type GeneratedDataset, generateDataset } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import type { common } from '@mdp/proto';
import { EquitiesDataset } from '../src/areas/stocks/dataset.ts';
import type { DatasetSnapshot } from '../src/areas/stocks/read.ts';
import type { BarSource } from '../src/areas/stocks/rpcs.ts';

/** The real exchange files, read in place from the shared folder beside the repository. */
export const REALDATA = new URL('../../../../shared/realdata/', import.meta.url).pathname;

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';

/** A generated dataset held in memory, with what the database would give the service. */
export interface MemoryDataset {
  generated: GeneratedDataset;
  bars: Map<number, BarRow[]>;
  snapshot: DatasetSnapshot;
  dataset: EquitiesDataset;
  source: BarSource;
}

export function smallDataset(
  size = 120,
  endDay = day('2026-11-20'),
  seed = 7,
  historyDays = 2_200,
): MemoryDataset {
  const generated = generateDataset({ seed, size, endDay, historyDays });
  const bars = new Map<number, BarRow[]>();
  for (const id of generated.stocksWithBars) {
    const list: BarRow[] = [];
    generated.emitBars(id, (b) => list.push(b));
    bars.set(id, list);
  }
  const snapshot = snapshotOf(generated, bars);
  return { generated, bars, snapshot, dataset: new EquitiesDataset(snapshot), source: memorySource(bars) };
}

/** What readDataset would return for this data (52-week range on the last bar's share basis). */
export function snapshotOf(g: GeneratedDataset, bars: Map<number, BarRow[]>): DatasetSnapshot {
  const lastBars = new Map<number, BarRow[]>();
  const firstDay = new Map<number, number>();
  const range52 = new Map<number, { high: number; low: number }>();
  for (const [id, list] of bars) {
    if (list.length === 0) continue;
    lastBars.set(id, list.slice(-2).reverse());
    firstDay.set(id, list[0]!.d);
    const last = list.at(-1)!.d;
    const acts = g.actions.filter((a) => a.stockId === id);
    let high = 0;
    let low = Number.POSITIVE_INFINITY;
    for (const b of list) {
      if (b.d <= last - 365) continue;
      let f = 1;
      for (const a of acts) if (a.exDate > b.d) f *= a.ratioOld / a.ratioNew;
      high = Math.max(high, Math.round(b.high * f));
      low = Math.min(low, Math.round(b.low * f));
    }
    range52.set(id, { high, low });
  }
  return {
    stocks: g.stocks,
    aliases: g.aliases,
    actions: g.actions,
    annual: g.annual,
    ratings: g.ratings,
    reports: [],
    lastBars,
    firstDay,
    range52,
  };
}

export function memorySource(bars: Map<number, BarRow[]>): BarSource {
  return {
    bars: async (id, from, to) => (bars.get(id) ?? []).filter((b) => b.d >= from && b.d <= to),
    previousBarDay: async (id, before) => (bars.get(id) ?? []).filter((b) => b.d < before).at(-1)?.d,
  };
}

/** A fixed clock at an IST wall-clock time (IST is UTC+05:30). */
export const istClock = (isoDateTime: string) => () => Date.parse(`${isoDateTime}+05:30`);

/** A fixed clock at noon IST on the given day. */
export const clockAt = (isoDay: string) => istClock(`${isoDay}T12:00:00`);

/** The call context handlers get; the handlers under test do not read it. */
export const ctx = undefined as never;

/** A service document's data and meta, parsed. */
export const readDocument = (doc: common.Document) => ({
  data: JSON.parse(doc.data_json.toString()),
  meta: doc.meta_json.length ? JSON.parse(doc.meta_json.toString()) : {},
});

/** The RpcError a handler's call rejects with (fails the test if it resolves or throws anything else). */
export async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(err)}`);
  return err;
}
