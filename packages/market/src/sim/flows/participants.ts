import {
  FII_DERIVATIVE_INSTRUMENTS,
  type FiiDerivativeInstrument,
  FO_INSTRUMENTS,
  type FoInstrument,
  PARTICIPANTS,
} from '../../vocabulary.ts';
import type { Rng } from '../rng.ts';
import { apportion } from './apportion.ts';
import {
  type FiiDerivativesRow,
  INSTRUMENT_SIDES,
  type ParticipantRow,
  type PositionField,
} from './model.ts';

type Kind = ParticipantRow['kind'];

/** Typical market totals in contracts (NSE, 2025), OI and traded volume. */
const TOTALS: Record<Kind, Record<FoInstrument, number>> = {
  oi: {
    index_futures: 320_000,
    stock_futures: 6_600_000,
    index_calls: 3_200_000,
    index_puts: 2_500_000,
    stock_calls: 1_650_000,
    stock_puts: 1_150_000,
  },
  volume: {
    index_futures: 130_000,
    stock_futures: 1_180_000,
    index_calls: 33_000_000,
    index_puts: 32_000_000,
    stock_calls: 3_300_000,
    stock_puts: 1_850_000,
  },
};

/**
 * Typical shares of the long and of the short side per participant (client, DII, FII, pro), as in
 * NSE's files: clients are long index futures that FIIs are short, DIIs hedge with short stock
 * futures, option volume is clients' and pros'.
 */
const SHARES: Record<Kind, Record<FoInstrument, [long: number[], short: number[]]>> = {
  oi: {
    index_futures: [
      [0.6, 0.2, 0.08, 0.12],
      [0.3, 0.1, 0.5, 0.1],
    ],
    stock_futures: [
      [0.37, 0.02, 0.5, 0.11],
      [0.04, 0.61, 0.31, 0.04],
    ],
    index_calls: [
      [0.68, 0.001, 0.09, 0.23],
      [0.65, 0.001, 0.11, 0.24],
    ],
    index_puts: [
      [0.51, 0.01, 0.17, 0.31],
      [0.69, 0.001, 0.08, 0.23],
    ],
    stock_calls: [
      [0.74, 0.001, 0.01, 0.25],
      [0.43, 0.03, 0.03, 0.51],
    ],
    stock_puts: [
      [0.42, 0.001, 0.04, 0.54],
      [0.63, 0.001, 0.02, 0.35],
    ],
  },
  volume: {
    index_futures: [
      [0.55, 0.01, 0.09, 0.35],
      [0.47, 0.001, 0.24, 0.29],
    ],
    stock_futures: [
      [0.29, 0.06, 0.23, 0.42],
      [0.28, 0.04, 0.25, 0.43],
    ],
    index_calls: [
      [0.38, 0.001, 0.07, 0.55],
      [0.37, 0.001, 0.07, 0.56],
    ],
    index_puts: [
      [0.4, 0.001, 0.08, 0.52],
      [0.4, 0.001, 0.08, 0.52],
    ],
    stock_calls: [
      [0.35, 0.001, 0.05, 0.6],
      [0.31, 0.014, 0.05, 0.63],
    ],
    stock_puts: [
      [0.27, 0.001, 0.05, 0.68],
      [0.3, 0.001, 0.04, 0.66],
    ],
  },
};

const FII = PARTICIPANTS.indexOf('fii');

/**
 * Participant-wise F&O open interest and volume for each session. Every contract has a buyer and a
 * seller, so per instrument the participants' longs and their shorts are both apportioned from one
 * market total and add up to it exactly. FIIs lean long index futures when they have been buying
 * cash (`fiiTilt`, their recent net buying in standard deviations).
 */
export function participantPositions(
  rng: Rng,
  days: readonly number[],
  fiiTilt: readonly number[],
): ParticipantRow[] {
  const rows: ParticipantRow[] = [];
  const level: Record<Kind, Record<FoInstrument, number>> = {
    oi: { ...TOTALS.oi },
    volume: { ...TOTALS.volume },
  };
  for (let t = 0; t < days.length; t++) {
    const d = days[t]!;
    for (const kind of ['oi', 'volume'] as const) {
      const byParticipant = PARTICIPANTS.map(() => ({}) as Record<PositionField, number>);
      const total = {} as Record<PositionField, number>;
      for (const instrument of FO_INSTRUMENTS) {
        const base = TOTALS[kind][instrument];
        // OI drifts slowly (mean-reverting in logs); volume varies more from day to day.
        const current = level[kind][instrument];
        const next =
          kind === 'oi'
            ? current * Math.exp(0.06 * Math.log(base / current) + 0.03 * rng.normal())
            : base * Math.exp(0.2 * rng.normal());
        level[kind][instrument] = next;
        const contracts = Math.max(100, Math.round(next));
        const [longField, shortField] = INSTRUMENT_SIDES[instrument];
        const [longShares, shortShares] = SHARES[kind][instrument];
        const tilt = instrument === 'index_futures' ? 0.35 * fiiTilt[t]! : 0;
        const noisy = (shares: number[], sign: number) =>
          shares.map((s, p) => s * Math.exp(0.12 * rng.normal() + (p === FII ? sign * tilt : 0)));
        const longs = apportion(contracts, noisy(longShares, 1));
        const shorts = apportion(contracts, noisy(shortShares, -1));
        PARTICIPANTS.forEach((_, p) => {
          byParticipant[p]![longField] = longs[p]!;
          byParticipant[p]![shortField] = shorts[p]!;
        });
        total[longField] = contracts;
        total[shortField] = contracts;
      }
      PARTICIPANTS.forEach((participant, p) => {
        rows.push({ d, kind, participant, positions: byParticipant[p]! });
      });
      rows.push({ d, kind, participant: 'total', positions: total });
    }
  }
  return rows;
}

/** Typical value of one contract in crore at today's market level (options at strike). */
const CONTRACT_CRORE: Record<FiiDerivativeInstrument, number> = {
  index_futures: 0.186,
  index_options: 0.186,
  stock_futures: 0.068,
  stock_options: 0.072,
};

/**
 * NSE's FII derivatives statistics follow from the FII rows of the participant files: contracts
 * bought are the FII's long volume, sold its short volume, and open interest its long plus short OI.
 * Amounts are contracts at a contract value that moves with the market (`level`, 1 at the end).
 */
export function fiiDerivatives(
  participants: readonly ParticipantRow[],
  level: ReadonlyMap<number, number>,
): FiiDerivativesRow[] {
  const rows: FiiDerivativesRow[] = [];
  const fii = new Map<string, ParticipantRow>();
  for (const r of participants) if (r.participant === 'fii') fii.set(`${r.d}:${r.kind}`, r);
  const days = [...new Set(participants.map((r) => r.d))];
  for (const d of days) {
    const vol = fii.get(`${d}:volume`)!.positions;
    const oi = fii.get(`${d}:oi`)!.positions;
    const parts: Record<FiiDerivativesRow['instrument'], [number, number, number]> = {
      index_futures: [vol.futIdxLong, vol.futIdxShort, oi.futIdxLong + oi.futIdxShort],
      index_options: [
        vol.optIdxCallLong + vol.optIdxPutLong,
        vol.optIdxCallShort + vol.optIdxPutShort,
        oi.optIdxCallLong + oi.optIdxPutLong + oi.optIdxCallShort + oi.optIdxPutShort,
      ],
      stock_futures: [vol.futStkLong, vol.futStkShort, oi.futStkLong + oi.futStkShort],
      stock_options: [
        vol.optStkCallLong + vol.optStkPutLong,
        vol.optStkCallShort + vol.optStkPutShort,
        oi.optStkCallLong + oi.optStkPutLong + oi.optStkCallShort + oi.optStkPutShort,
      ],
    };
    const value = (level.get(d) ?? 1) * 100;
    for (const instrument of FII_DERIVATIVE_INSTRUMENTS) {
      const [buy, sell, open] = parts[instrument];
      const each = CONTRACT_CRORE[instrument] * value;
      rows.push({
        d,
        instrument,
        buyContracts: buy,
        buyAmount: Math.round(buy * each),
        sellContracts: sell,
        sellAmount: Math.round(sell * each),
        oiContracts: open,
        oiAmount: Math.round(open * each),
      });
    }
  }
  return rows;
}
