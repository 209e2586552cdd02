import type { IndexFamily } from '../../vocabulary.ts';

/**
 * The generated index family: about 140 indices named after NSE's own, each a rule over the generated
 * universe. Candidates are listed main-board equities ranked by market capitalisation on the last day
 * (rank 1 is the largest), optionally narrowed to sectors, industries or a tag; the constituents are
 * the `pick` best candidates by `by` (size unless a factor is named).
 */

/** What a strategy index selects on (best first): see selection.ts for each one's measure. */
export type Factor =
  | 'size'
  | 'lowvol'
  | 'beta'
  | 'momentum'
  | 'alpha'
  | 'quality'
  | 'value'
  | 'dividend'
  | 'liquidity'
  | 'esg';

/** Generated company traits beyond the stock master (public sector, multinational, recent listing). */
export type Tag = 'psu' | 'private' | 'mnc' | 'ipo' | 'shariah';

export interface IndexDefinition {
  name: string;
  family: IndexFamily;
  /** Market-cap ranks among listed main-board equities, both inclusive; `sme` is the SME board instead. */
  ranks: readonly [number, number] | 'sme';
  sectors?: readonly string[];
  industries?: readonly string[];
  excludeIndustries?: readonly string[];
  tag?: Tag;
  pick: number;
  /** Factors ranked together (sum of ranks); size when absent. */
  by?: readonly Factor[];
  weighting: 'cap' | 'equal';
  /** Level on the first day with constituents. */
  base: number;
}

type Options = Partial<Omit<IndexDefinition, 'name' | 'family'>>;

const N50 = [1, 50] as const;
const N100 = [1, 100] as const;
const N200 = [1, 200] as const;
const N500 = [1, 500] as const;
const MID150 = [101, 250] as const;
const SMALL250 = [251, 500] as const;
const MIDSMALL400 = [101, 500] as const;

function def(name: string, family: IndexFamily, o: Options): IndexDefinition {
  const ranks = o.ranks ?? N500;
  const pick = o.pick ?? (ranks === 'sme' ? 50 : ranks[1] - ranks[0] + 1);
  return { ...o, name, family, ranks, pick, weighting: o.weighting ?? 'cap', base: o.base ?? 1000 };
}

const broad = (name: string, from: number, to: number, o: Options = {}) =>
  def(name, 'broad', { ranks: [from, to], ...o });
const sectoral = (name: string, pick: number, o: Options) => def(name, 'sectoral', { pick, ...o });
const thematic = (name: string, pick: number, o: Options) => def(name, 'thematic', { pick, ...o });
const strategy = (name: string, ranks: readonly [number, number], pick: number, o: Options) =>
  def(name, 'strategy', { ranks, pick, ...o });

const FIN = 'Financial Services';
const IT = 'Information Technology';
const HEALTH = 'Healthcare';
const FMCG = 'Fast Moving Consumer Goods';
const AUTO = 'Automobile and Auto Components';
const OIL = 'Oil, Gas & Consumable Fuels';
const CONSUMPTION = [
  FMCG,
  'Consumer Durables',
  'Consumer Services',
  AUTO,
  'Media, Entertainment & Publication',
];
const INFRA = [
  'Construction',
  'Power',
  'Telecommunication',
  'Construction Materials',
  'Realty',
  OIL,
  'Capital Goods',
];
const COMMODITIES = [
  'Chemicals',
  'Metals & Mining',
  'Construction Materials',
  OIL,
  'Power',
  'Forest Materials',
];
const MANUFACTURING = [
  'Capital Goods',
  'Chemicals',
  AUTO,
  'Consumer Durables',
  HEALTH,
  'Metals & Mining',
  'Textiles',
];
const SERVICES = [
  FIN,
  IT,
  'Services',
  'Telecommunication',
  'Media, Entertainment & Publication',
  'Consumer Services',
];

export const INDEX_DEFINITIONS: readonly IndexDefinition[] = [
  // Broad market: slices of the market-cap ranking.
  broad('NIFTY 50', 1, 50, { base: 13_500 }),
  broad('NIFTY NEXT 50', 51, 100, { base: 31_000 }),
  broad('NIFTY 100', 1, 100, { base: 13_800 }),
  broad('NIFTY 200', 1, 200, { base: 7_200 }),
  broad('NIFTY 500', 1, 500, { base: 11_300 }),
  broad('NIFTY TOTAL MARKET', 1, 750, { base: 7_000 }),
  broad('NIFTY MIDCAP 50', 101, 150, { base: 6_300 }),
  broad('NIFTY MIDCAP 100', 101, 200, { base: 21_000 }),
  broad('NIFTY MIDCAP 150', 101, 250, { base: 8_200 }),
  broad('NIFTY MIDCAP SELECT', 101, 250, { pick: 25, by: ['liquidity'], base: 5_500 }),
  broad('NIFTY SMALLCAP 50', 251, 300, { base: 3_800 }),
  broad('NIFTY SMALLCAP 100', 251, 350, { base: 7_300 }),
  broad('NIFTY SMALLCAP 250', 251, 500, { base: 6_600 }),
  broad('NIFTY MICROCAP 250', 501, 750, { base: 9_000 }),
  broad('NIFTY LARGEMIDCAP 250', 1, 250, { base: 8_900 }),
  broad('NIFTY MIDSMALLCAP 400', 101, 500, { base: 8_100 }),
  def('NIFTY SME EMERGE', 'broad', { ranks: 'sme', pick: 50, base: 2_000 }),
  broad('NIFTY TOP 10 EQUAL WEIGHT', 1, 10, { weighting: 'equal' }),
  broad('NIFTY TOP 15 EQUAL WEIGHT', 1, 15, { weighting: 'equal' }),
  broad('NIFTY TOP 20 EQUAL WEIGHT', 1, 20, { weighting: 'equal' }),

  // Sectoral: the largest companies of a sector or industry among the top 500.
  sectoral('NIFTY BANK', 12, { industries: ['Banks'], base: 30_000 }),
  sectoral('NIFTY PRIVATE BANK', 10, { industries: ['Banks'], tag: 'private', base: 17_500 }),
  sectoral('NIFTY PSU BANK', 12, { ranks: [1, 750], industries: ['Banks'], tag: 'psu', base: 2_000 }),
  sectoral('NIFTY FINANCIAL SERVICES', 20, { sectors: [FIN], base: 14_500 }),
  sectoral('NIFTY FINANCIAL SERVICES 25/50', 25, { sectors: [FIN], base: 16_000 }),
  sectoral('NIFTY FINANCIAL SERVICES EX-BANK', 20, {
    sectors: [FIN],
    excludeIndustries: ['Banks'],
    base: 16_000,
  }),
  sectoral('NIFTY MIDSMALL FINANCIAL SERVICES', 30, { ranks: MIDSMALL400, sectors: [FIN] }),
  sectoral('NIFTY IT', 10, { sectors: [IT], base: 21_000 }),
  sectoral('NIFTY MIDSMALL IT & TELECOM', 30, { ranks: MIDSMALL400, sectors: [IT, 'Telecommunication'] }),
  sectoral('NIFTY AUTO', 15, { sectors: [AUTO], base: 9_000 }),
  sectoral('NIFTY PHARMA', 20, { industries: ['Pharmaceuticals & Biotechnology'], base: 12_500 }),
  sectoral('NIFTY HEALTHCARE INDEX', 20, { sectors: [HEALTH], base: 7_000 }),
  sectoral('NIFTY MIDSMALL HEALTHCARE', 30, { ranks: MIDSMALL400, sectors: [HEALTH] }),
  sectoral('NIFTY FMCG', 15, { sectors: [FMCG], base: 33_000 }),
  sectoral('NIFTY METAL', 15, { sectors: ['Metals & Mining'], base: 3_400 }),
  sectoral('NIFTY REALTY', 10, { sectors: ['Realty'], base: 320 }),
  sectoral('NIFTY MEDIA', 10, { sectors: ['Media, Entertainment & Publication'], base: 1_700 }),
  sectoral('NIFTY OIL & GAS', 15, { sectors: [OIL], base: 6_500 }),
  sectoral('NIFTY ENERGY', 20, { sectors: [OIL, 'Power'], base: 17_000 }),
  sectoral('NIFTY CONSUMER DURABLES', 15, { sectors: ['Consumer Durables'], base: 20_000 }),
  sectoral('NIFTY CHEMICALS', 20, { sectors: ['Chemicals'] }),
  sectoral('NIFTY CAPITAL GOODS', 20, { sectors: ['Capital Goods'] }),
  sectoral('NIFTY CEMENT & CONSTRUCTION MATERIALS', 10, { sectors: ['Construction Materials'] }),
  sectoral('NIFTY TEXTILES', 10, { sectors: ['Textiles'] }),
  sectoral('NIFTY POWER', 10, { sectors: ['Power'] }),
  sectoral('NIFTY TELECOM', 10, { sectors: ['Telecommunication'] }),
  sectoral('NIFTY CONSTRUCTION', 15, { sectors: ['Construction'] }),
  sectoral('NIFTY SERVICES', 15, { sectors: ['Services'] }),
  sectoral('NIFTY INSURANCE', 10, { industries: ['Insurance'] }),
  sectoral('NIFTY FINANCE', 15, { industries: ['Finance'] }),
  sectoral('NIFTY FERTILIZERS & AGROCHEMICALS', 10, { industries: ['Fertilizers & Agrochemicals'] }),
  sectoral('NIFTY AUTO COMPONENTS', 15, { industries: ['Auto Components'] }),
  sectoral('NIFTY RETAILING', 10, { industries: ['Retailing'] }),
  sectoral('NIFTY HEALTHCARE SERVICES', 10, { industries: ['Healthcare Services'] }),
  sectoral('NIFTY FOOD PRODUCTS', 10, {
    industries: ['Food Products', 'Agricultural Food & other Products'],
  }),
  sectoral('NIFTY MIDSMALL CHEMICALS', 20, { ranks: MIDSMALL400, sectors: ['Chemicals'] }),
  sectoral('NIFTY MIDSMALL CAPITAL GOODS', 20, { ranks: MIDSMALL400, sectors: ['Capital Goods'] }),
  sectoral('NIFTY MIDSMALL AUTO', 20, { ranks: MIDSMALL400, sectors: [AUTO] }),

  // Thematic: several sectors around a theme, or companies sharing a trait.
  thematic('NIFTY COMMODITIES', 30, { sectors: COMMODITIES, base: 4_300 }),
  thematic('NIFTY INDIA CONSUMPTION', 30, { sectors: CONSUMPTION, base: 5_800 }),
  thematic('NIFTY MIDSMALL INDIA CONSUMPTION', 30, { ranks: MIDSMALL400, sectors: CONSUMPTION }),
  thematic('NIFTY NON-CYCLICAL CONSUMER', 30, { sectors: [FMCG, HEALTH, 'Telecommunication', 'Power'] }),
  thematic('NIFTY INDIA NEW AGE CONSUMPTION', 30, {
    industries: ['Retailing', 'Leisure Services', 'Entertainment', 'Personal Products', 'IT - Services'],
  }),
  thematic('NIFTY RURAL', 30, {
    industries: [
      'Fertilizers & Agrochemicals',
      'Automobiles',
      'Food Products',
      'Agricultural Food & other Products',
      'Finance',
      'Personal Products',
    ],
  }),
  thematic('NIFTY INFRASTRUCTURE', 30, { sectors: INFRA, base: 4_100 }),
  thematic('NIFTY500 MULTICAP INFRASTRUCTURE 50:30:20', 50, { sectors: INFRA }),
  thematic('NIFTY CORE HOUSING', 25, {
    sectors: ['Realty', 'Construction Materials'],
    industries: ['Paints & Coatings', 'Consumer Durables'],
  }),
  thematic('NIFTY HOUSING', 30, {
    sectors: ['Realty', 'Construction Materials', 'Construction'],
    industries: ['Finance', 'Paints & Coatings'],
  }),
  thematic('NIFTY PSE', 20, { tag: 'psu', base: 3_000 }),
  thematic('NIFTY CPSE', 12, {
    tag: 'psu',
    excludeIndustries: ['Banks', 'Finance', 'Insurance'],
    base: 1_800,
  }),
  thematic('NIFTY INDIA RAILWAYS PSU', 10, {
    tag: 'psu',
    industries: ['Transport Services', 'Industrial Manufacturing', 'Construction', 'Finance'],
  }),
  thematic('NIFTY INDIA DEFENCE', 15, { industries: ['Aerospace & Defense', 'Electrical Equipment'] }),
  thematic('NIFTY SERVICES SECTOR', 30, { sectors: SERVICES, base: 21_000 }),
  thematic('NIFTY MNC', 30, { tag: 'mnc', base: 17_000 }),
  thematic('NIFTY INDIA DIGITAL', 30, {
    sectors: [IT, 'Telecommunication'],
    industries: ['Retailing', 'Entertainment'],
  }),
  thematic('NIFTY INDIA INTERNET & E-COMMERCE', 15, {
    industries: ['Retailing', 'IT - Services', 'Leisure Services'],
  }),
  thematic('NIFTY MOBILITY', 30, {
    sectors: [AUTO],
    industries: ['Transport Services', 'Petroleum Products'],
  }),
  thematic('NIFTY EV & NEW AGE AUTOMOTIVE', 30, {
    sectors: [AUTO],
    industries: ['Electrical Equipment', 'Non - Ferrous Metals'],
  }),
  thematic('NIFTY TRANSPORTATION & LOGISTICS', 30, { sectors: [AUTO], industries: ['Transport Services'] }),
  thematic('NIFTY INDIA TOURISM', 15, { industries: ['Leisure Services', 'Transport Services'] }),
  thematic('NIFTY INDIA MANUFACTURING', 75, { sectors: MANUFACTURING }),
  thematic('NIFTY500 MULTICAP INDIA MANUFACTURING 50:30:20', 75, {
    sectors: MANUFACTURING,
    weighting: 'equal',
  }),
  thematic('NIFTY CAPITAL MARKETS', 15, { industries: ['Capital Markets'] }),
  thematic('NIFTY IPO', 50, { ranks: [1, 750], tag: 'ipo' }),
  thematic('NIFTY GROWTH SECTORS 15', 15, {
    ranks: N200,
    sectors: [IT, FMCG, HEALTH, AUTO, 'Consumer Durables'],
  }),
  thematic('NIFTY50 SHARIAH', 50, { ranks: N100, tag: 'shariah' }),
  thematic('NIFTY500 SHARIAH', 150, { tag: 'shariah' }),
  thematic('NIFTY SHARIAH 25', 25, { ranks: N200, tag: 'shariah' }),
  thematic('NIFTY100 ESG', 90, { ranks: N100, by: ['esg'] }),
  thematic('NIFTY100 ENHANCED ESG', 60, { ranks: N100, by: ['esg'] }),
  thematic('NIFTY100 ESG SECTOR LEADERS', 40, { ranks: N100, by: ['esg', 'size'] }),
  thematic('NIFTY INDIA SELECT PSU LEADERS', 10, { ranks: N200, tag: 'psu', by: ['quality', 'size'] }),
  thematic('NIFTY MIDCAP MNC', 20, { ranks: MID150, tag: 'mnc' }),
  thematic('NIFTY AGRICULTURE', 20, {
    industries: ['Fertilizers & Agrochemicals', 'Agricultural Food & other Products', 'Food Products'],
  }),
  thematic('NIFTY GREEN ENERGY', 15, { sectors: ['Power'], industries: ['Electrical Equipment'] }),
  thematic('NIFTY INDIA METALS & MINING', 20, { ranks: [1, 750], sectors: ['Metals & Mining'] }),
  thematic('NIFTY MIDSMALL INFRASTRUCTURE', 30, { ranks: MIDSMALL400, sectors: INFRA }),

  // Strategy: factor screens and weighting schemes.
  strategy('NIFTY50 EQUAL WEIGHT', N50, 50, { weighting: 'equal' }),
  strategy('NIFTY100 EQUAL WEIGHT', N100, 100, { weighting: 'equal' }),
  strategy('NIFTY500 EQUAL WEIGHT', N500, 500, { weighting: 'equal' }),
  strategy('NIFTY100 LIQUID 15', N100, 15, { by: ['liquidity'] }),
  strategy('NIFTY MIDCAP LIQUID 15', MID150, 15, { by: ['liquidity'] }),
  strategy('NIFTY ALPHA 50', [1, 300], 50, { by: ['alpha'], weighting: 'equal' }),
  strategy('NIFTY100 ALPHA 30', N100, 30, { by: ['alpha'] }),
  strategy('NIFTY200 ALPHA 30', N200, 30, { by: ['alpha'] }),
  strategy('NIFTY HIGH BETA 50', [1, 300], 50, { by: ['beta'] }),
  strategy('NIFTY LOW VOLATILITY 50', [1, 300], 50, { by: ['lowvol'] }),
  strategy('NIFTY100 LOW VOLATILITY 30', N100, 30, { by: ['lowvol'], base: 12_000 }),
  strategy('NIFTY500 LOW VOLATILITY 50', N500, 50, { by: ['lowvol'] }),
  strategy('NIFTY ALPHA LOW-VOLATILITY 30', N100, 30, { by: ['alpha', 'lowvol'] }),
  strategy('NIFTY100 QUALITY 30', N100, 30, { by: ['quality'] }),
  strategy('NIFTY200 QUALITY 30', N200, 30, { by: ['quality'] }),
  strategy('NIFTY500 QUALITY 50', N500, 50, { by: ['quality'] }),
  strategy('NIFTY MIDCAP150 QUALITY 50', MID150, 50, { by: ['quality'] }),
  strategy('NIFTY SMALLCAP250 QUALITY 50', SMALL250, 50, { by: ['quality'] }),
  strategy('NIFTY QUALITY LOW-VOLATILITY 30', N200, 30, { by: ['quality', 'lowvol'] }),
  strategy('NIFTY ALPHA QUALITY LOW-VOLATILITY 30', N200, 30, { by: ['alpha', 'quality', 'lowvol'] }),
  strategy('NIFTY ALPHA QUALITY VALUE LOW-VOLATILITY 30', N200, 30, {
    by: ['alpha', 'quality', 'value', 'lowvol'],
  }),
  strategy('NIFTY50 VALUE 20', N50, 20, { by: ['value'] }),
  strategy('NIFTY200 VALUE 30', N200, 30, { by: ['value'] }),
  strategy('NIFTY500 VALUE 50', N500, 50, { by: ['value'] }),
  strategy('NIFTY MIDCAP150 VALUE 50', MID150, 50, { by: ['value'] }),
  strategy('NIFTY200 MOMENTUM 30', N200, 30, { by: ['momentum'] }),
  strategy('NIFTY500 MOMENTUM 50', N500, 50, { by: ['momentum'] }),
  strategy('NIFTY MIDCAP150 MOMENTUM 50', MID150, 50, { by: ['momentum'] }),
  strategy('NIFTY SMALLCAP250 MOMENTUM QUALITY 100', SMALL250, 100, { by: ['momentum', 'quality'] }),
  strategy('NIFTY MIDSMALLCAP400 MOMENTUM QUALITY 100', MIDSMALL400, 100, { by: ['momentum', 'quality'] }),
  strategy('NIFTY500 MULTICAP MOMENTUM QUALITY 50', N500, 50, { by: ['momentum', 'quality'] }),
  strategy('NIFTY500 MULTIFACTOR MQVLV 50', N500, 50, { by: ['momentum', 'quality', 'value', 'lowvol'] }),
  strategy('NIFTY DIVIDEND OPPORTUNITIES 50', [1, 300], 50, { by: ['dividend'], base: 3_000 }),
  strategy('NIFTY HIGH DIVIDEND YIELD 30', N200, 30, { by: ['dividend'] }),
  strategy('NIFTY MIDCAP DIVIDEND 30', MID150, 30, { by: ['dividend'] }),
  strategy('NIFTY100 LOW VOLATILITY EQUAL WEIGHT 30', N100, 30, { by: ['lowvol'], weighting: 'equal' }),
  strategy('NIFTY MIDCAP150 MOMENTUM EQUAL WEIGHT 50', MID150, 50, { by: ['momentum'], weighting: 'equal' }),
  strategy('NIFTY SMALLCAP250 LOW VOLATILITY 50', SMALL250, 50, { by: ['lowvol'] }),
  strategy('NIFTY SMALLCAP250 VALUE 50', SMALL250, 50, { by: ['value'] }),
  strategy('NIFTY SMALLCAP250 MOMENTUM 50', SMALL250, 50, { by: ['momentum'] }),
  strategy('NIFTY MIDCAP150 LOW VOLATILITY 50', MID150, 50, { by: ['lowvol'] }),
  strategy('NIFTY MIDCAP150 ALPHA 50', MID150, 50, { by: ['alpha'] }),
  strategy('NIFTY500 ALPHA 50', N500, 50, { by: ['alpha'] }),
  strategy('NIFTY500 HIGH BETA 50', N500, 50, { by: ['beta'] }),
  strategy('NIFTY50 HIGH DIVIDEND 15', N50, 15, { by: ['dividend'] }),
  strategy('NIFTY100 VALUE QUALITY 30', N100, 30, { by: ['value', 'quality'] }),
  strategy('NIFTY200 MOMENTUM LOW-VOLATILITY 30', N200, 30, { by: ['momentum', 'lowvol'] }),
];
