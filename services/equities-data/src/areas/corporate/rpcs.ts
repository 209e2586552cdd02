import { jsonDocument, RpcError } from '@mdp/grpc';
import { DEAL_KINDS, type DealKind, hasFinancials, NEWS_CATEGORIES, type NewsRow } from '@mdp/market';
import { day, formatDay, istToday } from '@mdp/nse-calendar';
import type { AreaDeps } from '../area.ts';
import type { EquitiesDataset, StockEntry } from '../stocks/dataset.ts';
import type { EquitiesDataImpl } from '../stocks/rpcs.ts';
import type { CorporateData } from './data.ts';
import {
  dealDoc,
  forecastRow,
  newsDoc,
  pledgeQuarters,
  priceTargetDoc,
  ratingDoc,
  shareholdingDoc,
} from './documents.ts';
import { filingsOf } from './filings.ts';

type Corporate =
  | 'getShareholding'
  | 'getForecasts'
  | 'getPledge'
  | 'getRatings'
  | 'getDeals'
  | 'getStockEvents'
  | 'getMarketNews';

const EVENT_TYPES = ['news', 'corporate_actions', 'filings'] as const;
const SENTIMENTS = ['positive', 'negative', 'neutral'];

function resolve(ds: EquitiesDataset, symbol: string): StockEntry {
  const e = ds.resolve(symbol);
  if (!e) throw RpcError.notFound(`no stock with symbol "${symbol}"`);
  return e;
}

/** Shareholding, pledges and forecasts are company data: funds, bonds, REITs and the like have none. */
function company(ds: EquitiesDataset, symbol: string, what: string): StockEntry {
  const e = resolve(ds, symbol);
  if (e.row.stockType !== 'equity')
    throw RpcError.notFound(
      `${e.row.symbol} is ${e.row.stockType.replace('_', ' ')}, not a company: no ${what}`,
    );
  return e;
}

function checkLimit(limit: number, max: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw RpcError.invalidArgument('limit', `limit must be a whole number from 1 to ${max}`);
}

const symbolsOf = new WeakMap<EquitiesDataset, Map<number, string>>();
function symbolOf(ds: EquitiesDataset): (id: number) => string | undefined {
  let map = symbolsOf.get(ds);
  if (!map) {
    map = new Map(ds.entries.map((e) => [e.row.id, e.row.symbol]));
    symbolsOf.set(ds, map);
  }
  const m = map;
  return (id) => m.get(id);
}

/** Shareholding, forecasts, pledge, ratings, deals, per-stock events and market news. */
export function corporateRpcs(deps: AreaDeps<CorporateData>): Pick<EquitiesDataImpl, Corporate> {
  const today = () => day(istToday(deps.clock));
  return {
    async getShareholding(req) {
      const e = company(deps.dataset(), req.symbol, 'shareholding pattern');
      const quarters = deps.data().shareholding.get(e.row.id) ?? [];
      return jsonDocument(
        { symbol: e.row.symbol, name: e.row.name, quarters: shareholdingDoc(quarters) },
        { periods: quarters.length, order: 'oldest_first', unit: 'percent' },
      );
    },

    async getPledge(req) {
      const e = company(deps.dataset(), req.symbol, 'promoter pledge');
      const data = deps.data();
      const quarters = data.shareholding.get(e.row.id) ?? [];
      const events = (data.pledgeEvents.get(e.row.id) ?? []).map((p) => ({
        date: formatDay(p.d),
        kind: p.kind,
        shares: p.shares,
        pledgee: p.pledgee,
      }));
      return jsonDocument({
        symbol: e.row.symbol,
        name: e.row.name,
        quarters: pledgeQuarters(quarters),
        events,
      });
    },

    async getForecasts(req) {
      const e = company(deps.dataset(), req.symbol, 'analyst forecasts');
      const data = deps.data();
      const rows = data.forecasts.get(e.row.id) ?? [];
      return jsonDocument(
        {
          symbol: e.row.symbol,
          units: {
            revenue: 'INR crore',
            ebitda: 'INR crore',
            net_income: 'INR crore',
            eps: 'INR',
            roa: 'percent',
            roe: 'percent',
          },
          price_target: priceTargetDoc(data.targets.get(e.row.id), e),
          annual: rows.filter((r) => r.periodType === 'annual').map(forecastRow),
          quarterly: rows.filter((r) => r.periodType === 'quarterly').map(forecastRow),
        },
        { analysts: data.targets.get(e.row.id)?.analysts ?? 0 },
      );
    },

    async getRatings(req) {
      const e = resolve(deps.dataset(), req.symbol);
      return jsonDocument(e.ratings.map(ratingDoc), { symbol: e.row.symbol, count: e.ratings.length });
    },

    async getDeals(req) {
      const e = resolve(deps.dataset(), req.symbol);
      checkLimit(req.limit, 100);
      if (req.type !== undefined && !DEAL_KINDS.includes(req.type as DealKind))
        throw RpcError.invalidArgument('type', `type must be one of ${DEAL_KINDS.join(', ')}`);
      const all = (deps.data().deals.get(e.row.id) ?? []).filter(
        (d) => req.type === undefined || d.kind === req.type,
      );
      return jsonDocument(all.slice(0, req.limit).map(dealDoc), {
        symbol: e.row.symbol,
        type: req.type ?? 'all',
        limit: req.limit,
        total: all.length,
        has_more: all.length > req.limit,
      });
    },

    async getStockEvents(req) {
      const ds = deps.dataset();
      const e = resolve(ds, req.symbol);
      checkLimit(req.limit, 50);
      const data = deps.data();
      const meta = (total: number) => ({ symbol: e.row.symbol, type: req.type, limit: req.limit, total });
      if (req.type === 'news') {
        const news = data.newsOf.get(e.row.id) ?? [];
        return jsonDocument(
          news.slice(0, req.limit).map((n) => newsDoc(n, symbolOf(ds))),
          meta(news.length),
        );
      }
      if (req.type === 'corporate_actions') {
        const items = corporateActions(e, data);
        return jsonDocument(items.slice(0, req.limit), meta(items.length));
      }
      if (req.type === 'filings') {
        const company = hasFinancials(e.row);
        const filings = filingsOf({
          company,
          statements: company ? await data.financials.periods(e.row.id) : [],
          listedOn: e.row.listedOn,
          today: Math.min(today(), e.row.delistedOn ?? ds.lastDay ?? today()),
          analysts: data.targets.get(e.row.id)?.analysts ?? 0,
          actions: e.actions,
          events: data.events.get(e.row.id) ?? [],
          ratings: e.ratings,
          pledges: data.pledgeEvents.get(e.row.id) ?? [],
        });
        return jsonDocument(
          filings.slice(0, req.limit).map((f) => ({ date: formatDay(f.date), type: f.type, title: f.title })),
          meta(filings.length),
        );
      }
      throw RpcError.invalidArgument('type', `type must be one of ${EVENT_TYPES.join(', ')}`);
    },

    async getMarketNews(req) {
      checkLimit(req.limit, 50);
      if (req.sentiment !== undefined && !SENTIMENTS.includes(req.sentiment))
        throw RpcError.invalidArgument('sentiment', `sentiment must be one of ${SENTIMENTS.join(', ')}`);
      const category = req.category?.toLowerCase();
      if (category !== undefined && !NEWS_CATEGORIES.includes(category as NewsRow['category']))
        throw RpcError.invalidArgument('category', `category must be one of ${NEWS_CATEGORIES.join(', ')}`);
      const ds = deps.dataset();
      const items = deps
        .data()
        .news.filter(
          (n) =>
            (category === undefined || n.category === category) &&
            (req.sentiment === undefined || n.sentiment === req.sentiment),
        );
      return jsonDocument(
        items.slice(0, req.limit).map((n) => newsDoc(n, symbolOf(ds))),
        {
          limit: req.limit,
          total: items.length,
          category: category ?? null,
          sentiment: req.sentiment ?? null,
        },
      );
    },
  };
}

/**
 * Splits and bonuses exactly as the price history applies them (the dataset's actions), with the
 * dividends, AGMs and other actions of the corporate area; newest first by their key date.
 */
function corporateActions(e: StockEntry, data: CorporateData) {
  const items = [
    ...e.actions.map((a) => ({
      key: a.exDate,
      doc: {
        type: a.kind,
        ex_date: formatDay(a.exDate),
        record_date: formatDay(a.exDate),
        date: formatDay(a.exDate),
        ratio: { new: a.ratioNew, old: a.ratioOld },
        amount: null,
        description: a.description,
      },
    })),
    ...(data.events.get(e.row.id) ?? []).map((ev) => {
      const key = ev.exDate ?? ev.eventDate ?? ev.recordDate ?? 0;
      return {
        key,
        doc: {
          type: ev.kind,
          ex_date: ev.exDate === null ? null : formatDay(ev.exDate),
          record_date: ev.recordDate === null ? null : formatDay(ev.recordDate),
          date: formatDay(key),
          ratio: null,
          amount: ev.amount,
          description: ev.description,
        },
      };
    }),
  ];
  return items.sort((a, b) => b.key - a.key).map((i) => i.doc);
}
