import type { StockType } from '@mdp/market';
import type pg from 'pg';
import { cleanText, readCsv, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult, rejectionOf } from '../../../importers/kind.ts';
import type { Sourced } from '../../../importers/report.ts';
import { cleanIsin, type Observation, StockBook } from './stock-book.ts';

/** Importers of the stock master: who is listed where, under which name, ISIN and classification. */

async function applyObservations(
  client: pg.PoolClient,
  rows: Sourced<Observation>[],
): Promise<Applied<Observation>> {
  const book = await StockBook.load(client);
  const loaded: Sourced<Observation>[] = [];
  const rejections = [];
  for (const row of rows) {
    const reason = book.observe(row.value);
    if (reason) rejections.push(rejectionOf(row, reason));
    else loaded.push(row);
  }
  return { loaded, rejections, changed: await book.flush(client) };
}

/** NSE series → what kind of security the row lists. */
const SERIES_TYPES: Record<string, StockType> = {
  RR: 'reit',
  IV: 'invit',
  MF: 'closed_end_fund',
  DR: 'depository_receipt',
};
const SME_SERIES = new Set(['SM', 'ST', 'SZ', 'SO']);

const orDash = (s: string) => (s === '' || s === '-' ? null : s);

/**
 * NSE securities lists sharing the EQUITY_L layout: EQUITY_L.csv, SME_EQUITY_L.csv, REITS_L.csv,
 * INVITS_L.csv, mf_close-end.csv, IDR_W9.csv. The series says the board and the kind of security.
 */
export const nseSecurities = defineKind<Observation>({
  describe: 'NSE EQUITY_L.csv, SME_EQUITY_L.csv, REITS_L.csv, INVITS_L.csv, mf_close-end.csv, IDR_W9.csv',
  needsFiles: true,
  parse(file: SourceFile) {
    const { rows } = readCsv(file, ['SYMBOL', 'NAME OF COMPANY', 'SERIES', 'DATE OF LISTING']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const isinCol = r.has('ISIN NUMBER') ? 'ISIN NUMBER' : 'ISIN';
      const isin = cleanIsin(r.text(isinCol));
      const series = r.text('SERIES').toUpperCase();
      if (!/^[A-Za-z0-9&._-]{1,20}$/.test(r.text('SYMBOL'))) {
        out.reject(r.line, 'not a security row (no symbol; a note or separator)');
        continue;
      }
      if (!isin) {
        out.reject(r.line, `ISIN "${r.text(isinCol)}" is not a valid ISIN`);
        continue;
      }
      out.ok(r.line, {
        source: 'nse-list',
        isin,
        nseSymbol: r.text('SYMBOL').toUpperCase(),
        name: cleanText(r.text('NAME OF COMPANY')),
        series,
        stockType: SERIES_TYPES[series] ?? 'equity',
        board: SME_SERIES.has(series) ? 'sme' : 'main',
        listedOn: r.optionalDate('DATE OF LISTING'),
        faceValue: r.has('FACE VALUE') ? r.number('FACE VALUE', true) : undefined,
      });
    }
    return out;
  },
  apply: applyObservations,
});

/** NSE ETF master (eq_etfseclist.csv): every row is an ETF; its underlying makes it findable. */
export const nseEtfs = defineKind<Observation>({
  describe: 'NSE eq_etfseclist.csv (ETFs, stock_type etf)',
  needsFiles: true,
  parse(file) {
    const { rows } = readCsv(file, ['SYMBOL', 'UNDERLYING', 'SECURITYNAME', 'DATEOFLISTING', 'ISINNUMBER']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const isin = cleanIsin(r.text('ISINNUMBER'));
      if (!isin) {
        out.reject(r.line, `ISIN "${r.text('ISINNUMBER')}" is not a valid ISIN`);
        continue;
      }
      const underlying = cleanText(r.text('UNDERLYING'));
      out.ok(r.line, {
        source: 'nse-etf',
        isin,
        nseSymbol: r.text('SYMBOL').toUpperCase(),
        name: cleanText(r.text('SECURITYNAME')),
        series: 'EQ',
        stockType: 'etf',
        listedOn: r.optionalDate('DATEOFLISTING'),
        faceValue: r.has('FACEVALUE') ? r.number('FACEVALUE', true) : undefined,
        macroSector: 'Funds',
        sector: 'Funds',
        industry: 'Exchange Traded Fund',
        about: underlying ? `Exchange traded fund tracking ${underlying}.` : undefined,
      });
    }
    return out;
  },
  apply: applyObservations,
});

/** NSE index constituent lists with Industry (ind_nifty500list.csv, nifty750list.csv). */
export const nseIndexList = defineKind<Observation>({
  describe: 'NSE index constituents with Industry (ind_nifty500list.csv, Nifty 750 list)',
  needsFiles: true,
  parse(file) {
    const { rows } = readCsv(file, ['COMPANY NAME', 'INDUSTRY', 'SYMBOL', 'SERIES', 'ISIN CODE']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const isin = cleanIsin(r.text('ISIN CODE'));
      if (!isin) {
        out.reject(r.line, `ISIN "${r.text('ISIN CODE')}" is not a valid ISIN`);
        continue;
      }
      out.ok(r.line, {
        source: 'nse-index',
        isin,
        nseSymbol: r.text('SYMBOL').toUpperCase(),
        name: cleanText(r.text('COMPANY NAME')),
        series: r.text('SERIES').toUpperCase(),
        sector: orDash(cleanText(r.text('INDUSTRY'))),
      });
    }
    return out;
  },
  apply: applyObservations,
});

/** BSE scrip master with the four-level industry classification (Equity.csv). */
export const bseScrips = defineKind<Observation>({
  describe: 'BSE scrip master with industry (Equity.csv: Security Code, ..., ISubgroup Name)',
  needsFiles: true,
  parse(file) {
    const { rows } = readCsv(file, ['SECURITY CODE', 'SECURITY ID', 'STATUS', 'ISIN NO']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const code = r.text('SECURITY CODE');
      if (!/^\d{6}$/.test(code)) r.fail(`Security Code "${code}" is not a six-digit BSE code`);
      const status = r.text('STATUS');
      if (status !== 'Active') {
        out.reject(r.line, `status ${status || '(none)'}: the scrip master loads active scrips only`);
        continue;
      }
      const isin = cleanIsin(r.text('ISIN NO'));
      const name = cleanText(r.text('ISSUER NAME') || r.text('SECURITY NAME'));
      const sector = orDash(cleanText(r.text('INDUSTRY NEW NAME')));
      out.ok(r.line, {
        source: 'bse-master',
        isin,
        bseCode: code,
        bseSymbol: r.text('SECURITY ID').toUpperCase() || undefined,
        name,
        faceValue: r.has('FACE VALUE') ? r.number('FACE VALUE', true) : undefined,
        stockType: 'equity',
        macroSector: orDash(cleanText(r.text('SECTOR NAME'))),
        sector,
        industry: orDash(cleanText(r.text('IGROUP NAME'))),
        basicIndustry: orDash(cleanText(r.text('ISUBGROUP NAME'))),
      });
    }
    return out;
  },
  apply: applyObservations,
});

/** The 2015 BSE list of scrips of every status: the source of delisted and suspended BSE companies. */
export const bseAllStatus = defineKind<Observation>({
  describe: 'BSE ListOfScrips.csv of all statuses (loads Delisted and Suspended rows)',
  needsFiles: true,
  parse(file) {
    const { rows } = readCsv(file, ['SECURITY CODE', 'SECURITY ID', 'SECURITY NAME', 'STATUS', 'ISIN NO']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const code = r.text('SECURITY CODE');
      if (!/^\d{6}$/.test(code)) r.fail(`Security Code "${code}" is not a six-digit BSE code`);
      const status = r.text('STATUS');
      if (status !== 'Delisted' && status !== 'Suspended') {
        out.reject(
          r.line,
          `status ${status || '(none)'}: only Delisted and Suspended rows are loaded from this list`,
        );
        continue;
      }
      const industry = orDash(cleanText(r.text('INDUSTRY')));
      out.ok(r.line, {
        source: 'bse-2015',
        isin: cleanIsin(r.text('ISIN NO')),
        bseCode: code,
        bseSymbol: r.text('SECURITY ID').toUpperCase() || undefined,
        name: cleanText(r.text('SECURITY NAME')),
        faceValue: r.has('FACE VALUE') ? r.number('FACE VALUE', true) : undefined,
        status: status === 'Delisted' ? 'delisted' : 'suspended',
        delistingReason:
          status === 'Suspended' ? 'Suspended on BSE (2015 list)' : 'Delisted from BSE (2015 list)',
        stockType: 'equity',
        ...(industry ? { sector: null, industry } : {}),
      });
    }
    return out;
  },
  apply: applyObservations,
});

/** NSE's list of delisted companies (Symbol, ISIN, Company Name, Board, Delisted Date, Type). */
export const nseDelisted = defineKind<Observation>({
  describe: 'NSE delisted companies (Symbol, ISIN, Company Name, Board, Delisted Date, Type)',
  needsFiles: true,
  parse(file) {
    const { rows } = readCsv(file, ['SYMBOL', 'ISIN', 'COMPANY NAME', 'DELISTED DATE', 'TYPE']);
    const out = new ParseResult<Observation>(file.path);
    for (const r of rows) {
      const symbol = r.text('SYMBOL').replace(/\s+/g, '').toUpperCase();
      if (!symbol) {
        out.reject(r.line, 'no symbol');
        continue;
      }
      const rawIsin = r.text('ISIN');
      const isin = cleanIsin(rawIsin);
      if (!isin && /^IN/i.test(rawIsin)) {
        out.reject(r.line, `ISIN "${rawIsin}" is not a valid ISIN`);
        continue;
      }
      out.ok(r.line, {
        source: 'nse-delisted',
        isin,
        nseSymbol: symbol,
        name: cleanText(r.text('COMPANY NAME')),
        status: 'delisted',
        delistedOn: r.date('DELISTED DATE'),
        delistingReason: cleanText(r.text('TYPE')) || 'Delisted',
        board: /sme|emerge/i.test(r.text('BOARD')) ? 'sme' : 'main',
        stockType: 'equity',
      });
    }
    return out;
  },
  apply: applyObservations,
});
