import { status } from '@mdp/grpc';
import { day, formatDay, weekStart } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { adjustBars } from '../../src/areas/stocks/domain/adjust.ts';
import { stockRpcs } from '../../src/areas/stocks/rpcs.ts';
import { clockAt, ctx, readDocument, rpcError, smallDataset } from '../support.ts';

const mem = smallDataset(160, day('2026-11-20'), 21);
const rpc = stockRpcs({ dataset: () => mem.dataset, bars: mem.source, clock: clockAt('2026-11-22') });
const listed = mem.dataset.entries.filter((e) => e.row.status === 'listed' && e.lastBar);
const biggest = listed[0]!;

describe('search', () => {
  it('answers SPEC 2.2 items with total, limit and offset in meta', async () => {
    const { data, meta } = readDocument(
      await rpc.searchStocks({ q: biggest.row.name.split(' ')[0]!, limit: 5 }, ctx),
    );
    expect(meta).toMatchObject({ limit: 5, offset: 0 });
    expect(meta.total).toBeGreaterThanOrEqual(data.length);
    for (const item of data) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'bse_code',
          'industry',
          'is_active',
          'macro_sector',
          'name',
          'nse_symbol',
          'sector',
          'stock_type',
          'symbol',
        ].sort(),
      );
      expect(typeof item.is_active).toBe('boolean');
    }
    expect(data[0].symbol).toBe(biggest.row.symbol);
  });

  it('finds a stock by its exact symbol first', async () => {
    const { data } = readDocument(
      await rpc.searchStocks({ q: biggest.row.symbol.toLowerCase(), limit: 10 }, ctx),
    );
    expect(data[0].symbol).toBe(biggest.row.symbol);
  });
});

describe('quotes', () => {
  it('gives LTP, change, change %, volume, market cap, PE, PB and the 52-week range', async () => {
    const { data: q } = readDocument(await rpc.getStockQuote({ symbol: biggest.row.symbol }, ctx));
    const bars = mem.bars.get(biggest.row.id)!;
    const [prev, last] = bars.slice(-2);
    expect(q.ltp).toBe(last!.close / 100);
    expect(q.as_of).toBe(formatDay(last!.d));
    expect(q.prev_close).toBe(prev!.close / 100);
    expect(q.change).toBeCloseTo(q.ltp - q.prev_close, 2);
    expect(q.change_pct).toBeCloseTo(((q.ltp - q.prev_close) / q.prev_close) * 100, 1);
    expect(q.volume).toBe(last!.volume);
    expect(q.market_cap_cr).toBeCloseTo((biggest.row.sharesOutstanding! * q.ltp) / 1e7, 0);
    expect(q.pe).toBeGreaterThan(0);
    expect(q.pb).toBeGreaterThan(0);
    expect(q.week_52_high).toBeGreaterThanOrEqual(q.ltp);
    expect(q.week_52_low).toBeLessThanOrEqual(q.ltp);
  });

  it('looks a stock up by symbol, BSE code, ISIN or former symbol, in any case', async () => {
    const withCode = listed.find((e) => e.row.bseCode && e.row.nseSymbol)!;
    for (const key of [withCode.row.bseCode!, withCode.row.isin!, withCode.row.symbol.toLowerCase()])
      expect(readDocument(await rpc.getStockQuote({ symbol: key }, ctx)).data.symbol).toBe(
        withCode.row.symbol,
      );
    const renamed = mem.generated.aliases.find((a) => a.kind === 'former_symbol');
    if (renamed) {
      const { data } = readDocument(await rpc.getStockQuote({ symbol: renamed.alias }, ctx));
      expect(data.symbol).toBe(mem.generated.stocks[renamed.stockId - 1]!.symbol);
    }
  });

  it('answers NOT_FOUND for an unknown symbol', async () => {
    const err = await rpcError(rpc.getStockQuote({ symbol: 'NOSUCHCO' }, ctx));
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it('batches up to 20 symbols in request order and reports unknown ones per symbol', async () => {
    const symbols = [
      ...listed.slice(0, 18).map((e) => e.row.symbol),
      'NOSUCHCO',
      listed[0]!.row.bseCode ?? 'X1',
    ];
    const { data, meta } = readDocument(await rpc.getQuotes({ symbols }, ctx));
    expect(data).toHaveLength(20);
    expect(data.map((d: { requested: string }) => d.requested)).toEqual(symbols);
    expect(data[18]).toMatchObject({ requested: 'NOSUCHCO', error: { code: 'not_found' } });
    expect(meta.not_found).toContain('NOSUCHCO');
    expect(meta.requested).toBe(20);
    const err = await rpcError(rpc.getQuotes({ symbols: [...symbols, 'ONEMORE'] }, ctx));
    expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'symbols']);
  });
});

describe('price history', () => {
  const withAction = mem.generated.actions[0]!;
  const stock = mem.dataset.entries.find((e) => e.row.id === withAction.stockId)!;

  async function pageAll(symbol: string, days: number, interval: 'daily' | 'weekly') {
    const pages: { data: { date: string; close: number }[]; meta: Record<string, unknown> }[] = [];
    let endDate: string | undefined;
    for (let i = 0; i < 500; i++) {
      const page = readDocument(
        await rpc.getPriceHistory({ symbol, days, interval, end_date: endDate }, ctx),
      );
      pages.push(page);
      if (!page.meta.has_more) break;
      endDate = page.meta.next_cursor as string;
    }
    return pages;
  }

  it('pages back from today to the first bar: every bar exactly once, no gaps, adjusted for splits', async () => {
    const pages = await pageAll(stock.row.symbol, 90, 'daily');
    const served = pages.reverse().flatMap((p) => p.data);
    const expected = adjustBars(mem.bars.get(stock.row.id)!, [withAction]);
    expect(served.map((b) => b.date)).toEqual(expected.map((b) => formatDay(b.d)));
    expect(served.map((b) => b.close)).toEqual(expected.map((b) => b.close));
    expect(pages[0]!.meta).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('states the served window and the next cursor in meta', async () => {
    const { meta } = readDocument(
      await rpc.getPriceHistory({ symbol: stock.row.symbol, days: 2000, interval: 'daily' }, ctx),
    );
    expect(meta.window).toEqual({
      from: formatDay(day('2026-11-22') - 1999),
      to: '2026-11-22',
      days: 2000,
      interval: 'daily',
    });
    expect(meta.has_more).toBe(true);
    expect(meta.next_cursor < meta.window.from).toBe(true);
  });

  it('aggregates weekly bars correctly and never splits a week between pages', async () => {
    const pages = await pageAll(stock.row.symbol, 45, 'weekly');
    const weeks = pages.reverse().flatMap((p) => p.data) as unknown as {
      date: string;
      open: number;
      high: number;
      low: number;
      close: number;
      volume: number;
    }[];
    const daily = adjustBars(mem.bars.get(stock.row.id)!, [withAction]);
    const byWeek = new Map<number, typeof daily>();
    for (const b of daily) byWeek.set(weekStart(b.d), [...(byWeek.get(weekStart(b.d)) ?? []), b]);
    expect(weeks.map((w) => w.date)).toEqual([...byWeek.keys()].map(formatDay));
    for (const w of weeks) {
      const days = byWeek.get(day(w.date))!;
      expect(w.open).toBe(days[0]!.open);
      expect(w.close).toBe(days.at(-1)!.close);
      expect(w.high).toBe(Math.max(...days.map((b) => b.high)));
      expect(w.low).toBe(Math.min(...days.map((b) => b.low)));
      expect(w.volume).toBe(days.reduce((a, b) => a + b.volume, 0));
    }
  });

  it('refuses an end_date it could not have issued, naming end_date', async () => {
    const first = formatDay(stock.firstDay!);
    for (const end_date of ['2026-11-23', '2026-02-30', formatDay(stock.firstDay! - 1)]) {
      const err = await rpcError(
        rpc.getPriceHistory({ symbol: stock.row.symbol, days: 30, interval: 'daily', end_date }, ctx),
      );
      expect([err.code, err.param], end_date).toEqual([status.INVALID_ARGUMENT, 'end_date']);
    }
    const { data } = readDocument(
      await rpc.getPriceHistory(
        { symbol: stock.row.symbol, days: 1, interval: 'daily', end_date: first },
        ctx,
      ),
    );
    expect(data.map((b: { date: string }) => b.date)).toEqual([first]);
  });
});

describe('profile', () => {
  it('has identity, fundamentals, price metrics, growth and the quote, plus requested sections', async () => {
    const { data } = readDocument(
      await rpc.getStockProfile(
        { symbol: biggest.row.symbol, include: ['technicals', 'ratings', 'peers'] },
        ctx,
      ),
    );
    expect(data).toMatchObject({ symbol: biggest.row.symbol, isin: biggest.row.isin, is_active: true });
    expect(data.fundamentals.pe).toBeGreaterThan(0);
    expect(data.fundamentals.roe_pct).not.toBeNull();
    expect(data.price_metrics.week_52.high).toBeGreaterThanOrEqual(data.price_metrics.week_52.low);
    expect(data.growth.compounded_sales_growth_pct['5y']).not.toBeNull();
    expect(data.growth.growth_rates).toHaveLength(10);
    expect(data.quote.symbol).toBe(biggest.row.symbol);
    expect(data.technicals.sma['200']).toBeGreaterThan(0);
    expect(data.technicals.rsi_14).toBeGreaterThanOrEqual(0);
    expect(data.technicals.rsi_14).toBeLessThanOrEqual(100);
    expect(Array.isArray(data.ratings.credit_ratings)).toBe(true);
    expect(data.peers.every((p: { industry: string }) => p.industry === biggest.row.industry)).toBe(true);
    const caps = data.peers.map((p: { market_cap_cr: number }) => p.market_cap_cr);
    expect(caps).toEqual([...caps].sort((a, b) => b - a));
  });

  it('leaves sections out unless asked for', async () => {
    const { data } = readDocument(
      await rpc.getStockProfile({ symbol: biggest.row.symbol, include: [] }, ctx),
    );
    expect(data.technicals).toBeUndefined();
    expect(data.peers).toBeUndefined();
  });
});
