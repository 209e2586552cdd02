import type { DayNumber } from '@mdp/nse-calendar';
import type { FiiDerivativeInstrument, FoInstrument, FoParticipant } from '../../vocabulary.ts';

/**
 * Market-wide flow rows, as the generator, the importers and the service see them. Rupee amounts are
 * integers in hundredths of a crore (one lakh), so sums and `net = buy - sell` are exact.
 */

/** A cash-market figure for one session (`day`) or one calendar month (`month`, dated its last day held). */
export interface CashFlowRow {
  period: 'day' | 'month';
  d: DayNumber;
  fiiBuy: number;
  fiiSell: number;
  diiBuy: number;
  diiSell: number;
}

/** The twelve columns of NSE's participant-wise files, in the files' order. */
export const POSITION_FIELDS = [
  'futIdxLong',
  'futIdxShort',
  'futStkLong',
  'futStkShort',
  'optIdxCallLong',
  'optIdxPutLong',
  'optIdxCallShort',
  'optIdxPutShort',
  'optStkCallLong',
  'optStkPutLong',
  'optStkCallShort',
  'optStkPutShort',
] as const;
export type PositionField = (typeof POSITION_FIELDS)[number];

/** Long and short field of each instrument: every contract has a buyer and a seller. */
export const INSTRUMENT_SIDES = {
  index_futures: ['futIdxLong', 'futIdxShort'],
  stock_futures: ['futStkLong', 'futStkShort'],
  index_calls: ['optIdxCallLong', 'optIdxCallShort'],
  index_puts: ['optIdxPutLong', 'optIdxPutShort'],
  stock_calls: ['optStkCallLong', 'optStkCallShort'],
  stock_puts: ['optStkPutLong', 'optStkPutShort'],
} as const satisfies Record<FoInstrument, readonly [PositionField, PositionField]>;

/** One participant's (or the market `total`'s) F&O open interest or traded volume, in contracts. */
export interface ParticipantRow {
  d: DayNumber;
  kind: 'oi' | 'volume';
  participant: FoParticipant | 'total';
  positions: Record<PositionField, number>;
}

/** NSE's daily FII derivatives statistics: contracts and amounts bought, sold and open at the close. */
export interface FiiDerivativesRow {
  d: DayNumber;
  instrument: FiiDerivativeInstrument;
  buyContracts: number;
  buyAmount: number;
  sellContracts: number;
  sellAmount: number;
  oiContracts: number;
  oiAmount: number;
}

/** FPI assets under custody in one sector at a fortnight's end, and the fortnight's net investment. */
export interface FpiSectorRow {
  periodEnd: DayNumber;
  sector: string;
  aum: number;
  flow: number;
}
