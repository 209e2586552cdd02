import { describe, expect, it } from 'vitest';
import { get, ok, platform } from './client.ts';

// The default datasets of one generated market, loaded with the data tools as an operator runs them,
// served by the real processes and read through the gateway: every route of the stock, index and
// market areas answers, and the services agree with each other on prices.
const s = () => encodeURIComponent(platform.symbols.stock);

describe('one generated market behind every service', () => {
  it("prices a stock's options at the equities quote of the same session", async () => {
    const quote = await ok(`/v1/stocks/${s()}/quote`);
    const options = await ok(`/v1/stocks/${s()}/options`);
    expect(options.data.underlying_price).toBe(quote.data.ltp);
    expect(options.data.trade_date).toBe(quote.data.as_of);
  });

  it("prices NIFTY options at the NIFTY 50 index's close", async () => {
    const chain = await ok('/v1/options/NIFTY/chain?strikes=2');
    const history = await ok(`/v1/indices/${encodeURIComponent('nifty 50')}/history?interval=1m`);
    const last = history.data.bars.at(-1);
    expect(last.date).toBe(chain.data.trade_date);
    expect(chain.data.underlying_price).toBeCloseTo(last.close, 2);
  });
});

describe('stock routes of the corporate and financial areas', () => {
  it('serves financials with every section spelling and the quarters alias', async () => {
    const all = await ok(`/v1/stocks/${s()}/financials`);
    for (const section of ['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow', 'ratios'])
      expect(all.data[section].periods.length, section).toBeGreaterThan(0);
    const pnl = await ok(`/v1/stocks/${s()}/financials?section=pnl&quarters=3`);
    expect(pnl.data.profit_loss.periods).toEqual(all.data.profit_loss.periods.slice(-3));
    expect(pnl.data.balance_sheet).toBeUndefined();
    expect((await get(`/v1/stocks/${encodeURIComponent(platform.symbols.etf)}/financials`)).status).toBe(404);
  });

  it('serves shareholding, forecasts, pledge, ratings, deals and every event type', async () => {
    for (const route of ['shareholding', 'forecasts', 'pledge', 'ratings'])
      await ok(`/v1/stocks/${s()}/${route}`);
    const deals = await ok(`/v1/stocks/${s()}/deals?type=bulk&limit=5`);
    expect(deals.data.length).toBeLessThanOrEqual(5);
    for (const type of ['news', 'corporate_actions', 'filings']) {
      const events = await ok(`/v1/stocks/${s()}/events?type=${type}&limit=3`);
      expect(events.data.length, type).toBeLessThanOrEqual(3);
    }
    const bad = await get(`/v1/stocks/${s()}/events?type=rumours`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.param).toBe('type');
  });
});

describe('index and market routes', () => {
  it('ranks indices by names (case-insensitive) and names an unknown one', async () => {
    const ranked = await ok(
      `/v1/indices?names=${encodeURIComponent('nifty 50,NIFTY BANK')}&granularity=month`,
    );
    expect(ranked.data.map((r: { name: string }) => r.name).sort()).toEqual(['NIFTY 50', 'NIFTY BANK']);
    const bad = await get('/v1/indices?names=NIFTY%2050,NIFTY%20NOPE');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.param).toBe('names');
    expect(bad.body.error.message).toContain('NIFTY NOPE');
    const losers = await ok('/v1/indices?category=sectoral&order=losers&limit=5');
    const returns = losers.data.map((r: { return_pct: number }) => r.return_pct);
    expect(returns).toEqual([...returns].sort((a, b) => a - b));
  });

  it('serves FII/DII flows with a chart, valuations, news and FPI sectors', async () => {
    const flows = await ok('/v1/market/fii-dii?chart_interval=1m');
    expect(flows.data.sessions).toHaveLength(30);
    expect(flows.data.chart.points.length).toBeGreaterThan(15);
    const valuations = await ok('/v1/market/valuations?index=nifty-bank&years=1');
    expect(valuations.data.series.length).toBeGreaterThan(200);
    const news = await ok('/v1/market/news?limit=5&sentiment=positive');
    expect(news.data.every((n: { sentiment: string }) => n.sentiment === 'positive')).toBe(true);
    const fpi = await ok('/v1/market/fpi-sectors');
    const shares = fpi.data.sectors.map((x: { aum_share_pct: number }) => x.aum_share_pct);
    expect(shares.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(100, 6);
  });
});
