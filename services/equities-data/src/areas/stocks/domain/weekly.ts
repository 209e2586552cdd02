import { type DayNumber, weekStart } from '@mdp/nse-calendar';
import type { PriceBar } from './adjust.ts';

/** A week of sessions: `d` is the last session of the week, `weekStart` its Monday. */
export type Week<T extends { d: DayNumber }> = T & { weekStart: DayNumber; sessions: number };

/**
 * ISO weeks (Monday to Sunday) of sessions given oldest first. A week starts as a copy of its first
 * session (so it keeps that session's open); `fold` merges each later session of the week into it.
 */
export function weeksOf<T extends { d: DayNumber }>(
  daily: readonly T[],
  fold: (week: Week<T>, session: T) => void,
): Week<T>[] {
  const weeks: Week<T>[] = [];
  let cur: Week<T> | undefined;
  for (const b of daily) {
    const ws = weekStart(b.d);
    if (!cur || cur.weekStart !== ws) {
      cur = { ...b, weekStart: ws, sessions: 1 };
      weeks.push(cur);
      continue;
    }
    fold(cur, b);
    cur.d = b.d;
    cur.sessions++;
  }
  return weeks;
}

export type WeeklyBar = Week<PriceBar>;

/**
 * Weekly bars of daily bars given oldest first: first open, highest high, lowest low, last close,
 * summed volume and delivery. Delivery stays null unless every session of the week had it.
 */
export function weeklyBars(daily: readonly PriceBar[]): WeeklyBar[] {
  return weeksOf(daily, (w, b) => {
    w.high = Math.max(w.high, b.high);
    w.low = Math.min(w.low, b.low);
    w.close = b.close;
    w.volume += b.volume;
    w.deliveryQty = w.deliveryQty === null || b.deliveryQty === null ? null : w.deliveryQty + b.deliveryQty;
  });
}
