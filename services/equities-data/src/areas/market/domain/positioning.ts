import {
  FII_DERIVATIVE_INSTRUMENTS,
  type FiiDerivativesRow,
  type FoInstrument,
  INSTRUMENT_SIDES,
  PARTICIPANTS,
  type ParticipantRow,
} from '@mdp/market';
import { type DayNumber, formatDay } from '@mdp/nse-calendar';
import { cr } from './money.ts';

const WHO = [...PARTICIPANTS, 'total'] as const;

function table(rows: readonly ParticipantRow[], previous: readonly ParticipantRow[] | undefined) {
  const of = (list: readonly ParticipantRow[] | undefined, who: string) =>
    list?.find((r) => r.participant === who);
  return Object.fromEntries(
    WHO.filter((who) => of(rows, who)).map((who) => {
      const now = of(rows, who)!.positions;
      const before = of(previous, who)?.positions;
      return [
        who,
        Object.fromEntries(
          (Object.keys(INSTRUMENT_SIDES) as FoInstrument[]).map((instrument) => {
            const [long, short] = INSTRUMENT_SIDES[instrument];
            const net = now[long] - now[short];
            return [
              instrument,
              {
                long: now[long],
                short: now[short],
                net,
                net_change: before ? net - (before[long] - before[short]) : null,
              },
            ];
          }),
        ),
      ];
    }),
  );
}

/**
 * F&O positioning on the latest day with open interest held up to `today`: per participant (client,
 * DII, FII, pro, and NSE's market total) long, short and net contracts per instrument, the change of
 * net from the previous day held, that day's traded volume, and NSE's FII derivatives statistics.
 */
export function positioning(
  participants: readonly ParticipantRow[],
  derivatives: readonly FiiDerivativesRow[],
  today: DayNumber,
) {
  const oiDays = [...new Set(participants.filter((r) => r.kind === 'oi' && r.d <= today).map((r) => r.d))];
  const d = oiDays.at(-1);
  if (d === undefined) return null;
  const prev = oiDays.at(-2);
  const on = (day: DayNumber | undefined, kind: ParticipantRow['kind']) =>
    participants.filter((r) => r.d === day && r.kind === kind);
  const volume = on(d, 'volume');
  const stats = derivatives.filter((r) => r.d === d);
  return {
    date: formatDay(d),
    previous_date: prev === undefined ? null : formatDay(prev),
    unit: 'contracts',
    open_interest: table(on(d, 'oi'), prev === undefined ? undefined : on(prev, 'oi')),
    volume: volume.length > 0 ? table(volume, undefined) : null,
    fii_derivatives:
      stats.length === 0
        ? null
        : Object.fromEntries(
            FII_DERIVATIVE_INSTRUMENTS.filter((i) => stats.some((s) => s.instrument === i)).map((i) => {
              const s = stats.find((x) => x.instrument === i)!;
              return [
                i,
                {
                  buy_contracts: s.buyContracts,
                  buy_amount: cr(s.buyAmount),
                  sell_contracts: s.sellContracts,
                  sell_amount: cr(s.sellAmount),
                  net_amount: cr(s.buyAmount - s.sellAmount),
                  oi_contracts: s.oiContracts,
                  oi_amount: cr(s.oiAmount),
                },
              ];
            }),
          ),
  };
}
