import { readdirSync } from 'node:fs';
import { type FinancialStatementRow, fiscalYearOf, quarterEnd } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { nseXbrl } from '../../src/areas/financials/import-kind.ts';
import { type Filing, filingDayFromName } from '../../src/areas/financials/xbrl-statements.ts';
import { readSource } from '../../src/importers/csv.ts';
import { REALDATA } from '../support.ts';

const DIR = `${REALDATA}nse_xbrl_results/`;
const COMPANIES = ['acc', 'bajfinance', 'infy', 'itc', 'sbin', 'tatasteel'];

type Parsed = Filing & { file: string; filedOn: number };

function parseFile(company: string, prefix: string) {
  const name = readdirSync(DIR + company).find((f) => f.startsWith(prefix));
  if (!name) throw new Error(`no file ${prefix} for ${company}`);
  return nseXbrl.parse(readSource(`${DIR}${company}/${name}`));
}

function filing(company: string, prefix: string): Parsed {
  const parsed = parseFile(company, prefix);
  expect(parsed.rejections).toEqual([]);
  return parsed.rows[0]!.value as Parsed;
}

const period = (f: Parsed, section: string) => f.periods.find((p) => p.section === section)!;

/** Every filing of a company, first filing of each period and basis kept, as the importer does. */
function companyPeriods(company: string) {
  const rows = readdirSync(DIR + company)
    .flatMap((f) => nseXbrl.parse(readSource(`${DIR}${company}/${f}`)).rows)
    .map((r) => r.value as Parsed)
    .sort((a, b) => a.filedOn - b.filedOn);
  const kept = new Map<string, FinancialStatementRow>();
  for (const f of rows)
    for (const p of f.periods) {
      const key = `${p.section}/${f.basis}/${p.periodEnd}`;
      if (!kept.has(key)) kept.set(key, { ...p, stockId: 0, basis: f.basis, source: f.file });
    }
  return kept;
}

/** Differences (year - sum of its quarters) of a row, by fiscal year, where all four quarters are held. */
function quarterGaps(kept: Map<string, FinancialStatementRow>, basis: string, row: string) {
  const out: Record<number, number> = {};
  for (const [key, year] of kept) {
    if (!key.startsWith(`profit_loss/${basis}/`)) continue;
    const fy = fiscalYearOf(year.periodEnd);
    const qs = ([1, 2, 3, 4] as const).map((q) => kept.get(`quarterly/${basis}/${quarterEnd(fy, q)}`));
    if (qs.some((q) => !q)) continue;
    out[fy] = Math.round((year.items[row]! - qs.reduce((s, q) => s + q!.items[row]!, 0)) * 100) / 100;
  }
  return out;
}

describe('nse-xbrl: NSE results filings', () => {
  it('reads the filing day from the archive file name', () => {
    expect(filingDayFromName('19Apr2024_1128_INDAS_104589_1099938_19042024112830.xml')).toBe(
      day('2024-04-19'),
    );
    expect(filingDayFromName('INDAS_104589.xml')).toBeUndefined();
  });

  it('Ind AS (INFY, consolidated, annual filing of FY2024): quarter, year, balance sheet, cash flow', () => {
    // infy/19Apr2024_1128_INDAS_104589_1099938_19042024112830.xml
    const f = filing('infy', '19Apr2024_1128');
    expect(f).toMatchObject({
      symbol: 'INFY',
      basis: 'consolidated',
      format: 'ind-as',
      filedOn: day('2024-04-19'),
    });
    const q = period(f, 'quarterly');
    expect(q.periodEnd).toBe(day('2024-03-31'));
    expect(q.availableFrom).toBe(day('2024-04-19'));
    // OneD RevenueFromOperations 379230000000.00 rupees
    expect(q.items.Revenue).toBe(37_923);
    // OneD Expenses 304120000000 - FinanceCosts 1100000000 - Depreciation 11630000000
    expect(q.items.Expenses).toBe(29_139);
    // OneD ProfitOrLossAttributableToOwnersOfParent 79690000000.00
    expect(q.items['Net Profit']).toBe(7_969);
    // OneD BasicEarningsLossPerShareFromContinuingAndDiscontinuedOperations 19.25
    expect(q.items['EPS (Rs)']).toBe(19.25);
    const y = period(f, 'profit_loss');
    // FourD RevenueFromOperations 1536700000000.00, ProfitOrLossAttributableToOwnersOfParent 262330000000.00
    expect(y.items.Revenue).toBe(153_670);
    expect(y.items['Net Profit']).toBe(26_233);
    // FourD ProfitBeforeTax 359880000000.00, TaxExpense 97400000000.00
    expect(y.items['Profit before tax']).toBe(35_988);
    expect(y.items.Tax).toBe(9_740);
    const bs = period(f, 'balance_sheet');
    // OneI Assets 1378140000000.00, Equity 884610000000.00, Liabilities 493530000000.00
    expect(bs.items['Total Assets']).toBe(137_814);
    expect(bs.items['Total Equity']).toBe(88_461);
    expect(bs.items['Total Liabilities']).toBe(49_353);
    // OneI EquityShareCapital 20710000000.00, OtherEquity 860450000000.00
    expect(bs.items['Share Capital']).toBe(2_071);
    expect(bs.items.Reserves).toBe(86_045);
    const cf = period(f, 'cash_flow');
    // FourD CashFlowsFromUsedInOperatingActivities 252100000000.00, ...InvestingActivities -50090000000.00
    expect(cf.items['Cash from Operating Activity']).toBe(25_210);
    expect(cf.items['Cash from Investing Activity']).toBe(-5_009);
    // FourD DividendsPaidClassifiedAsFinancingActivities 147310000000.00
    expect(cf.items['Dividends Paid']).toBe(14_731);
  });

  it('Ind AS, old _WEB filing (INFY consolidated Q1 FY2020): a quarter only', () => {
    // infy/12Jul2019_1624_INDAS_45972_115443_12072019042403_WEB.xml
    const f = filing('infy', '12Jul2019_1624');
    expect(f.periods.map((p) => p.section)).toEqual(['quarterly']);
    const q = f.periods[0]!;
    expect(q.periodEnd).toBe(day('2019-06-30'));
    // OneD RevenueFromOperations 218030000000.00; owners' profit 37980000000.00 (total 38020000000.00)
    expect(q.items.Revenue).toBe(21_803);
    expect(q.items['Net Profit']).toBe(3_798);
    // Expenses 173720000000 - FinanceCosts 400000000 - Depreciation 6810000000
    expect(q.items.Expenses).toBe(16_651);
    expect(q.items.Interest).toBe(40);
    expect(q.items.Depreciation).toBe(681);
  });

  it('banking format (SBIN standalone, annual filing of FY2024)', () => {
    // sbin/09May2024_1721_BANKING_105529_1119098_...xml
    const f = filing('sbin', '09May2024_1721');
    expect(f).toMatchObject({ symbol: 'SBIN', basis: 'standalone', format: 'banking', isin: 'INE062A01020' });
    const q = period(f, 'quarterly');
    // OneD InterestEarned 1110426300000.00, InterestExpended 693874400000.00
    expect(q.items.Revenue).toBe(111_042.63);
    expect(q.items.Interest).toBe(69_387.44);
    // OneD OperatingExpenses 302768900000 + ProvisionsOtherThanTaxAndContingencies 16097800000
    expect(q.items.Expenses).toBe(31_886.67);
    // OneD ProfitLossFromOrdinaryActivitiesBeforeTax 271377700000.00, ProfitLossForThePeriod 206983500000.00
    expect(q.items['Profit before tax']).toBe(27_137.77);
    expect(q.items['Net Profit']).toBe(20_698.35);
    const y = period(f, 'profit_loss');
    // FourD InterestEarned 4151306600000.00, ProfitLossForThePeriod 610766200000.00, TaxExpense 207063400000.00
    expect(y.items.Revenue).toBe(415_130.66);
    expect(y.items['Net Profit']).toBe(61_076.62);
    expect(y.items.Tax).toBe(20_706.34);
    const bs = period(f, 'balance_sheet');
    // OneI Capital 8924600000 + ReservesAndSurplus 3763540700000
    expect(bs.items['Total Equity']).toBe(377_246.53);
    // OneI Deposits 49160767700000.00, Borrowings 5975609100000.00, Advances 37039708500000.00
    expect(bs.items.Deposits).toBe(4_916_076.77);
    expect(bs.items.Borrowings).toBe(597_560.91);
    expect(bs.items['Loans & Advances']).toBe(3_703_970.85);
    // OneI Assets = CapitalAndLiabilities 61796939400000.00
    expect(bs.items['Total Assets']).toBe(6_179_693.94);
    expect(bs.items['Total Equity']! + bs.items['Total Liabilities']!).toBeCloseTo(
      bs.items['Total Assets']!,
      2,
    );
  });

  it('banking format, a first-quarter filing (SBIN standalone Q1 FY2022)', () => {
    // sbin/05Aug2021_0135_BANKING_74084_...xml: OneD InterestEarned 655644300000.00, ProfitLossForThePeriod 65040000000.00
    const f = filing('sbin', '05Aug2021_0135');
    expect(f.periods.map((p) => p.section)).toEqual(['quarterly']);
    expect(f.periods[0]!.periodEnd).toBe(day('2021-06-30'));
    expect(f.periods[0]!.items.Revenue).toBe(65_564.43);
    expect(f.periods[0]!.items['Net Profit']).toBe(6_504);
  });

  it('NBFC format (BAJFINANCE consolidated, annual filing of FY2024 and a Q3 FY2020 filing)', () => {
    // bajfinance/25Apr2024_2114_NBFC_INDAS_...xml
    const f = filing('bajfinance', '25Apr2024_2114');
    expect(f).toMatchObject({ symbol: 'BAJFINANCE', basis: 'consolidated', format: 'ind-as' });
    // OneD RevenueFromOperations 149262100000.00, ProfitOrLossAttributableToOwnersOfParent 38245300000.00
    expect(period(f, 'quarterly').items.Revenue).toBe(14_926.21);
    expect(period(f, 'quarterly').items['Net Profit']).toBe(3_824.53);
    // FourD RevenueFromOperations 549694900000.00, FinanceCosts 187246900000.00, owners' profit 144511700000.00
    const y = period(f, 'profit_loss');
    expect(y.items.Revenue).toBe(54_969.49);
    expect(y.items.Interest).toBe(18_724.69);
    expect(y.items['Net Profit']).toBe(14_451.17);
    const bs = period(f, 'balance_sheet');
    // OneI Assets 3757416200000.00, Equity 766953500000.00, Loans 3262933200000.00, Deposits 601509200000.00
    expect(bs.items['Total Assets']).toBe(375_741.62);
    expect(bs.items['Total Equity']).toBe(76_695.35);
    expect(bs.items['Loans & Advances']).toBe(326_293.32);
    expect(bs.items.Deposits).toBe(60_150.92);
    // DebtSecurities 1179995400000 + Borrowings 1116174700000 + SubordinatedLiabilities 35779000000
    expect(bs.items.Borrowings).toBe(233_194.91);
    // No "Liabilities" total in the NBFC format: everything but equity.
    expect(bs.items['Total Liabilities']).toBe(299_046.27);
    // bajfinance/29Jan2020_1952_...xml: OneD RevenueFromOperations 70110500000.00, ProfitLossForPeriod 16141100000.00
    const q3 = filing('bajfinance', '29Jan2020_1952');
    expect(q3.periods.map((p) => p.section)).toEqual(['quarterly']);
    expect(q3.periods[0]!.items.Revenue).toBe(7_011.05);
    expect(q3.periods[0]!.items['Net Profit']).toBe(1_614.11);
  });

  it('every file of the six companies parses, or is rejected with its reason', () => {
    const rejected: string[] = [];
    let files = 0;
    for (const company of COMPANIES)
      for (const name of readdirSync(DIR + company)) {
        files++;
        const parsed = nseXbrl.parse(readSource(`${DIR}${company}/${name}`));
        expect(parsed.read).toBe(1);
        for (const r of parsed.rejections) rejected.push(`${name}: ${r.reason}`);
        for (const row of parsed.rows) {
          const f = row.value as Parsed;
          expect(f.symbol).toBe(company.toUpperCase());
          expect(f.periods.length).toBeGreaterThan(0);
          for (const p of f.periods) {
            expect(p.availableFrom).toBeGreaterThanOrEqual(p.periodEnd);
            if (p.section !== 'balance_sheet' && p.section !== 'cash_flow')
              expect(p.items.Revenue, `${name} ${p.section}`).toBeGreaterThan(0);
          }
        }
      }
    expect(files).toBe(310);
    expect(rejected).toEqual([
      '21Jun2018_1801_NONINDAS_35272_9888_17052018060424_WEB.xml: pre-Ind AS (Indian GAAP) results format is not imported',
    ]);
  });

  it('quarters add up to the year where the filings allow', () => {
    // ITC: every fiscal year with its four quarters, both bases, to the paisa-of-crore rounding.
    for (const basis of ['standalone', 'consolidated']) {
      const kept = companyPeriods('itc');
      for (const row of ['Revenue', 'Expenses', 'Profit before tax', 'Net Profit']) {
        const gaps = quarterGaps(kept, basis, row);
        expect(Object.keys(gaps).length).toBeGreaterThanOrEqual(4);
        for (const gap of Object.values(gaps)) expect(Math.abs(gap)).toBeLessThanOrEqual(0.05);
      }
    }
    // SBIN (banking): FY2021, FY2022 and FY2024 have all four quarters in the set.
    const sbin = companyPeriods('sbin');
    for (const basis of ['standalone', 'consolidated'])
      for (const row of ['Revenue', 'Net Profit']) {
        const gaps = quarterGaps(sbin, basis, row);
        for (const fy of [2021, 2022, 2024])
          expect(Math.abs(gaps[fy]!), `${basis} FY${fy} ${row}`).toBeLessThanOrEqual(0.05);
      }
    // INFY's older filings are in whole crore, so four rounded quarters may differ by a few crore.
    const infyGaps = quarterGaps(companyPeriods('infy'), 'standalone', 'Revenue');
    expect(Object.keys(infyGaps).map(Number)).toEqual([2020, 2021, 2022, 2023, 2024]);
    for (const gap of Object.values(infyGaps)) expect(Math.abs(gap)).toBeLessThanOrEqual(4);
    // BAJFINANCE (NBFC): profit adds up; revenue lines were regrouped between quarters and year.
    const baj = quarterGaps(companyPeriods('bajfinance'), 'consolidated', 'Net Profit');
    for (const fy of [2021, 2022, 2023, 2024]) expect(Math.abs(baj[fy]!)).toBeLessThanOrEqual(0.05);
  });

  it('leaves out a fiscal year that is not April-March (ACC to December 2019)', () => {
    const acc = parseFile('acc', '07Feb2020_1835');
    const f = acc.rows[0]!.value as Parsed;
    expect(f.periods.map((p) => p.section)).toEqual(['quarterly']);
    expect(f.skipped).toEqual(['the year to date is not an April-March fiscal year']);
  });
});
