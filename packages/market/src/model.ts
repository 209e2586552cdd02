import type { DayNumber } from '@mdp/nse-calendar';
import type { Board, CorporateActionKind, ListingStatus, RatingAction, StockType } from './vocabulary.ts';

/**
 * The rows of the dataset as importers, the generator, the store and the service all see them.
 * Prices are integer paise; amounts of annual results are rupees crore.
 */
export type AliasKind = 'brand' | 'former_name' | 'former_symbol';

export interface StockRow {
  id: number;
  symbol: string;
  name: string;
  isin: string | null;
  nseSymbol: string | null;
  bseCode: string | null;
  bseSymbol: string | null;
  series: string | null;
  stockType: StockType;
  board: Board;
  macroSector: string | null;
  sector: string | null;
  industry: string | null;
  basicIndustry: string | null;
  status: ListingStatus;
  listedOn: DayNumber | null;
  delistedOn: DayNumber | null;
  delistingReason: string | null;
  faceValue: number | null;
  sharesOutstanding: number | null;
  about: string | null;
}

export interface AliasRow {
  stockId: number;
  kind: AliasKind;
  alias: string;
  until: DayNumber | null;
}

export interface BarRow {
  stockId: number;
  d: DayNumber;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  deliveryQty: number | null;
}

export interface CorporateActionRow {
  stockId: number;
  exDate: DayNumber;
  kind: CorporateActionKind;
  ratioNew: number;
  ratioOld: number;
  description: string;
}

export interface AnnualResultRow {
  stockId: number;
  fiscalYear: number;
  sales: number;
  netProfit: number;
  equity: number;
  borrowings: number;
  ebit: number;
  dividendPs: number;
}

export interface CreditRatingRow {
  stockId: number;
  agency: string;
  rating: string;
  outlook: string | null;
  action: RatingAction;
  ratedOn: DayNumber;
}

export interface MarketReportRow {
  stockId: number;
  d: DayNumber;
  close: number | null;
  issueSize: number | null;
  marketCap: number | null;
  pe: number | null;
}

/** A bar's prices are consistent: positive, and high/low bound open and close. */
export function isConsistentBar(b: Pick<BarRow, 'open' | 'high' | 'low' | 'close'>): boolean {
  return b.low > 0 && b.low <= b.open && b.low <= b.close && b.high >= b.open && b.high >= b.close;
}
