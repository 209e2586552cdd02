import { jsonDocument, RpcError } from '@mdp/grpc';
import { INDEX_FAMILIES, type IndexFamily } from '@mdp/market';
import { day, formatDay, istToday } from '@mdp/nse-calendar';
import type { AreaDeps } from '../area.ts';
import type { EquitiesDataImpl } from '../stocks/rpcs.ts';
import { type IndexSeries, type IndicesData, levelsUpTo } from './data.ts';
import {
  barJson,
  HISTORY_INTERVALS,
  type HistoryInterval,
  historyWindow,
  isWeekly,
  weeklyIndexBars,
} from './history.ts';
import { completedPeriods, type Granularity } from './periods.ts';
import { periodReturn, type RankedIndex, rank, rankedJson } from './ranking.ts';
import { VALUATION_INDICES, valuationWindow } from './valuations.ts';

type Rpcs = Pick<EquitiesDataImpl, 'listIndices' | 'getIndexHistory' | 'getValuations'>;

function checkInt(param: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw RpcError.invalidArgument(param, `${param} must be a whole number from ${min} to ${max}`);
}

function checkOneOf<T extends string>(param: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw RpcError.invalidArgument(param, `${param} takes ${allowed.join(', ')}`);
  return value as T;
}

/** The requested indices: the named ones (every name must exist), else the family, else all. */
function chosen(
  data: IndicesData,
  names: readonly string[],
  category: IndexFamily | undefined,
): IndexSeries[] {
  if (names.length === 0) return data.list.filter((s) => category === undefined || s.family === category);
  const out = new Map<number, IndexSeries>();
  for (const name of names) {
    const s = data.find(name);
    if (!s) throw RpcError.invalidArgument('names', `unknown index "${name}"`);
    out.set(s.id, s);
  }
  return [...out.values()];
}

/** Index ranking, index history and valuations, answered from the indices held in memory. */
export function indicesRpcs(deps: AreaDeps<IndicesData>): Rpcs {
  const today = () => day(istToday(deps.clock));
  return {
    async listIndices(req) {
      checkInt('periods', req.periods, 1, 12);
      const granularity = checkOneOf<Granularity>('granularity', req.granularity, ['week', 'month']);
      const category =
        req.category === undefined ? undefined : checkOneOf('category', req.category, INDEX_FAMILIES);
      if (req.names.length > 50) throw RpcError.invalidArgument('names', 'at most 50 names');
      checkInt('limit', req.limit, 1, 50);
      const order = checkOneOf('order', req.order, ['gainers', 'losers'] as const);
      const indices = chosen(deps.data(), req.names, category);
      const now = today();
      const periods = completedPeriods(now, granularity, req.periods);
      const ranked: RankedIndex[] = [];
      const notRanked: string[] = [];
      for (const s of indices) {
        const r = periodReturn(s, periods);
        if (r) ranked.push(r);
        else notRanked.push(s.name);
      }
      const top = rank(ranked, order).slice(0, req.limit);
      return jsonDocument(
        top.map((r, i) => rankedJson(r, i + 1)),
        {
          granularity,
          periods: req.periods,
          order,
          category: req.names.length > 0 ? null : (category ?? null),
          names: req.names.length > 0 ? indices.map((s) => s.name) : null,
          today: formatDay(now),
          base_period: { from: formatDay(periods[0]!.start), to: formatDay(periods[0]!.end) },
          window: { from: formatDay(periods[1]!.start), to: formatDay(periods.at(-1)!.end) },
          total: ranked.length,
          limit: req.limit,
          not_ranked: notRanked.sort(),
        },
      );
    },

    async getIndexHistory(req) {
      const name = req.name.trim();
      if (name === '' || name.length > 64)
        throw RpcError.invalidArgument('name', 'name must be 1 to 64 characters');
      const interval = checkOneOf<HistoryInterval>('interval', req.interval, HISTORY_INTERVALS);
      const s = deps.data().find(name);
      if (!s) throw RpcError.notFound(`no index named "${name}"`);
      const levels = levelsUpTo(s, today());
      const last = levels.at(-1);
      const window = last ? historyWindow(interval, last.d, levels[0]!.d) : undefined;
      const daily = window ? levels.filter((b) => b.d >= window.from) : [];
      const bars = isWeekly(interval) ? weeklyIndexBars(daily) : daily;
      // The bar size as the IV history states it ('1d' or '1w'), in data and meta alike.
      const barInterval = isWeekly(interval) ? '1w' : '1d';
      return jsonDocument(
        { name: s.name, family: s.family, interval, bar_interval: barInterval, bars: bars.map(barJson) },
        {
          bar_interval: barInterval,
          window: window ? { from: formatDay(window.from), to: formatDay(window.to) } : null,
          bars: bars.length,
        },
      );
    },

    async getValuations(req) {
      const slug = checkOneOf('index', req.index, Object.keys(VALUATION_INDICES));
      checkInt('years', req.years, 1, 20);
      const s = deps.data().find(VALUATION_INDICES[slug]!);
      const window = s && valuationWindow(s.days, req.years, today());
      if (!s || !window) throw RpcError.notFound(`no valuation history for ${slug}`);
      const { series, ...rest } = window;
      return jsonDocument(
        { index: slug, name: s.name, years: req.years, ...rest, series },
        { points: series.length },
      );
    },
  };
}
