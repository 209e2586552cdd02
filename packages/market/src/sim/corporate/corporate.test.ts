import { day, formatDay, isTradingDay, istDay } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import type { BarRow } from '../../model.ts';
import { NEWS_CATEGORIES } from '../../vocabulary.ts';
import { generateDataset, latestReportedFiscalYear } from '../dataset.ts';
import { type FinancialStatementRow, generateFinancials } from '../financials/index.ts';
import { fiscalYearOf, periodLabel } from '../financials/statements.ts';
import { DEAL_HISTORY_DAYS, planDeals, priceDeals } from './deals.ts';
import { generateCorporateEvents } from './events.ts';
import { generateForecasts } from './forecasts.ts';
import { generateNews } from './news.ts';
import {
  FILING_LAG_DAYS,
  generateShareholding,
  pledgedShares,
  pledgeEvents,
  SHAREHOLDING_QUARTERS,
} from './shareholding.ts';
import { actionsByStock, listedEquities, sharesOn } from './universe.ts';

const END = day('2026-11-20');
const ds = generateDataset({ seed: 3, size: 800, endDay: END, historyDays: 2_200 });
const listed = listedEquities(ds);
const listedIds = new Set(listed.map((s) => s.id));
const holdings = generateShareholding(ds);
const events = generateCorporateEvents(ds);
const actions = actionsByStock(ds);
const stockOf = new Map(ds.stocks.map((s) => [s.id, s]));

describe('shareholding', () => {
  it('covers every listed equity, and only those', () => {
    const ids = new Set(holdings.map((h) => h.stockId));
    expect(listed.length).toBeGreaterThan(300);
    expect([...ids].every((id) => listedIds.has(id))).toBe(true);
    const old = listed.filter((s) => s.listedOn !== null && s.listedOn < END - 4 * 366);
    for (const s of old)
      expect(holdings.filter((h) => h.stockId === s.id)).toHaveLength(SHAREHOLDING_QUARTERS);
  });

  it('sums to exactly 100 in every quarter, with no negative holding', () => {
    for (const h of holdings) {
      const sum = Math.round((h.promoter + h.fii + h.dii + h.government + h.public) * 100);
      expect(sum, `${h.stockId} ${formatDay(h.quarterEnd)}`).toBe(10_000);
      expect(Math.min(h.promoter, h.fii, h.dii, h.government, h.public)).toBeGreaterThanOrEqual(0);
      expect(h.promoter + h.government).toBeLessThanOrEqual(75);
    }
  });

  it('holds quarter ends that were filed by the end day and that the company was listed in', () => {
    for (const h of holdings) {
      expect(['03-31', '06-30', '09-30', '12-31']).toContain(formatDay(h.quarterEnd).slice(5));
      expect(h.quarterEnd).toBeLessThanOrEqual(END - FILING_LAG_DAYS);
      const s = stockOf.get(h.stockId)!;
      if (s.listedOn !== null) expect(h.quarterEnd).toBeGreaterThanOrEqual(s.listedOn);
    }
  });

  it('pledges a share of the promoter holding only, and reports pledge events that match the changes', () => {
    expect(holdings.some((h) => h.pledgedOfPromoter > 0)).toBe(true);
    for (const h of holdings) {
      expect(h.pledgedOfPromoter).toBeGreaterThanOrEqual(0);
      expect(h.pledgedOfPromoter).toBeLessThanOrEqual(100);
      if (h.promoter === 0) expect(h.pledgedOfPromoter).toBe(0);
    }
    const pledges = pledgeEvents(ds, holdings);
    expect(pledges.length).toBeGreaterThan(0);
    for (const p of pledges) {
      const list = holdings.filter((h) => h.stockId === p.stockId);
      const i = list.findIndex((h) => h.quarterEnd >= p.d);
      expect(i).toBeGreaterThan(0);
      const now = stockOf.get(p.stockId)!.sharesOutstanding!;
      const delta = pledgedShares(list[i]!, now) - pledgedShares(list[i - 1]!, now);
      expect(p.kind).toBe(delta > 0 ? 'creation' : 'release');
      expect(p.shares).toBe(
        Math.round((Math.abs(delta) * sharesOn(now, actions.get(p.stockId) ?? [], p.d)) / now),
      );
      expect(isTradingDay(p.d)).toBe(true);
    }
  });
});

describe('forecasts', () => {
  const { forecasts, targets } = generateForecasts(ds);
  const statements = new Map<number, FinancialStatementRow[]>();
  generateFinancials(ds, (id, periods) => statements.set(id, periods));

  it('reports actuals equal to the statements and the annual results of every covered company', () => {
    const annual = new Map(ds.annual.map((a) => [`${a.stockId}:${a.fiscalYear}`, a]));
    let checked = 0;
    for (const f of forecasts) {
      expect(listedIds.has(f.stockId)).toBe(true);
      if (f.revenueAct === null) continue;
      const section = f.periodType === 'annual' ? 'profit_loss' : 'quarterly';
      const p = statements.get(f.stockId)!.find((x) => x.section === section && x.periodEnd === f.periodEnd)!;
      const bs = statements
        .get(f.stockId)!
        .filter((x) => x.section === 'balance_sheet' && x.periodEnd <= f.periodEnd)
        .sort((a, b) => a.periodEnd - b.periodEnd)
        .at(-1)!;
      expect(p.availableFrom).toBeLessThanOrEqual(END);
      // The same period label as the financials route, so clients can join the two.
      expect(f.period).toBe(periodLabel(section, f.periodEnd));
      expect(f.revenueAct).toBe(p.items.Revenue);
      expect(f.netIncomeAct).toBe(p.items['Net Profit']);
      expect(f.epsAct).toBe(p.items['EPS (Rs)']);
      expect(f.ebitdaAct).toBe(p.items['Operating Profit']);
      const scale = f.periodType === 'annual' ? 1 : 4;
      expect(f.roeAct).toBeCloseTo(((p.items['Net Profit']! * scale) / bs.items['Total Equity']!) * 100, 1);
      expect(f.roaAct).toBeCloseTo(((p.items['Net Profit']! * scale) / bs.items['Total Assets']!) * 100, 1);
      if (f.periodType === 'annual') {
        const a = annual.get(`${f.stockId}:${Number(f.period.slice(2))}`)!;
        expect(f.revenueAct).toBeCloseTo(a.sales, 1);
        expect(f.netIncomeAct).toBeCloseTo(a.netProfit, 1);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('has estimates only for periods not reported yet, after the reported ones', () => {
    const latestFy = latestReportedFiscalYear(END);
    const ahead = forecasts.filter((f) => f.revenueAct === null);
    expect(ahead.length).toBeGreaterThan(0);
    for (const f of ahead) {
      expect([f.ebitdaAct, f.netIncomeAct, f.epsAct, f.roaAct, f.roeAct]).toEqual([
        null,
        null,
        null,
        null,
        null,
      ]);
      const reported = forecasts.filter(
        (x) => x.stockId === f.stockId && x.periodType === f.periodType && x.revenueAct !== null,
      );
      expect(f.periodEnd).toBeGreaterThan(Math.max(...reported.map((x) => x.periodEnd)));
      if (f.periodType === 'annual') expect(Number(f.period.slice(2))).toBeGreaterThan(latestFy);
    }
  });

  it('gives each covered company a price target with consistent recommendation counts', () => {
    const covered = new Set(forecasts.map((f) => f.stockId));
    expect(new Set(targets.map((t) => t.stockId))).toEqual(covered);
    for (const t of targets) {
      expect(t.buy + t.hold + t.sell).toBe(t.analysts);
      expect(Math.min(t.buy, t.hold, t.sell)).toBeGreaterThanOrEqual(0);
      expect(t.low).toBeLessThanOrEqual(t.mean);
      expect(t.high).toBeGreaterThanOrEqual(t.mean);
    }
  });
});

describe('dividends and AGMs', () => {
  it('pays each year’s dividend per share as declared on the ex-date share count, AGM after the record date', () => {
    const annual = new Map(ds.annual.map((a) => [`${a.stockId}:${a.fiscalYear}`, a]));
    const dividends = events.filter((e) => e.kind === 'dividend');
    expect(dividends.length).toBeGreaterThan(100);
    for (const e of dividends) {
      const fy = Number(/FY(\d{4})/.exec(e.description)![1]);
      const a = annual.get(`${e.stockId}:${fy}`)!;
      const now = stockOf.get(e.stockId)!.sharesOutstanding!;
      const then = sharesOn(now, actions.get(e.stockId) ?? [], e.exDate!);
      expect(e.amount! * then).toBeCloseTo(a.dividendPs * now, -Math.log10(now) + 1);
      expect(isTradingDay(e.exDate!)).toBe(true);
      expect(e.recordDate).toBe(e.exDate);
      const agm = events.find(
        (x) => x.kind === 'agm' && x.stockId === e.stockId && x.description.includes(`FY${fy}`),
      )!;
      expect(agm.eventDate!).toBeGreaterThan(e.exDate!);
      expect(agm.eventDate!).toBeLessThanOrEqual(END);
    }
  });
});

describe('deals', () => {
  const plans = planDeals(ds);
  const bars = new Map<string, BarRow>();
  for (const id of new Set(plans.map((p) => p.stockId)))
    ds.emitBars(id, (b) => bars.set(`${b.stockId}:${b.d}`, b));
  const deals = priceDeals(ds, plans, (id, d) => bars.get(`${id}:${d}`));

  it('trades inside the day’s range, on trading days of the last two years', () => {
    expect(new Set(deals.map((d) => d.kind))).toEqual(new Set(['bulk', 'block', 'insider', 'sast']));
    for (const d of deals) {
      const bar = bars.get(`${d.stockId}:${d.d}`)!;
      expect(d.price).toBeGreaterThanOrEqual(bar.low);
      expect(d.price).toBeLessThanOrEqual(bar.high);
      expect(d.d).toBeGreaterThanOrEqual(END - DEAL_HISTORY_DAYS);
      expect(isTradingDay(d.d)).toBe(true);
      expect(listedIds.has(d.stockId)).toBe(true);
    }
  });

  it('sizes bulk deals at 0.5 % of the shares or more and block deals at Rs 10 crore or more', () => {
    for (const d of deals) {
      const shares = sharesOn(stockOf.get(d.stockId)!.sharesOutstanding!, actions.get(d.stockId) ?? [], d.d);
      if (d.kind === 'bulk') expect(d.quantity / shares).toBeGreaterThanOrEqual(0.00499);
      if (d.kind === 'block') expect(d.quantity * d.price).toBeGreaterThanOrEqual(1e10);
    }
  });
});

describe('news', () => {
  const news = generateNews(ds, events);

  it('relates every item to listed equities of the dataset, with a known category and sentiment', () => {
    expect(news.length).toBeGreaterThan(500);
    for (const n of news) {
      expect(n.stockIds.length).toBeGreaterThan(0);
      for (const id of n.stockIds) expect(listedIds.has(id)).toBe(true);
      expect(NEWS_CATEGORIES).toContain(n.category);
      expect(['positive', 'negative', 'neutral']).toContain(n.sentiment);
      expect(n.publishedAt).toBeLessThanOrEqual(Date.parse(`${formatDay(END)}T23:59:59+05:30`));
    }
    expect(new Set(news.map((n) => n.id)).size).toBe(news.length);
    expect(new Set(news.map((n) => n.category))).toEqual(new Set(NEWS_CATEGORIES));
  });

  it("dates each company's annual results on the day its statements say they were filed", () => {
    const filed = new Map<string, number>();
    generateFinancials(ds, (id, rows) => {
      for (const r of rows)
        if (r.section === 'profit_loss') filed.set(`${id} FY${fiscalYearOf(r.periodEnd)}`, r.availableFrom);
    });
    const results = news.filter((n) => n.category === 'results');
    expect(results.length).toBeGreaterThan(100);
    for (const n of results) {
      const fy = / (FY\d{4}) /.exec(n.headline)![1];
      const on = filed.get(`${n.stockIds[0]} ${fy}`);
      expect(on, n.headline).toBeDefined();
      expect(istDay(n.publishedAt), n.headline).toBe(formatDay(on!));
    }
  });

  it('tells rating actions with the agency, rating and matching sentiment', () => {
    const rated = news.filter((n) => / (upgrades|downgrades) /.test(n.headline));
    expect(rated.length).toBeGreaterThan(0);
    for (const n of rated) {
      const r = ds.ratings.find(
        (x) =>
          x.stockId === n.stockIds[0] &&
          n.headline.startsWith(`${x.agency} `) &&
          n.headline.endsWith(` at ${x.rating}`),
      );
      expect(r, n.headline).toBeDefined();
      expect(n.sentiment).toBe(n.headline.includes(' upgrades ') ? 'positive' : 'negative');
    }
  });
});

describe('credit ratings', () => {
  it('keeps a history per agency: newest first, assigned first, upgrades and downgrades one notch', () => {
    const scale = [
      'AAA',
      'AA+',
      'AA',
      'AA-',
      'A+',
      'A',
      'A-',
      'BBB+',
      'BBB',
      'BBB-',
      'BB+',
      'BB',
      'BB-',
      'B',
      'C',
      'D',
    ];
    const notch = (rating: string) => scale.indexOf(rating.split(/[\s\]]/).at(-1)!);
    const byAgency = new Map<string, typeof ds.ratings>();
    for (const r of ds.ratings) {
      const key = `${r.stockId}:${r.agency}:${r.instrument}`;
      byAgency.set(key, [...(byAgency.get(key) ?? []), r]);
    }
    expect([...byAgency.values()].some((h) => h.length > 2)).toBe(true);
    // Each agency writes its ratings its own way.
    const prefixes: Record<string, string> = {
      CRISIL: 'CRISIL ',
      ICRA: '[ICRA]',
      CARE: 'CARE ',
      'India Ratings': 'IND ',
      Acuite: 'ACUITE ',
      Brickwork: 'BWR ',
    };
    for (const r of ds.ratings)
      expect(r.rating.startsWith(prefixes[r.agency]!), `${r.agency} ${r.rating}`).toBe(true);
    expect(new Set(ds.ratings.map((r) => r.agency)).size).toBe(6);
    for (const history of byAgency.values()) {
      for (let i = 1; i < history.length; i++)
        expect(history[i]!.ratedOn).toBeLessThan(history[i - 1]!.ratedOn);
      expect(history.at(-1)!.action).toBe('assigned');
      for (let i = 0; i < history.length - 1; i++) {
        const [now, before] = [notch(history[i]!.rating), notch(history[i + 1]!.rating)];
        const expected = { upgrade: before - 1, downgrade: before + 1, reaffirm: before, assigned: now }[
          history[i]!.action
        ];
        expect(now).toBe(expected);
      }
    }
  });
});

describe('determinism', () => {
  it('gives the same corporate data for the same seed', () => {
    const again = generateDataset({ seed: 3, size: 800, endDay: END, historyDays: 2_200 });
    expect(generateShareholding(again)).toEqual(holdings);
    expect(generateCorporateEvents(again)).toEqual(events);
    expect(generateNews(again, events)).toEqual(generateNews(ds, events));
    expect(planDeals(again)).toEqual(planDeals(ds));
    expect(again.ratings).toEqual(ds.ratings);
  });
});
