import {
  type FinancialStatementRow,
  financialsByCompany,
  fiscalYearEnd,
  fiscalYearOf,
  latestReportedFiscalYear,
  periodLabel,
  quarterEnd,
} from '@mdp/market';
import { type DayNumber, day, formatDay, lastCompletedSession } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { defaultMarket, filingPeriod } from '../src/generate/companies.ts';
import { datasetFilings } from '../src/generate/dataset.ts';
import type { FilingSpec } from '../src/generate/filing.ts';

/** `Q2FY27` → quarter 2 of FY2027; `FY26` → FY2026. */
function parsePeriod(period: string): { fy: number; q?: 1 | 2 | 3 | 4 } {
  const m = /^(?:Q([1-4]))?FY(\d\d)$/.exec(period);
  if (!m) throw new Error(`not a period: ${period}`);
  return { fy: 2000 + Number(m[2]), q: m[1] ? (Number(m[1]) as 1 | 2 | 3 | 4) : undefined };
}
const periodEnd = (period: string): DayNumber => {
  const { fy, q } = parsePeriod(period);
  return q ? quarterEnd(fy, q) : fiscalYearEnd(fy);
};

/** The default dataset's filings (60 companies: annual reports and offer documents included) at `endDay`. */
function filingsAt(endDay: string) {
  const end = day(endDay);
  const filings = [...datasetFilings({ companies: 60, endDay: end })];
  const market = defaultMarket(end);
  const bySymbol = new Map<string, FilingSpec[]>();
  for (const f of filings) bySymbol.set(f.company.symbol, [...(bySymbol.get(f.company.symbol) ?? []), f]);
  const stocks = [...bySymbol.keys()].map((s) => market.stocks.find((x) => x.symbol === s)!);
  // The financials generator's own statements for these companies, as the equities financials route serves them.
  const statements = new Map<string, FinancialStatementRow[]>();
  for (const rows of financialsByCompany({ ...market, stocks }))
    statements.set(stocks.find((s) => s.id === rows[0]!.stockId)!.symbol, rows);
  /** The latest period of `section` a company's financials serve at the end day (available_from <= today). */
  const latestServed = (symbol: string, section: 'quarterly' | 'profit_loss') =>
    statements
      .get(symbol)!
      .filter((r) => r.section === section && r.availableFrom <= end)
      .sort((a, b) => b.periodEnd - a.periodEnd)[0]!;
  return { end, market, filings, bySymbol, stocks, latestServed };
}

describe('the generated filings are dated by the market end day', () => {
  const at = filingsAt('2026-11-27');

  it('the financials have reported Q2 FY2027 (July-September 2026) by 2026-11-27, and no later quarter', () => {
    // The claim checked against the financials generator itself before the filings are held to it.
    expect(formatDay(at.market.options.endDay)).toBe('2026-11-27');
    for (const s of at.stocks) {
      const q = at.latestServed(s.symbol, 'quarterly');
      expect(formatDay(q.periodEnd), s.symbol).toBe('2026-09-30');
      expect(periodLabel('quarterly', q.periodEnd)).toBe('Q2 FY2027');
      expect(formatDay(q.availableFrom) > '2026-10-01' && formatDay(q.availableFrom) <= '2026-11-27').toBe(
        true,
      );
      expect(at.latestServed(s.symbol, 'profit_loss').periodEnd).toBe(fiscalYearEnd(2026));
    }
    expect(latestReportedFiscalYear(at.end)).toBe(2026);
  });

  it("each company's latest concall and presentation are of Q2FY27, on the financials' results day", () => {
    for (const [symbol, fs] of at.bySymbol) {
      const calls = fs.filter((f) => f.docType === 'concall');
      const q = at.latestServed(symbol, 'quarterly');
      const listedOn = at.stocks.find((s) => s.symbol === symbol)!.listedOn;
      if (listedOn !== null && listedOn > q.availableFrom) continue; // not listed yet when it reported
      expect(calls.map((c) => c.period).slice(0, 1), symbol).toEqual(['Q2FY27']);
      expect(calls[0]).toMatchObject({
        period: filingPeriod(periodLabel('quarterly', q.periodEnd)),
        date: formatDay(q.availableFrom),
      });
      const presentation = fs.find((f) => f.docType === 'presentation');
      expect(presentation).toMatchObject({ period: calls[0]!.period, date: calls[0]!.date });
      // Newest first, consecutive quarters, each dated after its quarter ended.
      const ends = calls.map((c) => periodEnd(c.period));
      expect(ends).toEqual([...ends].sort((a, b) => b - a));
      for (const c of calls)
        expect(day(c.date), `${symbol} ${c.period}`).toBeGreaterThan(periodEnd(c.period));
    }
  });

  it('annual reports are of the latest fiscal year whose results are out, dated the day they were filed', () => {
    const reports = at.filings.filter((f) => f.docType === 'annual_report');
    expect(reports.length).toBeGreaterThan(3);
    for (const r of reports) {
      expect(r.period).toBe(`FY${latestReportedFiscalYear(at.end) % 100}`);
      expect(r.period).toBe('FY26');
      const year = at.latestServed(r.company.symbol, 'profit_loss');
      expect(r.date).toBe(formatDay(year.availableFrom));
      expect(day(r.date)).toBeGreaterThan(fiscalYearEnd(2026));
    }
  });

  it('no filing is dated after the end day, nor a year behind the latest period of the financials', () => {
    const latest = quarterEnd(2027, 2);
    for (const f of at.filings) {
      expect(f.date <= '2026-11-27', `${f.company.symbol} ${f.docType} ${f.date}`).toBe(true);
      if (f.period === 'IPO') continue;
      // Within the year up to the latest quarter: Q4 FY26 and Q1 FY27 calls, the FY26 annual report.
      expect(latest - periodEnd(f.period), `${f.company.symbol} ${f.docType} ${f.period}`).toBeLessThan(366);
      expect(parsePeriod(f.period).fy).toBeGreaterThanOrEqual(fiscalYearOf(latest) - 1);
    }
  });

  it('the DRHP and RHP precede the listing', () => {
    // One company in 25 (the second, the 27th, the 52nd of 60) has both.
    const offers = at.filings.filter((f) => f.docType === 'drhp' || f.docType === 'rhp');
    expect(offers).toHaveLength(6);
    for (const [symbol, fs] of at.bySymbol) {
      const drhp = fs.find((f) => f.docType === 'drhp');
      const rhp = fs.find((f) => f.docType === 'rhp');
      if (!drhp && !rhp) continue;
      const listedOn = at.stocks.find((s) => s.symbol === symbol)!.listedOn!;
      expect(drhp!.date < rhp!.date && day(rhp!.date) < listedOn && listedOn <= at.end, symbol).toBe(true);
    }
  });
});

describe('the end day moves every period', () => {
  it('on 2026-10-05 Q2 FY2027 has ended but no company has filed it: the latest calls are of Q1FY27', () => {
    const at = filingsAt('2026-10-05');
    for (const s of at.stocks)
      expect(formatDay(at.latestServed(s.symbol, 'quarterly').periodEnd)).toBe('2026-06-30');
    const latestCall = new Set(
      [...at.bySymbol.values()].map((fs) => fs.find((f) => f.docType === 'concall')?.period),
    );
    expect(latestCall).toEqual(new Set(['Q1FY27']));
    expect(at.filings.every((f) => f.date <= '2026-10-05')).toBe(true);
  });

  it("by default it is the real clock's last completed session", () => {
    // The clock is read before and after: a session may close between the two readings.
    const before = Date.now();
    const [call] = datasetFilings({ companies: 1 });
    const endDay = defaultMarket().options.endDay;
    const after = Date.now();
    expect([lastCompletedSession(before), lastCompletedSession(after)]).toContain(endDay);
    expect(call!.date <= formatDay(lastCompletedSession(after))).toBe(true);
    // The latest results are never older than the gap from a third quarter's to a fourth's (Jan-May).
    expect(after - Date.parse(call!.date)).toBeLessThan(150 * 86_400_000);
  });
});
