import type { CorporateActionRow } from '../../model.ts';
import type { IndexFamily } from '../../vocabulary.ts';
import type { GeneratedDataset } from '../dataset.ts';
import { INDEX_DEFINITIONS, type IndexDefinition } from './definitions.ts';
import { type Fundamentals, type IndexBar, indexBars } from './levels.ts';
import { candidates, rankUniverse, select } from './selection.ts';
import { dayGrid, type StockSeries, stockSeries } from './series.ts';

export { INDEX_DEFINITIONS, type IndexDefinition } from './definitions.ts';
export type { IndexBar } from './levels.ts';

export interface GeneratedIndex {
  name: string;
  family: IndexFamily;
  /** Stock ids, chosen on the last day and held over the whole history. */
  constituents: number[];
  /** One bar per session from the first constituent's first session, oldest first. */
  bars: IndexBar[];
}

/**
 * The generated indices (all of INDEX_DEFINITIONS, or only the named ones), a pure function of the
 * dataset: constituents chosen by each definition's rule, levels chain-linked from their market values
 * and ratios from their annual results. Each stock's bars are simulated once, and only for stocks some
 * requested index needs, so a handful of indices costs a fraction of the whole family. An index whose
 * rule finds no stock (in a small universe) is left out.
 */
export function generateIndices(ds: GeneratedDataset, only?: readonly string[]): GeneratedIndex[] {
  const defs = only === undefined ? INDEX_DEFINITIONS : only.map(definitionOf);
  const universe = rankUniverse(ds);
  const grid = dayGrid(ds);
  const actionsOf = new Map<number, CorporateActionRow[]>();
  for (const a of ds.actions) actionsOf.set(a.stockId, [...(actionsOf.get(a.stockId) ?? []), a]);
  const byId = new Map(ds.stocks.map((s) => [s.id, s]));
  const cache = new Map<number, StockSeries>();
  const series = (id: number) => {
    let s = cache.get(id);
    if (!s) {
      s = stockSeries(ds, grid, id, byId.get(id)!.sharesOutstanding!, actionsOf.get(id) ?? []);
      cache.set(id, s);
    }
    return s;
  };
  const fundamentals = fundamentalsOf(ds);
  const out: GeneratedIndex[] = [];
  for (const def of defs) {
    const constituents = select(def, candidates(def, universe), universe, ds, series);
    if (constituents.length === 0) continue;
    out.push({
      name: def.name,
      family: def.family,
      constituents,
      bars: indexBars(def, constituents.map(series), grid, (id) => fundamentals.get(id)),
    });
  }
  return out;
}

function definitionOf(name: string): IndexDefinition {
  const def = INDEX_DEFINITIONS.find((d) => d.name.toUpperCase() === name.toUpperCase());
  if (!def) throw new Error(`no generated index named "${name}"`);
  return def;
}

/** Each listed company's annual profit, book value and dividend paid (rupees crore) by fiscal year. */
function fundamentalsOf(ds: GeneratedDataset): Map<number, Fundamentals> {
  const shares = new Map(ds.stocks.map((s) => [s.id, s.sharesOutstanding]));
  const out = new Map<number, Fundamentals>();
  for (const a of ds.annual) {
    const f = out.get(a.stockId) ?? new Map();
    out.set(a.stockId, f);
    // dividendPs is per share of today's count (see fundamentals.ts), so today's count totals it.
    f.set(a.fiscalYear, {
      profit: a.netProfit,
      book: a.equity,
      dividend: (a.dividendPs * (shares.get(a.stockId) ?? 0)) / 1e7,
    });
  }
  return out;
}
