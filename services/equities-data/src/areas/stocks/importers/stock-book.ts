import type { AliasKind, ListingStatus, StockRow, StockType } from '@mdp/market';
import { isValidIsin, SECTORS } from '@mdp/market';
import { type DayNumber, formatDay, yearOf } from '@mdp/nse-calendar';
import type pg from 'pg';
import { normalize } from '../domain/search/text.ts';

/**
 * The stock master as importers see it: every stock of the schema in memory for the length of one
 * import transaction, merged with what a file says, then written back (only what changed).
 *
 * One company listed on NSE and BSE is one stock, matched by ISIN. Sources have a precedence so that
 * importing the same files in any order ends in the same state:
 *   - names, series, listing dates and NSE symbols come from the NSE lists; BSE names only fill in
 *     for stocks NSE does not list; delisted-lists' names only for stocks that are not listed;
 *   - the four-level classification comes from the BSE scrip master; an NSE index list's Industry
 *     fills sector and macro sector only while no BSE classification is held;
 *   - a listed stock is never marked delisted by an older delisted list (that row is rejected).
 */
type Source = 'nse-list' | 'nse-etf' | 'nse-index' | 'bse-master' | 'nse-delisted' | 'bse-2015';

export interface Observation {
  source: Source;
  isin: string | null;
  nseSymbol?: string;
  bseCode?: string;
  bseSymbol?: string;
  name?: string;
  series?: string;
  stockType?: StockType;
  board?: 'main' | 'sme';
  listedOn?: DayNumber;
  faceValue?: number;
  status?: ListingStatus;
  delistedOn?: DayNumber;
  delistingReason?: string;
  macroSector?: string | null;
  sector?: string | null;
  industry?: string | null;
  basicIndustry?: string | null;
  about?: string;
}

const CURRENT_SOURCES = new Set<Source>(['nse-list', 'nse-etf', 'nse-index', 'bse-master']);
const NSE_SOURCES = new Set<Source>(['nse-list', 'nse-etf', 'nse-index']);

/** NSE sector → macro-economic sector, from the shared classification (punctuation-insensitive). */
const MACRO_OF = new Map<string, string>([
  ...SECTORS.map((s) => [normalize(s.sector), s.macro] as [string, string]),
  [normalize('Utilities'), 'Utilities'],
]);
const macroFor = (sector: string) => MACRO_OF.get(normalize(sector)) ?? null;

const sameIssue = (a: string, b: string) => a.slice(0, 9) === b.slice(0, 9);

export function cleanIsin(raw: string): string | null {
  const isin = raw.trim().toUpperCase();
  return isValidIsin(isin) ? isin : null;
}

type Row = Omit<StockRow, 'id'> & { id: number | undefined };

const FIELDS: (keyof Omit<StockRow, 'id'>)[] = [
  'symbol',
  'name',
  'isin',
  'nseSymbol',
  'bseCode',
  'bseSymbol',
  'series',
  'stockType',
  'board',
  'macroSector',
  'sector',
  'industry',
  'basicIndustry',
  'status',
  'listedOn',
  'delistedOn',
  'delistingReason',
  'faceValue',
  'sharesOutstanding',
  'about',
];
const COLUMNS: Record<(typeof FIELDS)[number], string> = {
  symbol: 'symbol',
  name: 'name',
  isin: 'isin',
  nseSymbol: 'nse_symbol',
  bseCode: 'bse_code',
  bseSymbol: 'bse_symbol',
  series: 'series',
  stockType: 'stock_type',
  board: 'board',
  macroSector: 'macro_sector',
  sector: 'sector',
  industry: 'industry',
  basicIndustry: 'basic_industry',
  status: 'status',
  listedOn: 'listed_on',
  delistedOn: 'delisted_on',
  delistingReason: 'delisting_reason',
  faceValue: 'face_value',
  sharesOutstanding: 'shares_outstanding',
  about: 'about',
};
const DATE_FIELDS = new Set(['listedOn', 'delistedOn']);

export class StockBook {
  private readonly rows: Row[] = [];
  private readonly original = new Map<Row, string>();
  private readonly byIsin = new Map<string, Row>();
  private readonly byBseCode = new Map<string, Row>();
  private readonly byNseSymbol = new Map<string, Set<Row>>();
  /** ISIN without its serial and check digit: issuer and kind of security. */
  private readonly byIssue = new Map<string, Set<Row>>();

  private constructor() {}

  static async load(client: pg.PoolClient): Promise<StockBook> {
    const book = new StockBook();
    const { rows } = await client.query<Record<string, unknown>>(
      `SELECT id, ${FIELDS.filter((f) => !DATE_FIELDS.has(f))
        .map((f) =>
          f === 'faceValue' || f === 'sharesOutstanding'
            ? `${COLUMNS[f]}::float8 AS "${f}"`
            : `${COLUMNS[f]} AS "${f}"`,
        )
        .join(', ')},
        listed_on - DATE '1970-01-01' AS "listedOn", delisted_on - DATE '1970-01-01' AS "delistedOn"
         FROM stocks ORDER BY id`,
    );
    for (const r of rows) {
      const row = { ...r } as unknown as Row;
      row.id = Number(r.id);
      book.rows.push(row);
      book.original.set(row, JSON.stringify(FIELDS.map((f) => row[f])));
      book.index(row);
    }
    return book;
  }

  private index(row: Row): void {
    if (row.isin) this.byIsin.set(row.isin, row);
    if (row.bseCode) this.byBseCode.set(row.bseCode, row);
    if (row.isin) {
      const set = this.byIssue.get(row.isin.slice(0, 9)) ?? new Set();
      set.add(row);
      this.byIssue.set(row.isin.slice(0, 9), set);
    }
    if (row.nseSymbol) {
      const set = this.byNseSymbol.get(row.nseSymbol) ?? new Set();
      set.add(row);
      this.byNseSymbol.set(row.nseSymbol, set);
    }
  }

  get all(): readonly Row[] {
    return this.rows;
  }

  /** The stock an observation is about, if the book has it. */
  find(o: Pick<Observation, 'isin' | 'bseCode' | 'nseSymbol' | 'bseSymbol' | 'source'>): Row | undefined {
    // An index list names NSE listings: its symbol is the key, its (possibly older) ISIN is not.
    if (o.source === 'nse-index' && o.nseSymbol) {
      const hit = this.listedByNseSymbol(o.nseSymbol);
      if (hit) return hit;
    }
    if (o.isin) {
      const hit = this.byIsin.get(o.isin);
      if (hit) return hit;
    }
    if (o.bseCode) {
      const hit = this.byBseCode.get(o.bseCode);
      // BSE never reuses a scrip code: the current master claims a code an old list gave another ISIN.
      if (hit && (!o.isin || !hit.isin || sameIssue(hit.isin, o.isin))) return hit;
      if (hit && o.source === 'bse-master' && hit.status !== 'listed') return hit;
    }
    // A current NSE list names a listed stock by symbol even when its ISIN has changed (after a split).
    if (o.nseSymbol && NSE_SOURCES.has(o.source)) {
      const hit = this.listedByNseSymbol(o.nseSymbol);
      if (hit) return hit;
    }
    // The same issuer and kind of security under the same trading symbol, with a new ISIN after a
    // split or consolidation (one list may carry the old one): the same stock.
    const symbol = o.nseSymbol ?? o.bseSymbol;
    if (o.isin && symbol) {
      for (const r of this.byIssue.get(o.isin.slice(0, 9)) ?? [])
        if (r.nseSymbol === symbol || r.bseSymbol === symbol) return r;
    }
    // A delisting without an ISIN is matched to the delisted stock of that symbol it created before.
    if (o.nseSymbol && !o.isin && o.source === 'nse-delisted') {
      for (const r of this.byNseSymbol.get(o.nseSymbol) ?? []) if (r.status !== 'listed' && !r.isin) return r;
    }
    return undefined;
  }

  listedByNseSymbol(symbol: string): Row | undefined {
    for (const r of this.byNseSymbol.get(symbol) ?? [])
      if (r.status === 'listed' && r.nseSymbol === symbol) return r;
    return undefined;
  }

  /**
   * Merges one observation. Returns a rejection reason when the row cannot be loaded, else undefined.
   */
  observe(o: Observation): string | undefined {
    const current = CURRENT_SOURCES.has(o.source);
    let row = this.find(o);
    if (row && !current && row.status === 'listed')
      return 'listed now (on NSE or BSE); an old delisting is not applied';
    const takeover = o.source === 'bse-master' && row !== undefined && row.status !== 'listed';
    if (row && o.bseCode && row.bseCode && row.bseCode !== o.bseCode && !takeover)
      return 'the ISIN belongs to a stock with another BSE code';
    if (o.bseCode && row?.bseCode !== o.bseCode) {
      const holder = this.byBseCode.get(o.bseCode);
      if (holder && holder !== row && holder.bseCode === o.bseCode)
        return 'the BSE code belongs to a stock with another ISIN';
    }
    if (o.nseSymbol && current) {
      const holder = this.listedByNseSymbol(o.nseSymbol);
      if (holder && holder !== row) return 'the NSE symbol belongs to another listed stock';
    }
    if (!row) {
      if (!o.name) return 'not in the stock master, and this file cannot add it (no name)';
      row = {
        id: undefined,
        symbol: '',
        name: o.name,
        isin: o.isin,
        nseSymbol: null,
        bseCode: null,
        bseSymbol: null,
        series: null,
        stockType: o.stockType ?? 'equity',
        board: o.board ?? 'main',
        macroSector: null,
        sector: null,
        industry: null,
        basicIndustry: null,
        status: o.status ?? 'listed',
        listedOn: null,
        delistedOn: null,
        delistingReason: null,
        faceValue: null,
        sharesOutstanding: null,
        about: null,
      };
      this.rows.push(row);
    }
    this.apply(row, o, current);
    this.index(row);
    return undefined;
  }

  private apply(row: Row, o: Observation, current: boolean): void {
    // The NSE securities lists are the primary source of a listing's facts; an index list only fills in.
    const primary = o.source === 'nse-list' || o.source === 'nse-etf';
    if (o.isin && (!row.isin || primary || (o.source === 'bse-master' && row.status !== 'listed')))
      row.isin = o.isin;
    if (current && row.status !== 'listed' && o.source === 'bse-master' && row.delistedOn !== null) {
      // Listed on BSE now, its NSE listing (known from NSE's delisted list) is over.
      row.nseSymbol = null;
      row.series = null;
    }
    if (current) {
      row.status = 'listed';
      row.delistedOn = null;
      row.delistingReason = null;
    } else if (o.source === 'nse-delisted' || row.delistedOn === null) {
      // NSE's delisted list (with its date and type) wins over the undated 2015 BSE list.
      row.status = o.status ?? row.status;
      if (o.delistedOn !== undefined) row.delistedOn = o.delistedOn;
      if (o.delistingReason !== undefined) row.delistingReason = o.delistingReason;
    }
    if (o.nseSymbol && (primary || o.source === 'nse-delisted' || !row.nseSymbol))
      row.nseSymbol = o.nseSymbol;
    if (o.bseCode && row.bseCode !== o.bseCode) {
      if (row.bseCode && this.byBseCode.get(row.bseCode) === row) this.byBseCode.delete(row.bseCode);
      row.bseCode = o.bseCode;
    }
    if (o.bseSymbol) row.bseSymbol = o.bseSymbol;
    if (o.name) {
      const authoritative =
        primary ||
        (o.source === 'bse-master' && (!row.nseSymbol || row.status !== 'listed')) ||
        (o.source === 'nse-delisted' && row.status !== 'listed') ||
        (o.source === 'bse-2015' && row.status !== 'listed' && !row.nseSymbol);
      if (authoritative || !row.name) row.name = o.name;
    }
    if (o.series && primary) row.series = o.series;
    if (o.stockType && (primary || row.id === undefined)) row.stockType = o.stockType;
    if (o.board && o.source === 'nse-list') row.board = o.board;
    if (o.listedOn !== undefined && primary) row.listedOn = o.listedOn;
    if (
      o.faceValue !== undefined &&
      Number.isFinite(o.faceValue) &&
      (primary || row.faceValue === null || (o.source === 'bse-master' && row.series === null))
    )
      row.faceValue = o.faceValue;
    if (o.about && !row.about) row.about = o.about;
    // BSE's four levels win when BSE classifies the scrip at all ("-" for funds and the like).
    if (o.source === 'bse-master' && (o.macroSector || o.sector || o.industry || o.basicIndustry)) {
      row.macroSector = o.macroSector ?? null;
      row.sector = o.sector ?? null;
      row.industry = o.industry ?? null;
      row.basicIndustry = o.basicIndustry ?? null;
    } else if (o.source === 'nse-index' && o.sector && row.basicIndustry === null) {
      row.sector = o.sector;
      row.macroSector = macroFor(o.sector);
    } else if (o.sector !== undefined && row.sector === null && row.basicIndustry === null) {
      row.macroSector = o.macroSector ?? null;
      row.sector = o.sector;
      row.industry = o.industry ?? null;
    }
  }

  /**
   * The path symbol of every stock: a listed stock's NSE symbol, else its BSE code, else (a company
   * delisted from NSE) its old symbol while no listed stock uses it, else its ISIN, else symbol-year.
   */
  private assignSymbols(): void {
    const taken = new Set<string>();
    const order = [...this.rows].sort((a, b) => {
      const rank = (r: Row) => (r.status === 'listed' ? (r.nseSymbol ? 0 : 1) : r.bseCode ? 2 : 3);
      return (
        rank(a) - rank(b) ||
        (b.delistedOn ?? 0) - (a.delistedOn ?? 0) ||
        (a.isin ?? '').localeCompare(b.isin ?? '') ||
        a.name.localeCompare(b.name)
      );
    });
    for (const r of order) {
      const candidates = [
        r.status === 'listed' ? r.nseSymbol : null,
        r.bseCode,
        r.nseSymbol,
        r.isin,
        r.nseSymbol && `${r.nseSymbol}-${r.delistedOn === null ? 'OLD' : yearOf(r.delistedOn)}`,
      ].filter((c): c is string => !!c && /^[A-Za-z0-9&._-]{1,64}$/.test(c));
      const symbol =
        candidates.find((c) => !taken.has(c.toUpperCase())) ??
        `S${formatDay(r.listedOn ?? 0).replace(/-/g, '')}${taken.size}`;
      taken.add(symbol.toUpperCase());
      r.symbol = symbol;
    }
  }

  /** Writes new and changed stocks; returns how many rows changed. */
  async flush(client: pg.PoolClient): Promise<number> {
    this.assignSymbols();
    const changed = this.rows.filter(
      (r) => r.id === undefined || this.original.get(r) !== JSON.stringify(FIELDS.map((f) => r[f])),
    );
    if (changed.length === 0) return 0;
    // Symbols may move between stocks (a listing takes over an old delisted symbol): park them first.
    const moving = changed.filter((r) => r.id !== undefined);
    if (moving.length > 0)
      await client.query(`UPDATE stocks SET symbol = 'tmp-' || id WHERE id = ANY($1::int[])`, [
        moving.map((r) => r.id),
      ]);
    const values = (r: Row) =>
      FIELDS.map((f) => (DATE_FIELDS.has(f) ? (r[f] === null ? null : formatDay(r[f] as number)) : r[f]));
    const placeholders = FIELDS.map((f, i) => `$${i + 1}${DATE_FIELDS.has(f) ? '::date' : ''}`).join(', ');
    for (const r of changed) {
      if (r.id === undefined) {
        const { rows } = await client.query<{ id: number }>(
          `INSERT INTO stocks (${FIELDS.map((f) => COLUMNS[f]).join(', ')}) VALUES (${placeholders}) RETURNING id`,
          values(r),
        );
        r.id = rows[0]!.id;
      } else {
        await client.query(
          `UPDATE stocks SET (${FIELDS.map((f) => COLUMNS[f]).join(', ')}) = ROW(${placeholders}) WHERE id = $${FIELDS.length + 1}`,
          [...values(r), r.id],
        );
      }
      this.original.set(r, JSON.stringify(FIELDS.map((f) => r[f])));
    }
    return changed.length;
  }
}

/** Inserts aliases that are not there yet; returns how many were new. */
export async function addAliases(
  client: pg.PoolClient,
  aliases: { stockId: number; kind: AliasKind; alias: string; until: DayNumber | null }[],
): Promise<number> {
  const unique = new Map(aliases.map((a) => [`${a.stockId}\u0000${a.kind}\u0000${a.alias}`, a]));
  aliases = [...unique.values()];
  if (aliases.length === 0) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO aliases (stock_id, kind, alias, until)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::date[])
     ON CONFLICT (stock_id, kind, alias) DO UPDATE SET until = EXCLUDED.until
       WHERE aliases.until IS DISTINCT FROM EXCLUDED.until`,
    [
      aliases.map((a) => a.stockId),
      aliases.map((a) => a.kind),
      aliases.map((a) => a.alias),
      aliases.map((a) => (a.until === null ? null : formatDay(a.until))),
    ],
  );
  return rowCount ?? 0;
}
