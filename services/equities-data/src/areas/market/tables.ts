import {
  type CashFlowRow,
  type FiiDerivativesRow,
  type FpiSectorRow,
  type ParticipantRow,
  POSITION_FIELDS,
  type PositionField,
} from '@mdp/market';
import type { TableSpec } from '../../store/copy.ts';
import { copyDay } from '../../store/copy.ts';

/** Hundredths of a crore (integers in memory) as the crore figure with two decimals the tables hold. */
export const crore = (hundredths: number): string => {
  const sign = hundredths < 0 ? '-' : '';
  const a = Math.abs(hundredths);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
};

/** Table column of each position field: futIdxLong → fut_idx_long. */
const positionColumn = (f: PositionField): string => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const POSITION_COLUMNS = POSITION_FIELDS.map(positionColumn);

export const cashTable: TableSpec<CashFlowRow> = {
  table: 'fii_dii_cash',
  columns: ['period', 'd', 'fii_buy', 'fii_sell', 'dii_buy', 'dii_sell'],
  encode: (r) => [
    r.period,
    copyDay(r.d),
    crore(r.fiiBuy),
    crore(r.fiiSell),
    crore(r.diiBuy),
    crore(r.diiSell),
  ],
};

export const participantsTable: TableSpec<ParticipantRow> = {
  table: 'fo_participants',
  columns: ['d', 'kind', 'participant', ...POSITION_COLUMNS],
  encode: (r) => [copyDay(r.d), r.kind, r.participant, ...POSITION_FIELDS.map((f) => String(r.positions[f]))],
};

export const fiiDerivativesTable: TableSpec<FiiDerivativesRow> = {
  table: 'fii_derivatives',
  columns: [
    'd',
    'instrument',
    'buy_contracts',
    'buy_amount',
    'sell_contracts',
    'sell_amount',
    'oi_contracts',
    'oi_amount',
  ],
  encode: (r) => [
    copyDay(r.d),
    r.instrument,
    String(r.buyContracts),
    crore(r.buyAmount),
    String(r.sellContracts),
    crore(r.sellAmount),
    String(r.oiContracts),
    crore(r.oiAmount),
  ],
};

export const fpiTable: TableSpec<FpiSectorRow> = {
  table: 'fpi_sectors',
  columns: ['period_end', 'sector', 'aum', 'flow'],
  encode: (r) => [copyDay(r.periodEnd), r.sector, crore(r.aum), crore(r.flow)],
};

export const MARKET_TABLES = [cashTable, participantsTable, fiiDerivativesTable, fpiTable].map(
  (t) => t.table,
);
