import type {
  AliasRow,
  AnnualResultRow,
  BarRow,
  CorporateActionRow,
  CreditRatingAction,
  MarketReportRow,
  StockRow,
} from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';
import { adjustmentFactor } from './domain/adjust.ts';
import { type SearchDoc, SearchIndex } from './domain/search/index.ts';
import type { DatasetSnapshot } from './read.ts';

/** One stock with everything a quote needs, computed once when the dataset loads. */
export interface StockEntry {
  row: StockRow;
  /** Position in search rank order. */
  rank: number;
  aliases: AliasRow[];
  actions: CorporateActionRow[];
  annual: AnnualResultRow[];
  /** Credit-rating actions, newest first. */
  ratings: CreditRatingAction[];
  lastBar: BarRow | undefined;
  /** Previous session's close in paise, on the last bar's share basis. */
  prevClose: number | undefined;
  firstDay: DayNumber | undefined;
  /** 52-week high and low in paise, on the last bar's share basis. */
  range52: { high: number; low: number } | undefined;
  shares: number | undefined;
  /** Rupees crore at the last close. */
  marketCapCr: number | undefined;
  /** Trailing earnings and book value per share in rupees, on the current share basis. */
  eps: number | undefined;
  bookValuePs: number | undefined;
}

function groupBy<T extends { stockId: number }>(rows: readonly T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const r of rows) {
    const list = map.get(r.stockId);
    if (list) list.push(r);
    else map.set(r.stockId, [r]);
  }
  return map;
}

/** Shares from the latest market report, carried forward over later splits and bonuses. */
function sharesFrom(
  row: StockRow,
  reports: MarketReportRow[],
  actions: CorporateActionRow[],
): number | undefined {
  if (row.sharesOutstanding !== null) return row.sharesOutstanding;
  const latest = reports.filter((r) => r.issueSize !== null).at(-1);
  if (!latest) return undefined;
  return Math.round(latest.issueSize! / adjustmentFactor(actions, latest.d));
}

/** EPS implied by the latest reported P/E, when the annual results give none. */
function epsFromReports(reports: MarketReportRow[], actions: CorporateActionRow[]): number | undefined {
  const latest = reports.filter((r) => r.pe !== null && r.pe > 0 && r.close !== null).at(-1);
  if (!latest) return undefined;
  return ((latest.close! / 100) * adjustmentFactor(actions, latest.d)) / latest.pe!;
}

/**
 * The in-memory dataset the service answers from: stocks in search rank order (listed first, then by
 * market cap), lookup by every identifier a client may use in a path, the search index and the
 * per-stock quote basis. Built from a snapshot of the database, so it is a pure function of the data.
 */
export class EquitiesDataset {
  readonly entries: StockEntry[];
  readonly search: SearchIndex;
  /** The latest bar day of any stock: the dataset's "as of". */
  readonly lastDay: DayNumber | undefined;
  private readonly byKey = new Map<string, StockEntry>();
  private readonly byIndustry = new Map<string, StockEntry[]>();

  constructor(snap: DatasetSnapshot) {
    const aliases = groupBy(snap.aliases);
    const actions = groupBy(snap.actions);
    const annual = groupBy(snap.annual);
    const ratings = groupBy(snap.ratings);
    const reports = groupBy(snap.reports);
    let lastDay: DayNumber | undefined;
    const entries: StockEntry[] = snap.stocks.map((row) => {
      const acts = (actions.get(row.id) ?? []).sort((a, b) => a.exDate - b.exDate);
      const [lastBar, prevBar] = snap.lastBars.get(row.id) ?? [];
      if (lastBar && (lastDay === undefined || lastBar.d > lastDay)) lastDay = lastBar.d;
      const reps = reports.get(row.id) ?? [];
      const shares = sharesFrom(row, reps, acts);
      const years = annual.get(row.id) ?? [];
      const latestYear = years.at(-1);
      const ltp = lastBar ? lastBar.close / 100 : undefined;
      const eps = latestYear && shares ? (latestYear.netProfit * 1e7) / shares : epsFromReports(reps, acts);
      return {
        row,
        rank: 0,
        aliases: aliases.get(row.id) ?? [],
        actions: acts,
        annual: years,
        ratings: ratings.get(row.id) ?? [],
        lastBar,
        prevClose:
          lastBar && prevBar
            ? Math.round(
                (prevBar.close * adjustmentFactor(acts, prevBar.d)) / adjustmentFactor(acts, lastBar.d),
              )
            : undefined,
        firstDay: snap.firstDay.get(row.id),
        range52: snap.range52.get(row.id),
        shares,
        marketCapCr: shares && ltp ? (shares * ltp) / 1e7 : undefined,
        eps,
        bookValuePs: latestYear && shares ? (latestYear.equity * 1e7) / shares : undefined,
      };
    });
    // Rank: listed first, then larger market cap; stocks without one after, by name.
    entries.sort((a, b) => {
      const la = a.row.status === 'listed' ? 0 : 1;
      const lb = b.row.status === 'listed' ? 0 : 1;
      if (la !== lb) return la - lb;
      const ma = a.marketCapCr ?? -1;
      const mb = b.marketCapCr ?? -1;
      if (ma !== mb) return mb - ma;
      return a.row.name < b.row.name ? -1 : a.row.name > b.row.name ? 1 : a.row.id - b.row.id;
    });
    entries.forEach((e, i) => {
      e.rank = i;
    });
    this.entries = entries;
    this.lastDay = lastDay;

    // Path lookup: earlier kinds of identifier win, and within a kind the better-ranked stock.
    const keyKinds: ((e: StockEntry) => (string | null)[])[] = [
      (e) => [e.row.symbol],
      (e) => [e.row.status === 'listed' ? e.row.nseSymbol : null],
      (e) => [e.row.bseCode, e.row.isin],
      (e) => [e.row.nseSymbol, e.row.bseSymbol],
      (e) => e.aliases.filter((a) => a.kind === 'former_symbol').map((a) => a.alias),
    ];
    for (const keys of keyKinds) {
      for (const e of entries) {
        for (const k of keys(e))
          if (k && !this.byKey.has(k.toUpperCase())) this.byKey.set(k.toUpperCase(), e);
      }
    }
    for (const e of entries) {
      if (!e.row.industry) continue;
      const list = this.byIndustry.get(e.row.industry) ?? [];
      list.push(e);
      this.byIndustry.set(e.row.industry, list);
    }
    this.search = new SearchIndex(entries.map(searchDoc));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The stock a path symbol names: symbol, NSE symbol, BSE code, ISIN, BSE scrip id or former symbol. */
  resolve(symbol: string): StockEntry | undefined {
    return this.byKey.get(symbol.trim().toUpperCase());
  }

  /** Listed companies of the same industry and kind, largest first. */
  peers(entry: StockEntry, limit: number): StockEntry[] {
    const industry = entry.row.industry;
    if (!industry) return [];
    return (this.byIndustry.get(industry) ?? [])
      .filter((e) => e !== entry && e.row.status === 'listed' && e.row.stockType === entry.row.stockType)
      .slice(0, limit);
  }
}

function searchDoc(e: StockEntry): SearchDoc {
  const r = e.row;
  return {
    listed: r.status === 'listed',
    codes: [r.symbol, r.nseSymbol, r.bseCode, r.bseSymbol, r.isin].filter((c): c is string => !!c),
    name: r.name,
    aliases: e.aliases.filter((a) => a.kind !== 'former_symbol').map((a) => a.alias),
    formerSymbols: e.aliases.filter((a) => a.kind === 'former_symbol').map((a) => a.alias),
    sector: r.sector,
    macroSector: r.macroSector,
    industry: r.industry,
    basicIndustry: r.basicIndustry,
  };
}
