import type { CashFlowRow } from '@mdp/market';
import { type DayNumber, formatDay, weekStart } from '@mdp/nse-calendar';
import { cr, type Side, sideJson } from './money.ts';
import { firstOfMonth, firstOfYear, monthKey, monthsBefore, yearKey } from './periods.ts';

/** Sessions in the daily table. */
export const SESSIONS = 30;
const WEEKS = 12;
const MONTHS = 12;
export const CHART_INTERVALS = { '1m': 1, '3m': 3, '6m': 6, '1y': 12, '5y': 60 } as const;
export type ChartInterval = keyof typeof CHART_INTERVALS;

/** FII and DII buying and selling summed over a span of periods. */
interface Sum {
  from: DayNumber;
  to: DayNumber;
  /** Sessions in the span; null when a month is held only as a monthly figure. */
  sessions: number | null;
  fii: Side;
  dii: Side;
}

const empty = (from: DayNumber, to: DayNumber): Sum => ({
  from,
  to,
  sessions: 0,
  fii: { buy: 0, sell: 0 },
  dii: { buy: 0, sell: 0 },
});

function add(s: Sum, r: CashFlowRow): void {
  s.fii.buy += r.fiiBuy;
  s.fii.sell += r.fiiSell;
  s.dii.buy += r.diiBuy;
  s.dii.sell += r.diiSell;
  s.sessions = r.period === 'day' && s.sessions !== null ? s.sessions + 1 : null;
  s.to = Math.max(s.to, r.d);
}

const fiiNet = (r: Pick<CashFlowRow, 'fiiBuy' | 'fiiSell'>) => r.fiiBuy - r.fiiSell;
const diiNet = (r: Pick<CashFlowRow, 'diiBuy' | 'diiSell'>) => r.diiBuy - r.diiSell;

/** Rows (oldest first) summed by key, newest group first; `start` gives a group's first day. */
function groupNewestFirst(
  rows: readonly CashFlowRow[],
  key: (r: CashFlowRow) => string,
  start: (d: DayNumber) => DayNumber,
) {
  const groups = new Map<string, Sum>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k) ?? empty(r.period === 'month' ? firstOfMonth(r.d) : start(r.d), r.d);
    groups.set(k, g);
    add(g, r);
  }
  return [...groups.entries()].reverse();
}

const sumJson = (s: Sum) => ({
  from: formatDay(s.from),
  to: formatDay(s.to),
  sessions: s.sessions,
  fii: sideJson(s.fii),
  dii: sideJson(s.dii),
});

type Who = 'fii' | 'dii';
interface Streak {
  direction: 'buying' | 'selling' | null;
  length: number;
  unit: 'session' | 'month';
  from: string | null;
  to: string | null;
  amount: number;
}

/**
 * The current run of net buying or net selling: consecutive periods with the same sign of net,
 * ending with the latest. Counted in sessions when the latest figure is a session, in calendar
 * months (sessions summed into their month) when it is a monthly figure. A zero net ends a run.
 */
export function streak(rows: readonly CashFlowRow[], who: Who): Streak {
  const net = who === 'fii' ? fiiNet : diiNet;
  const last = rows.at(-1);
  const unit = last?.period === 'month' ? 'month' : 'session';
  const series: { from: DayNumber; to: DayNumber; net: number }[] = [];
  if (unit === 'session') {
    for (let i = rows.length - 1; i >= 0 && rows[i]!.period === 'day'; i--)
      series.unshift({ from: rows[i]!.d, to: rows[i]!.d, net: net(rows[i]!) });
  } else {
    for (const [, s] of groupNewestFirst(rows, (r) => monthKey(r.d), firstOfMonth).reverse())
      series.push({ from: s.from, to: s.to, net: s[who].buy - s[who].sell });
  }
  const sign = Math.sign(series.at(-1)?.net ?? 0);
  let length = 0;
  let amount = 0;
  while (
    sign !== 0 &&
    length < series.length &&
    Math.sign(series[series.length - 1 - length]!.net) === sign
  ) {
    amount += series[series.length - 1 - length]!.net;
    length++;
  }
  return {
    direction: sign > 0 ? 'buying' : sign < 0 ? 'selling' : null,
    length,
    unit,
    from: length > 0 ? formatDay(series[series.length - length]!.from) : null,
    to: length > 0 ? formatDay(series.at(-1)!.to) : null,
    amount: cr(amount),
  };
}

/** The first day a row covers: its session, or the first of its month. */
const startOf = (r: CashFlowRow) => (r.period === 'month' ? firstOfMonth(r.d) : r.d);

/** Net flows over the rows wholly inside (after, to]. */
function netOver(rows: readonly CashFlowRow[], after: DayNumber, to: DayNumber) {
  let fii = 0;
  let dii = 0;
  let first: DayNumber | undefined;
  for (const r of rows)
    if (startOf(r) > after && r.d <= to) {
      first ??= startOf(r);
      fii += fiiNet(r);
      dii += diiNet(r);
    }
  return {
    from: first === undefined ? null : formatDay(first),
    to: formatDay(to),
    fii_net: cr(fii),
    dii_net: cr(dii),
  };
}

/**
 * Cumulative-flow chart over the span before the latest figure: one point per session (per week for
 * 5y) or per month held only as a monthly figure, with running totals from the span's start.
 */
function chart(rows: readonly CashFlowRow[], interval: ChartInterval) {
  const to = rows.at(-1)!.d;
  const after = monthsBefore(to, CHART_INTERVALS[interval]);
  const inSpan = rows.filter((r) => startOf(r) > after);
  const weekly = interval === '5y';
  const buckets = groupNewestFirst(
    inSpan,
    (r) => (r.period === 'month' ? `m${monthKey(r.d)}` : weekly ? `w${weekStart(r.d)}` : `d${r.d}`),
    weekly ? weekStart : (d) => d,
  ).reverse();
  const PERIOD = { m: 'month', w: 'week', d: 'session' } as const;
  let fii = 0;
  let dii = 0;
  const points = buckets.map(([k, s]) => {
    fii += s.fii.buy - s.fii.sell;
    dii += s.dii.buy - s.dii.sell;
    return {
      date: formatDay(s.to),
      period: PERIOD[k[0] as keyof typeof PERIOD],
      fii_net: cr(s.fii.buy - s.fii.sell),
      dii_net: cr(s.dii.buy - s.dii.sell),
      fii_cumulative: cr(fii),
      dii_cumulative: cr(dii),
    };
  });
  return { interval, from: formatDay(after + 1), to: formatDay(to), points };
}

/**
 * The FII/DII document from the cash rows held up to `today` (oldest first): the last 30 sessions
 * (newest first), weekly, monthly and yearly sums (newest first), the current streaks and cumulative
 * flows. Undefined when nothing is held.
 */
export function fiiDiiDocument(all: readonly CashFlowRow[], today: DayNumber, interval?: ChartInterval) {
  const rows = all.filter((r) => r.d <= today);
  const latest = rows.at(-1);
  if (!latest) return undefined;
  const days = rows.filter((r) => r.period === 'day');
  const years = groupNewestFirst(
    rows,
    (r) => yearKey(r.d),
    (d) => d,
  );
  return {
    as_of: formatDay(latest.d),
    sessions: days
      .slice(-SESSIONS)
      .reverse()
      .map((r) => ({
        date: formatDay(r.d),
        fii: sideJson({ buy: r.fiiBuy, sell: r.fiiSell }),
        dii: sideJson({ buy: r.diiBuy, sell: r.diiSell }),
      })),
    weekly: groupNewestFirst(
      days,
      (r) => String(weekStart(r.d)),
      (d) => d,
    )
      .slice(0, WEEKS)
      .map(([k, s]) => ({ week_start: formatDay(Number(k)), ...sumJson(s) })),
    monthly: groupNewestFirst(
      rows,
      (r) => monthKey(r.d),
      (d) => d,
    )
      .slice(0, MONTHS)
      .map(([k, s]) => ({ month: k, ...sumJson(s) })),
    yearly: years.map(([k, s]) => ({ year: Number(k), ...sumJson(s) })),
    streaks: { fii: streak(rows, 'fii'), dii: streak(rows, 'dii') },
    cumulative: {
      month_to_date: netOver(rows, firstOfMonth(latest.d) - 1, latest.d),
      year_to_date: netOver(rows, firstOfYear(latest.d) - 1, latest.d),
      last_30_sessions:
        days.length > 0
          ? netOver(days, days[Math.max(0, days.length - SESSIONS)]!.d - 1, days.at(-1)!.d)
          : null,
      one_year: netOver(rows, monthsBefore(latest.d, 12), latest.d),
      all_held: netOver(rows, startOf(rows[0]!) - 1, latest.d),
    },
    ...(interval ? { chart: chart(rows, interval) } : {}),
  };
}
