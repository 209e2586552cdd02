import { status } from '@mdp/grpc';
import { FILING_TYPES } from '@mdp/market';
import { day, formatDay } from '@mdp/nse-calendar';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CorporateData } from '../../src/areas/corporate/data.ts';
import { surprisePct } from '../../src/areas/corporate/documents.ts';
import { corporateRpcs } from '../../src/areas/corporate/rpcs.ts';
import { financialsRpcs } from '../../src/areas/financials/rpcs.ts';
import { stockRpcs } from '../../src/areas/stocks/rpcs.ts';
import { clockAt, ctx, readDocument, rpcError, smallDataset } from '../support.ts';
import { memoryCorporate } from './support.ts';

const mem = smallDataset(600, day('2026-11-20'), 5);
const clock = clockAt('2026-11-22');
let data: CorporateData;
let rpc: ReturnType<typeof corporateRpcs>;
const entries = mem.dataset.entries;
const equities = entries.filter(
  (e) => e.row.status === 'listed' && e.row.stockType === 'equity' && e.lastBar,
);
const etf = entries.find((e) => e.row.stockType === 'etf')!;
const symbols = new Set(entries.map((e) => e.row.symbol));

beforeAll(async () => {
  data = (await memoryCorporate(mem)).data;
  rpc = corporateRpcs({ dataset: () => mem.dataset, bars: mem.source, clock, data: () => data });
});

describe('shareholding', () => {
  it('gives every quarter held of every listed equity, each summing to 100, oldest first', async () => {
    expect(equities.length).toBeGreaterThan(250);
    for (const e of equities) {
      const { data: doc, meta } = readDocument(await rpc.getShareholding({ symbol: e.row.symbol }, ctx));
      expect(doc.symbol).toBe(e.row.symbol);
      expect(meta.periods).toBe(doc.quarters.length);
      // A company listed before the last filed quarter (30 Sep 2026, filed by 21 Oct) has it.
      if (e.row.listedOn !== null && e.row.listedOn <= day('2026-09-30'))
        expect(doc.quarters.at(-1).quarter_end).toBe('2026-09-30');
      for (const q of doc.quarters) {
        const sum = q.promoter + q.fii + q.dii + q.government + q.public;
        expect(Math.round(sum * 100), `${e.row.symbol} ${q.quarter_end}`).toBe(10_000);
      }
      const ends = doc.quarters.map((q: { quarter_end: string }) => q.quarter_end);
      expect(ends).toEqual([...ends].sort());
    }
  });

  it('answers 404 for an ETF and for an unknown symbol', async () => {
    const err = await rpcError(rpc.getShareholding({ symbol: etf.row.symbol }, ctx));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.message).toContain('etf');
    expect((await rpcError(rpc.getShareholding({ symbol: 'NOSUCHCO' }, ctx))).code).toBe(status.NOT_FOUND);
    expect((await rpcError(rpc.getPledge({ symbol: etf.row.symbol }, ctx))).code).toBe(status.NOT_FOUND);
    expect((await rpcError(rpc.getForecasts({ symbol: etf.row.symbol }, ctx))).code).toBe(status.NOT_FOUND);
  });
});

describe('pledge', () => {
  it('is the pledged share of the promoter holding of the same quarter, for every listed equity', async () => {
    let pledged = 0;
    for (const e of equities) {
      const [{ data: sh }, { data: pl }] = await Promise.all([
        rpc.getShareholding({ symbol: e.row.symbol }, ctx).then(readDocument),
        rpc.getPledge({ symbol: e.row.symbol }, ctx).then(readDocument),
      ]);
      expect(pl.quarters.map((q: { quarter_end: string }) => q.quarter_end)).toEqual(
        sh.quarters.map((q: { quarter_end: string }) => q.quarter_end),
      );
      type PledgeQuarter = {
        promoter_holding_pct: number;
        pledged_pct_of_promoter: number;
        pledged_pct_of_total: number;
      };
      pl.quarters.forEach((q: PledgeQuarter, i: number) => {
        expect(q.promoter_holding_pct).toBe(sh.quarters[i].promoter);
        expect(q.pledged_pct_of_promoter).toBeLessThanOrEqual(100);
        expect(q.pledged_pct_of_total).toBeLessThanOrEqual(q.promoter_holding_pct);
        expect(q.pledged_pct_of_total).toBeCloseTo(
          (q.promoter_holding_pct * q.pledged_pct_of_promoter) / 100,
          2,
        );
        if (q.pledged_pct_of_promoter > 0) pledged++;
      });
      const dates = pl.events.map((x: { date: string }) => x.date);
      expect(dates).toEqual([...dates].sort().reverse());
    }
    expect(pledged).toBeGreaterThan(0);
  });
});

describe('forecasts', () => {
  it('reports actuals equal to the annual results and surprise % computed from them', async () => {
    let checked = 0;
    for (const e of equities) {
      const { data: doc } = readDocument(await rpc.getForecasts({ symbol: e.row.symbol }, ctx));
      for (const row of [...doc.annual, ...doc.quarterly])
        for (const m of ['revenue', 'ebitda', 'net_income', 'eps', 'roa', 'roe']) {
          const { estimate, actual, surprise_pct } = row[m];
          expect(surprise_pct).toBe(
            actual === null || estimate === 0
              ? null
              : Math.round(((actual - estimate) / Math.abs(estimate)) * 10_000) / 100,
          );
        }
      for (const row of doc.annual.filter((r: { reported: boolean }) => r.reported)) {
        const year = e.annual.find((a) => `FY${a.fiscalYear}` === row.period)!;
        expect(row.revenue.actual).toBeCloseTo(year.sales, 1);
        expect(row.net_income.actual).toBeCloseTo(year.netProfit, 1);
        checked++;
      }
      const periods = doc.annual.map((r: { period_end: string }) => r.period_end);
      expect(periods).toEqual([...periods].sort());
      if (doc.annual.length > 0) expect(doc.price_target.analysts).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('computes surprise % against the absolute estimate, null without an actual', () => {
    expect(surprisePct(100, 110)).toBe(10);
    expect(surprisePct(-50, -40)).toBe(20);
    expect(surprisePct(80, null)).toBeNull();
    expect(surprisePct(0, 5)).toBeNull();
  });
});

describe('ratings', () => {
  it('lists every rating action of the stock, newest first; the profile shows the ratings in force', async () => {
    const rated = equities.filter((e) => e.ratings.length > 0);
    expect(rated.length).toBeGreaterThan(20);
    for (const e of rated) {
      const { data: doc } = readDocument(await rpc.getRatings({ symbol: e.row.symbol }, ctx));
      const expected = mem.generated.ratings.filter((r) => r.stockId === e.row.id);
      expect(doc.map((r: { date: string }) => r.date)).toEqual(expected.map((r) => formatDay(r.ratedOn)));
      expect(doc.map((r: { instrument: string }) => r.instrument)).toEqual(expected.map((r) => r.instrument));
      for (const r of doc) expect(['upgrade', 'downgrade', 'reaffirm', 'assigned']).toContain(r.action);
    }
    const stock = stockRpcs({ dataset: () => mem.dataset, bars: mem.source, clock });
    for (const e of rated.slice(0, 30)) {
      const { data: profile } = readDocument(
        await stock.getStockProfile({ symbol: e.row.symbol, include: ['ratings'] }, ctx),
      );
      const inForce = new Map<string, (typeof e.ratings)[number]>();
      for (const r of [...e.ratings].sort((a, b) => b.ratedOn - a.ratedOn))
        if (!inForce.has(`${r.agency}|${r.instrument}`)) inForce.set(`${r.agency}|${r.instrument}`, r);
      expect(profile.ratings.credit_ratings).toEqual(
        [...inForce.values()].map((r) => ({
          agency: r.agency,
          instrument: r.instrument,
          rating: r.rating,
          outlook: r.outlook,
          action: r.action,
          date: formatDay(r.ratedOn),
        })),
      );
    }
  });
});

describe('deals', () => {
  const withDeals = () => equities.filter((e) => (data.deals.get(e.row.id)?.length ?? 0) > 3);

  it('filters by type, newest first, with value = price × quantity', async () => {
    const kinds = new Set<string>();
    for (const e of withDeals()) {
      const { data: all, meta } = readDocument(await rpc.getDeals({ symbol: e.row.symbol, limit: 100 }, ctx));
      expect(meta.type).toBe('all');
      const dates = all.map((d: { date: string }) => d.date);
      expect(dates).toEqual([...dates].sort().reverse());
      for (const d of all) {
        kinds.add(d.type);
        expect(d.value).toBeCloseTo(d.price * d.quantity, 1);
        expect(['buy', 'sell']).toContain(d.side);
      }
      for (const type of ['bulk', 'block', 'insider', 'sast']) {
        const { data: some } = readDocument(
          await rpc.getDeals({ symbol: e.row.symbol, type, limit: 100 }, ctx),
        );
        expect(some).toEqual(all.filter((d: { type: string }) => d.type === type));
      }
    }
    expect(kinds).toEqual(new Set(['bulk', 'block', 'insider', 'sast']));
  });

  it('honours limit 1..100 and reports has_more; rejects other limits and types', async () => {
    const e = withDeals()[0]!;
    const { data: one, meta } = readDocument(await rpc.getDeals({ symbol: e.row.symbol, limit: 1 }, ctx));
    expect(one).toHaveLength(1);
    expect(meta).toMatchObject({ limit: 1, has_more: true });
    expect(meta.total).toBe(data.deals.get(e.row.id)!.length);
    for (const limit of [0, 101, 2.5]) {
      const err = await rpcError(rpc.getDeals({ symbol: e.row.symbol, limit }, ctx));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'limit']);
    }
    const err = await rpcError(rpc.getDeals({ symbol: e.row.symbol, type: 'otc', limit: 5 }, ctx));
    expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'type']);
    expect((await rpcError(rpc.getDeals({ symbol: 'NOSUCHCO', limit: 5 }, ctx))).code).toBe(status.NOT_FOUND);
  });
});

describe('events', () => {
  it('lists splits and bonuses exactly as the price history applies them, with dividends and AGMs', async () => {
    let splits = 0;
    for (const e of equities) {
      const { data: items } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type: 'corporate_actions', limit: 50 }, ctx),
      );
      const actions = items.filter((i: { type: string }) => i.type === 'split' || i.type === 'bonus');
      const expected = mem.generated.actions.filter((a) => a.stockId === e.row.id);
      expect(
        actions.map((a: { ex_date: string; type: string; ratio: { new: number; old: number } }) => [
          a.ex_date,
          a.type,
          a.ratio.new,
          a.ratio.old,
        ]),
      ).toEqual(
        expected
          .sort((a, b) => b.exDate - a.exDate)
          .map((a) => [formatDay(a.exDate), a.kind, a.ratioNew, a.ratioOld]),
      );
      splits += actions.length;
      const dates = items.map((i: { date: string }) => i.date);
      expect(dates).toEqual([...dates].sort().reverse());
      // FY2026's AGM falls in August or September 2026.
      if (
        e.row.listedOn !== null &&
        e.row.listedOn < day('2026-07-01') &&
        e.annual.some((a) => a.fiscalYear === 2026)
      )
        expect(
          items.some((i: { type: string; date: string }) => i.type === 'agm' && i.date > '2026-07-15'),
        ).toBe(true);
    }
    expect(splits).toBeGreaterThan(0);
  });

  it('gives a stock the news related to it, newest first, with related symbols from the stock master', async () => {
    let seen = 0;
    for (const e of equities) {
      const { data: news } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type: 'news', limit: 50 }, ctx),
      );
      const times = news.map((n: { published_at: string }) => n.published_at);
      expect(times).toEqual([...times].sort().reverse());
      for (const n of news) {
        expect(n.related_symbols).toContain(e.row.symbol);
        for (const s of n.related_symbols) expect(symbols.has(s)).toBe(true);
        expect(['positive', 'negative', 'neutral']).toContain(n.sentiment);
      }
      seen += news.length;
    }
    expect(seen).toBeGreaterThan(equities.length);
  });

  it('lists filings of every kind, newest first, with each credit-rating action among them', async () => {
    const types = new Set<string>();
    for (const e of equities.slice(0, 80)) {
      const { data: filings } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type: 'filings', limit: 50 }, ctx),
      );
      const dates = filings.map((f: { date: string }) => f.date);
      expect(dates).toEqual([...dates].sort().reverse());
      for (const f of filings) {
        expect(FILING_TYPES).toContain(f.type);
        expect(f.date <= '2026-11-20').toBe(true);
        types.add(f.type);
      }
    }
    expect(types).toEqual(new Set(FILING_TYPES));
    const rated = equities.find((e) => e.ratings.length > 0)!;
    const { data: all } = readDocument(
      await rpc.getStockEvents({ symbol: rated.row.symbol, type: 'filings', limit: 50 }, ctx),
    );
    const ratingFilings = all.filter((f: { type: string }) => f.type === 'credit_rating');
    const oldest = all.at(-1).date;
    expect(ratingFilings.map((f: { date: string }) => f.date)).toEqual(
      rated.ratings.map((r) => formatDay(r.ratedOn)).filter((d) => d >= oldest),
    );
  });

  it("dates results, presentations, call transcripts and annual reports on the financials route's available_from", async () => {
    const financials = financialsRpcs({
      dataset: () => mem.dataset,
      bars: mem.source,
      clock,
      data: () => data.financials,
    });
    const dated = new Set(['results', 'presentation', 'concall_transcript', 'annual_report']);
    const types = new Set<string>();
    for (const e of equities.slice(0, 60)) {
      const { data: filings } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type: 'filings', limit: 50 }, ctx),
      );
      const doc = readDocument(
        await financials.getFinancials({ symbol: e.row.symbol, periods: 40 }, ctx),
      ).data;
      const filed = new Map<string, string>(
        [...doc.quarterly.availability, ...doc.profit_loss.availability].map(
          (a: { period_end: string; available_from: string }) => [a.period_end, a.available_from],
        ),
      );
      for (const f of filings as { date: string; type: string; title: string }[]) {
        if (!dated.has(f.type)) continue;
        const ended = /ended (\d{4}-\d{2}-\d{2})/.exec(f.title)?.[1];
        expect(ended && filed.get(ended), `${e.row.symbol}: ${f.title}`).toBe(f.date);
        types.add(f.type);
      }
    }
    expect(types).toEqual(dated);
  });

  it('honours limit 1..50 and rejects unknown types', async () => {
    const e = equities[0]!;
    for (const type of ['news', 'corporate_actions', 'filings']) {
      const { data: two } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type, limit: 2 }, ctx),
      );
      expect(two.length).toBeLessThanOrEqual(2);
    }
    for (const limit of [0, 51]) {
      const err = await rpcError(rpc.getStockEvents({ symbol: e.row.symbol, type: 'news', limit }, ctx));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'limit']);
    }
    const err = await rpcError(rpc.getStockEvents({ symbol: e.row.symbol, type: 'tweets', limit: 5 }, ctx));
    expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'type']);
    const missing = await rpcError(rpc.getStockEvents({ symbol: 'NOSUCHCO', type: 'news', limit: 5 }, ctx));
    expect(missing.code).toBe(status.NOT_FOUND);
  });
});

describe('funds, bonds and delisted companies', () => {
  it('answer ratings, deals and events with what they have: no company filings for an ETF', async () => {
    expect(readDocument(await rpc.getRatings({ symbol: etf.row.symbol }, ctx)).data).toEqual([]);
    expect(readDocument(await rpc.getDeals({ symbol: etf.row.symbol, limit: 10 }, ctx)).data).toEqual([]);
    for (const type of ['news', 'filings']) {
      const { data: items } = readDocument(
        await rpc.getStockEvents({ symbol: etf.row.symbol, type, limit: 50 }, ctx),
      );
      expect(items).toEqual([]);
    }
  });

  it('list a delisted company’s filings up to its delisting only', async () => {
    const gone = entries.filter(
      (e) => e.row.status === 'delisted' && e.row.stockType === 'equity' && e.row.delistedOn,
    );
    expect(gone.length).toBeGreaterThan(0);
    for (const e of gone) {
      const { data: filings } = readDocument(
        await rpc.getStockEvents({ symbol: e.row.symbol, type: 'filings', limit: 50 }, ctx),
      );
      for (const f of filings) expect(f.date <= formatDay(e.row.delistedOn!)).toBe(true);
    }
  });
});

describe('market news', () => {
  it('serves the same feed as the per-stock news, newest first, filtered by category and sentiment', async () => {
    const { data: latest, meta } = readDocument(await rpc.getMarketNews({ limit: 50 }, ctx));
    expect(latest).toHaveLength(50);
    expect(meta.total).toBe(data.news.length);
    const times = latest.map((n: { published_at: string }) => n.published_at);
    expect(times).toEqual([...times].sort().reverse());
    for (const n of data.news.slice(0, 500))
      for (const id of n.stockIds) expect(equities.some((e) => e.row.id === id)).toBe(true);
    const { data: companies } = readDocument(
      await rpc.getMarketNews({ limit: 50, category: 'results', sentiment: 'negative' }, ctx),
    );
    expect(companies.length).toBeGreaterThan(0);
    for (const n of companies) expect([n.category, n.sentiment]).toEqual(['results', 'negative']);
    const someone = latest.find((n: { category: string }) => n.category === 'companies') ?? latest[0];
    const symbol = someone.related_symbols[0];
    const { data: own } = readDocument(await rpc.getStockEvents({ symbol, type: 'news', limit: 50 }, ctx));
    expect(own.map((n: { id: number }) => n.id)).toContain(someone.id);
  });

  it('honours limit and rejects an unknown category or sentiment', async () => {
    expect(readDocument(await rpc.getMarketNews({ limit: 3 }, ctx)).data).toHaveLength(3);
    for (const [req, param] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 51 }, 'limit'],
      [{ limit: 5, category: 'sports' }, 'category'],
      [{ limit: 5, sentiment: 'angry' }, 'sentiment'],
    ] as const) {
      const err = await rpcError(rpc.getMarketNews(req, ctx));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, param]);
    }
  });
});
