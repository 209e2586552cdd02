import { type AsyncServiceImpl, jsonDocument, RpcError } from '@mdp/grpc';
import type { BarRow } from '@mdp/market';
import { type Clock, type DayNumber, day, formatDay, istToday } from '@mdp/nse-calendar';
import type { common, equities } from '@mdp/proto';
import type { EquitiesDataset, StockEntry } from './dataset.ts';
import { barsJson, type ProfileSection, profile, quote, searchItem } from './documents.ts';
import { adjustBars } from './domain/adjust.ts';
import { CursorError, pageWindow } from './domain/price-window.ts';
import { weeklyBars } from './domain/weekly.ts';

/** Where price bars come from: Postgres in the service, anything in tests. */
export interface BarSource {
  /** One stock's bars between two days, both inclusive, oldest first, as traded. */
  bars(stockId: number, from: DayNumber, to: DayNumber): Promise<BarRow[]>;
  /** The latest bar day strictly before `before`. */
  previousBarDay(stockId: number, before: DayNumber): Promise<DayNumber | undefined>;
}

export interface ServiceDeps {
  /** The dataset in force (a getter, so a reload swaps it without rebuilding the service). */
  dataset: () => EquitiesDataset;
  bars: BarSource;
  clock: Clock;
}

export type EquitiesDataImpl = AsyncServiceImpl<typeof equities.EquitiesDataServiceService>;
type StockRpc = 'searchStocks' | 'getStockProfile' | 'getStockQuote' | 'getQuotes' | 'getPriceHistory';

const MAX_BATCH_QUOTES = 20;
const MAX_PRICE_DAYS = 2_000;
const PROFILE_SECTIONS: readonly ProfileSection[] = ['technicals', 'ratings', 'peers'];
/** History the profile's technicals and growth look at: five years and a margin. */
const PROFILE_HISTORY_DAYS = 5 * 366 + 30;

/** A document whose `data` is JSON text already (see barsJson). */
function preserialized(dataJson: string, meta: Record<string, unknown>): common.Document {
  return { data_json: Buffer.from(dataJson), meta_json: Buffer.from(JSON.stringify(meta)) };
}

function resolve(ds: EquitiesDataset, symbol: string): StockEntry {
  const e = ds.resolve(symbol);
  if (!e) throw RpcError.notFound(`no stock with symbol "${symbol}"`);
  return e;
}

function checkInt(param: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw RpcError.invalidArgument(param, `${param} must be a whole number from ${min} to ${max}`);
}

/**
 * The stock RPCs: transport only. Each maps its request to the in-memory dataset or the bar source
 * and serialises the document once. The gateway validates first; the checks here cover what only the
 * service can judge (cursors) and keep the service safe when called directly.
 */
export function stockRpcs(deps: ServiceDeps): Pick<EquitiesDataImpl, StockRpc> {
  const today = () => day(istToday(deps.clock));
  return {
    async searchStocks(req) {
      const q = req.q.trim();
      if (q === '') throw RpcError.invalidArgument('q', 'q must not be empty');
      checkInt('limit', req.limit, 1, 50);
      const ds = deps.dataset();
      const result = ds.search.search({ q, sector: req.sector, industry: req.industry, limit: req.limit });
      return jsonDocument(
        result.hits.map((i) => searchItem(ds.entries[i]!)),
        { total: result.total, limit: req.limit, offset: 0 },
      );
    },

    async getStockQuote(req) {
      return jsonDocument(quote(resolve(deps.dataset(), req.symbol)));
    },

    async getQuotes(req) {
      if (req.symbols.length === 0) throw RpcError.invalidArgument('symbols', 'give at least one symbol');
      if (req.symbols.length > MAX_BATCH_QUOTES)
        throw RpcError.invalidArgument('symbols', `at most ${MAX_BATCH_QUOTES} symbols per request`);
      const ds = deps.dataset();
      const notFound: string[] = [];
      const data = req.symbols.map((symbol) => {
        const e = ds.resolve(symbol);
        if (e) return { requested: symbol, ...quote(e) };
        notFound.push(symbol);
        return {
          requested: symbol,
          symbol,
          error: { code: 'not_found', message: `no stock with symbol "${symbol}"` },
        };
      });
      return jsonDocument(data, {
        requested: req.symbols.length,
        found: data.length - notFound.length,
        not_found: notFound,
      });
    },

    async getPriceHistory(req) {
      const ds = deps.dataset();
      const e = resolve(ds, req.symbol);
      checkInt('days', req.days, 1, MAX_PRICE_DAYS);
      if (req.interval !== 'daily' && req.interval !== 'weekly')
        throw RpcError.invalidArgument('interval', 'interval must be daily or weekly');
      let window: ReturnType<typeof pageWindow>;
      try {
        window = pageWindow(
          { days: req.days, interval: req.interval, endDate: req.end_date },
          today(),
          e.firstDay,
        );
      } catch (err) {
        if (err instanceof CursorError) throw RpcError.invalidArgument('end_date', err.message);
        throw err;
      }
      const id = e.row.id;
      const [raw, previous] = await Promise.all([
        e.firstDay === undefined || e.firstDay > window.to ? [] : deps.bars.bars(id, window.from, window.to),
        e.firstDay !== undefined && e.firstDay < window.from
          ? deps.bars.previousBarDay(id, window.from)
          : undefined,
      ]);
      const adjusted = adjustBars(raw, e.actions);
      const weekly = req.interval === 'weekly';
      const bars = weekly ? weeklyBars(adjusted) : adjusted;
      return preserialized(barsJson(bars, weekly), {
        symbol: e.row.symbol,
        window: {
          from: formatDay(window.from),
          to: formatDay(window.to),
          days: req.days,
          interval: req.interval,
        },
        next_cursor: previous === undefined ? null : formatDay(previous),
        has_more: previous !== undefined,
        bars: bars.length,
        adjusted_for: ['split', 'bonus'],
      });
    },

    async getStockProfile(req) {
      const ds = deps.dataset();
      const e = resolve(ds, req.symbol);
      for (const s of req.include)
        if (!PROFILE_SECTIONS.includes(s as ProfileSection))
          throw RpcError.invalidArgument('include', `include takes ${PROFILE_SECTIONS.join(', ')}`);
      const last = e.lastBar?.d;
      const raw = last === undefined ? [] : await deps.bars.bars(e.row.id, last - PROFILE_HISTORY_DAYS, last);
      return jsonDocument(profile(ds, e, adjustBars(raw, e.actions), req.include as ProfileSection[]));
    },
  };
}
