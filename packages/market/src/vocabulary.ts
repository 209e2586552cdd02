/**
 * The closed sets the dataset's rows take their values from and the API publishes as enums: one
 * definition, so a value added here is both generated and served. The gateway imports this file alone
 * (`@mdp/market/vocabulary`), so it imports nothing: the generator must not reach the gateway's bundle.
 * Order matters: the OpenAPI document lists each enum in this order.
 */

export const STOCK_TYPES = [
  'equity',
  'etf',
  'index_fund',
  'closed_end_fund',
  'bond',
  'reit',
  'invit',
  'preference',
  'warrant',
  'depository_receipt',
] as const;
export type StockType = (typeof STOCK_TYPES)[number];

export const BOARDS = ['main', 'sme'] as const;
export type Board = (typeof BOARDS)[number];

export const LISTING_STATUSES = ['listed', 'delisted', 'suspended'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** The corporate actions that adjust prices; every other kind is an event (EVENT_KINDS). */
export const ACTION_KINDS = ['split', 'bonus'] as const;
export type CorporateActionKind = (typeof ACTION_KINDS)[number];

export const EVENT_KINDS = [
  'dividend',
  'agm',
  'rights',
  'demerger',
  'buyback',
  'capital_reduction',
  'other',
] as const;
export type CorporateEventKind = (typeof EVENT_KINDS)[number];

export const RATING_ACTIONS = ['upgrade', 'downgrade', 'reaffirm', 'assigned'] as const;
export type RatingAction = (typeof RATING_ACTIONS)[number];

/**
 * The kinds of a stock's filings. No row holds them: equities-data derives each company's filings from
 * its statements, corporate events, ratings and pledges (`filingsOf`), and the API publishes the set.
 */
export const FILING_TYPES = [
  'results',
  'presentation',
  'concall_transcript',
  'annual_report',
  'credit_rating',
  'announcement',
] as const;
export type FilingType = (typeof FILING_TYPES)[number];

export const DEAL_KINDS = ['bulk', 'block', 'insider', 'sast'] as const;
export type DealKind = (typeof DEAL_KINDS)[number];

export const DEAL_SIDES = ['buy', 'sell'] as const;
export type DealSide = (typeof DEAL_SIDES)[number];

export const PLEDGE_EVENT_KINDS = ['creation', 'release'] as const;
export type PledgeEventKind = (typeof PLEDGE_EVENT_KINDS)[number];

export const NEWS_CATEGORIES = [
  'companies',
  'results',
  'markets',
  'economy',
  'global',
  'ipo',
  'commodities',
] as const;
export type NewsCategory = (typeof NEWS_CATEGORIES)[number];

export const SENTIMENTS = ['positive', 'negative', 'neutral'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** The stored statement sections; `ratios` is derived from these when a document is built. */
export const STATEMENT_SECTIONS = ['quarterly', 'profit_loss', 'balance_sheet', 'cash_flow'] as const;
export type StatementSection = (typeof STATEMENT_SECTIONS)[number];

export const STATEMENT_BASES = ['consolidated', 'standalone'] as const;
export type StatementBasis = (typeof STATEMENT_BASES)[number];

export const INDEX_FAMILIES = ['broad', 'sectoral', 'thematic', 'strategy'] as const;
export type IndexFamily = (typeof INDEX_FAMILIES)[number];

/** The F&O participants of NSE's participant-wise files; the market `total` is not one of them. */
export const PARTICIPANTS = ['client', 'dii', 'fii', 'pro'] as const;
export type FoParticipant = (typeof PARTICIPANTS)[number];

/** Options by calls and puts, as the participant-wise files have them; FII statistics do not split them. */
export const FO_INSTRUMENTS = [
  'index_futures',
  'stock_futures',
  'index_calls',
  'index_puts',
  'stock_calls',
  'stock_puts',
] as const;
export type FoInstrument = (typeof FO_INSTRUMENTS)[number];

export const FII_DERIVATIVE_INSTRUMENTS = [
  'index_futures',
  'index_options',
  'stock_futures',
  'stock_options',
] as const;
export type FiiDerivativeInstrument = (typeof FII_DERIVATIVE_INSTRUMENTS)[number];

/** The kinds of filed document the filings reader holds and serves (a concall transcript, a prospectus…). */
export const DOC_TYPES = ['concall', 'annual_report', 'presentation', 'drhp', 'rhp'] as const;
export type DocType = (typeof DOC_TYPES)[number];
