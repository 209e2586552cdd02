import type {
  AliasRow,
  AnnualResultRow,
  BarRow,
  CorporateActionRow,
  CreditRatingAction,
  StockRow,
} from '@mdp/market';
import { copyDay, type TableSpec, copyValue as v } from '../../store/copy.ts';

/** The stock tables' column lists and COPY encoders, one place for the loader and the importers. */

export const stocksTable: TableSpec<StockRow> = {
  table: 'stocks',
  columns: [
    'id',
    'symbol',
    'name',
    'isin',
    'nse_symbol',
    'bse_code',
    'bse_symbol',
    'series',
    'stock_type',
    'board',
    'macro_sector',
    'sector',
    'industry',
    'basic_industry',
    'status',
    'listed_on',
    'delisted_on',
    'delisting_reason',
    'face_value',
    'shares_outstanding',
    'about',
  ],
  encode: (s) => [
    v(s.id),
    v(s.symbol),
    v(s.name),
    v(s.isin),
    v(s.nseSymbol),
    v(s.bseCode),
    v(s.bseSymbol),
    v(s.series),
    v(s.stockType),
    v(s.board),
    v(s.macroSector),
    v(s.sector),
    v(s.industry),
    v(s.basicIndustry),
    v(s.status),
    copyDay(s.listedOn),
    copyDay(s.delistedOn),
    v(s.delistingReason),
    v(s.faceValue),
    v(s.sharesOutstanding),
    v(s.about),
  ],
};

export const aliasesTable: TableSpec<AliasRow> = {
  table: 'aliases',
  columns: ['stock_id', 'kind', 'alias', 'until'],
  encode: (a) => [v(a.stockId), v(a.kind), v(a.alias), copyDay(a.until)],
};

export const barsTable: TableSpec<BarRow> = {
  table: 'daily_bars',
  columns: ['stock_id', 'd', 'open', 'high', 'low', 'close', 'volume', 'delivery_qty'],
  encode: (b) => [
    String(b.stockId),
    copyDay(b.d),
    String(b.open),
    String(b.high),
    String(b.low),
    String(b.close),
    String(b.volume),
    v(b.deliveryQty),
  ],
};

export const actionsTable: TableSpec<CorporateActionRow> = {
  table: 'corporate_actions',
  columns: ['stock_id', 'ex_date', 'kind', 'ratio_new', 'ratio_old', 'description'],
  encode: (a) => [v(a.stockId), copyDay(a.exDate), v(a.kind), v(a.ratioNew), v(a.ratioOld), v(a.description)],
};

export const annualTable: TableSpec<AnnualResultRow> = {
  table: 'annual_results',
  columns: ['stock_id', 'fiscal_year', 'sales', 'net_profit', 'equity', 'borrowings', 'ebit', 'dividend_ps'],
  encode: (r) => [
    v(r.stockId),
    v(r.fiscalYear),
    v(r.sales),
    v(r.netProfit),
    v(r.equity),
    v(r.borrowings),
    v(r.ebit),
    v(r.dividendPs),
  ],
};

export const ratingsTable: TableSpec<CreditRatingAction> = {
  table: 'credit_ratings',
  columns: ['stock_id', 'agency', 'instrument', 'rating', 'outlook', 'action', 'rated_on'],
  encode: (r) => [
    v(r.stockId),
    v(r.agency),
    v(r.instrument),
    v(r.rating),
    v(r.outlook),
    v(r.action),
    copyDay(r.ratedOn),
  ],
};
