import { normalizeHeader } from './csv.ts';

/**
 * Which import kind an exchange file is, from its name and its first lines, as an operator downloads
 * it (NSE and BSE names vary by year and by who saved the file, so the header decides wherever the
 * file has one). Only a cheap look at the file's head: the kind's parser still checks every row.
 */
export interface FileHead {
  /** The file's base name. */
  name: string;
  /** The first few kilobytes, decoded. */
  head: string;
}

interface Rule {
  kind: string;
  test(name: string, lines: Lines): boolean;
}

/** The head's first lines: raw text and, for CSV, its cells normalised like the parsers' headers. */
interface Lines {
  text: string;
  raw: string[];
  header: Set<string>;
  cells: string[][];
}

const splitCells = (line: string) => line.split(',').map((c) => normalizeHeader(c.replace(/^"+|"+$/g, '')));

function linesOf(head: string): Lines {
  const raw = head
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 4);
  const cells = raw.map(splitCells);
  return { text: head, raw, header: new Set(cells[0] ?? []), cells };
}

const has =
  (...columns: string[]) =>
  (_name: string, l: Lines) =>
    columns.every((c) => l.header.has(c));
const csv = (name: string) => /\.csv$/i.test(name);
const squashed = (l: Lines) => new Set([...l.header].map((h) => h.replace(/[^A-Z]/g, '')));

/** In the order they are tried; a file two rules accept is reported as ambiguous, not guessed. */
const RULES: Rule[] = [
  {
    // Not the preference-share and warrant lists: their rows carry an ISIN their header does not name.
    kind: 'nse-securities',
    test: has('SYMBOL', 'NAME OF COMPANY', 'SERIES', 'DATE OF LISTING', 'ISIN NUMBER'),
  },
  { kind: 'nse-etfs', test: has('SYMBOL', 'UNDERLYING', 'SECURITYNAME', 'DATEOFLISTING', 'ISINNUMBER') },
  { kind: 'nse-index', test: has('COMPANY NAME', 'INDUSTRY', 'SYMBOL', 'SERIES', 'ISIN CODE') },
  {
    // The scrip master with industry has the four-level classification; the all-status list does not.
    kind: 'bse-scrips',
    test: (n, l) => has('SECURITY CODE', 'SECURITY ID', 'STATUS', 'ISIN NO', 'ISUBGROUP NAME')(n, l),
  },
  {
    kind: 'bse-all-status',
    test: (n, l) =>
      has('SECURITY CODE', 'SECURITY ID', 'SECURITY NAME', 'STATUS', 'ISIN NO')(n, l) &&
      !l.header.has('ISUBGROUP NAME'),
  },
  { kind: 'nse-delisted', test: has('SYMBOL', 'ISIN', 'COMPANY NAME', 'DELISTED DATE', 'TYPE') },
  {
    // Headerless: company, old symbol, new symbol, DD-MON-YYYY.
    kind: 'nse-symbol-changes',
    test: (n, l) =>
      /symbol.?change/i.test(n) &&
      l.cells[0]?.length === 4 &&
      /^\d{1,2}-[A-Z]{3}-\d{4}$/.test(l.cells[0][3] ?? ''),
  },
  { kind: 'nse-name-changes', test: has('NCH SYMBOL', 'NCH PREV NAME', 'NCH NEW NAME', 'NCH DT') },
  { kind: 'brands', test: (n, l) => has('SYMBOL', 'BRAND')(n, l) && l.header.size <= 3 },
  {
    // The UDiFF common bhavcopy has the same columns in every segment: the first row's Sgmt says CM.
    kind: 'bhavcopy',
    test: (n, l) =>
      (has('TRADDT', 'SGMT', 'TCKRSYMB', 'CLSPRIC')(n, l) &&
        l.cells[1]?.[l.cells[0]!.indexOf('SGMT')] === 'CM') ||
      has('SYMBOL', 'SERIES', 'OPEN', 'HIGH', 'LOW', 'CLOSE', 'TOTTRDQTY', 'TIMESTAMP')(n, l),
  },
  {
    kind: 'delivery',
    test: (n, l) =>
      has('SYMBOL', 'SERIES', 'DATE1', 'DELIV QTY')(n, l) ||
      (/MTO/i.test(n) && has('NAME OF SECURITY', 'QUANTITY TRADED')(n, l)),
  },
  {
    // Headerless per-symbol history: DDMMYY, open, high, low, close, value, quantity, trades.
    kind: 'daily-history',
    test: (n, l) => csv(n) && l.cells[0]?.length === 8 && /^\d{6}$/.test(l.cells[0][0] ?? ''),
  },
  {
    kind: 'market-report',
    test: (n, l) =>
      has('SYMBOL', 'SYMBOL P/E')(n, l) ||
      has('TRADE DATE', 'SYMBOL', 'SERIES', 'CATEGORY', 'ISSUE SIZE', 'MARKET CAP(RS.)')(n, l),
  },
  {
    kind: 'nse-xbrl',
    test: (n, l) => /\.xml$/i.test(n) && /<(xbrli:)?xbrl[\s>]/.test(l.text),
  },
  {
    kind: 'nse-deals',
    test: (_n, l) => {
      const h = squashed(l);
      return ['DATE', 'SYMBOL', 'CLIENTNAME', 'BUYSELL', 'QUANTITYTRADED'].every((c) => h.has(c));
    },
  },
  {
    kind: 'nse-corporate-actions',
    test: (n, l) =>
      (/\.json$/i.test(n) && /"subject"/.test(l.text) && /"exDate"/.test(l.text)) ||
      has('SYMBOL', 'SERIES', 'PURPOSE', 'EX DT')(n, l),
  },
  { kind: 'index-close', test: has('INDEX NAME', 'INDEX DATE', 'CLOSING INDEX VALUE') },
  { kind: 'index-valuations', test: has('DATE', 'INDEX NAME', 'PE', 'PB', 'DIVYIELD') },
  { kind: 'fii-dii-cash', test: has('TRADE DATE', 'GROSS PURCHASE FII', 'NET PURCHASE SALES DII') },
  {
    kind: 'nse-participants',
    test: (_n, l) => /participant wise (open interest|trading volume)/i.test(l.raw[0] ?? ''),
  },
  {
    kind: 'nse-fii-derivatives',
    test: (_n, l) => /^\W*FII DERIVATIVES STATISTICS FOR/i.test(l.raw[0] ?? ''),
  },
];

export type Recognition = { kind: string } | { kinds: string[] } | undefined;

/** The kind that reads this file; several when rules overlap (reported, never guessed); or none. */
export function recogniseEquitiesFile(file: FileHead): Recognition {
  const lines = linesOf(file.head);
  const kinds = RULES.filter((r) => r.test(file.name, lines)).map((r) => r.kind);
  if (kinds.length === 0) return undefined;
  return kinds.length === 1 ? { kind: kinds[0]! } : { kinds };
}

/** The kinds the rules name, for a check that every one is an import kind. */
export const RECOGNISED_KINDS = RULES.map((r) => r.kind);
