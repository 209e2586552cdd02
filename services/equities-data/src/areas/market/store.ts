import type { Pool } from '@mdp/db';
import {
  type CashFlowRow,
  FII_DERIVATIVE_INSTRUMENTS,
  type FiiDerivativesRow,
  type FpiSectorRow,
  type ParticipantRow,
  POSITION_FIELDS,
  type PositionField,
} from '@mdp/market';
import { POSITION_COLUMNS } from './tables.ts';

/** What the market area serves from memory: a few thousand rows, oldest first. */
export interface MarketData {
  cash: CashFlowRow[];
  participants: ParticipantRow[];
  fiiDerivatives: FiiDerivativesRow[];
  fpi: FpiSectorRow[];
}

type Row = Record<string, unknown>;
const DAY = (col: string) => `(${col} - DATE '1970-01-01') AS ${col}`;
/** Crore with two decimals as integer hundredths, exactly. */
const H = (col: string) => `(${col} * 100)::bigint AS ${col}`;

export async function readMarketData(pool: Pool): Promise<MarketData> {
  const q = async (sql: string) => (await pool.query<Row>(sql)).rows;
  const [cash, participants, derivatives, fpi] = await Promise.all([
    q(`SELECT period, ${DAY('d')}, ${H('fii_buy')}, ${H('fii_sell')}, ${H('dii_buy')}, ${H('dii_sell')}
         FROM fii_dii_cash ORDER BY d, period`),
    q(`SELECT ${DAY('d')}, kind, participant, ${POSITION_COLUMNS.join(', ')} FROM fo_participants
        ORDER BY d, kind, participant`),
    q(`SELECT ${DAY('d')}, instrument, buy_contracts, ${H('buy_amount')}, sell_contracts, ${H('sell_amount')},
              oi_contracts, ${H('oi_amount')}
         FROM fii_derivatives ORDER BY d, instrument`),
    q(
      `SELECT ${DAY('period_end')}, sector, ${H('aum')}, ${H('flow')} FROM fpi_sectors ORDER BY period_end, sector`,
    ),
  ]);
  return {
    cash: cash.map((r) => ({
      period: r.period as CashFlowRow['period'],
      d: Number(r.d),
      fiiBuy: Number(r.fii_buy),
      fiiSell: Number(r.fii_sell),
      diiBuy: Number(r.dii_buy),
      diiSell: Number(r.dii_sell),
    })),
    participants: participants.map((r) => ({
      d: Number(r.d),
      kind: r.kind as ParticipantRow['kind'],
      participant: r.participant as ParticipantRow['participant'],
      positions: Object.fromEntries(
        POSITION_FIELDS.map((f, i) => [f, Number(r[POSITION_COLUMNS[i]!])]),
      ) as Record<PositionField, number>,
    })),
    fiiDerivatives: derivatives
      .map((r) => ({
        d: Number(r.d),
        instrument: r.instrument as FiiDerivativesRow['instrument'],
        buyContracts: Number(r.buy_contracts),
        buyAmount: Number(r.buy_amount),
        sellContracts: Number(r.sell_contracts),
        sellAmount: Number(r.sell_amount),
        oiContracts: Number(r.oi_contracts),
        oiAmount: Number(r.oi_amount),
      }))
      .sort(
        (a, b) =>
          a.d - b.d ||
          FII_DERIVATIVE_INSTRUMENTS.indexOf(a.instrument) - FII_DERIVATIVE_INSTRUMENTS.indexOf(b.instrument),
      ),
    fpi: fpi.map((r) => ({
      periodEnd: Number(r.period_end),
      sector: String(r.sector),
      aum: Number(r.aum),
      flow: Number(r.flow),
    })),
  };
}
