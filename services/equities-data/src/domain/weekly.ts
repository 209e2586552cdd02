import { weekStart } from '@mdp/nse-calendar';
import type { PriceBar } from './adjust.ts';

export interface WeeklyBar extends PriceBar {
  /** Monday of the ISO week; `d` is the last session of the week in the page. */
  weekStart: number;
  sessions: number;
}

/**
 * ISO weeks (Monday to Sunday) of daily bars given oldest first: first open, highest high, lowest low,
 * last close, summed volume and delivery. Delivery stays null unless every session of the week had it.
 */
export function weeklyBars(daily: readonly PriceBar[]): WeeklyBar[] {
  const weeks: WeeklyBar[] = [];
  let cur: WeeklyBar | undefined;
  for (const b of daily) {
    const ws = weekStart(b.d);
    if (!cur || cur.weekStart !== ws) {
      cur = { ...b, weekStart: ws, sessions: 1 };
      weeks.push(cur);
      continue;
    }
    cur.d = b.d;
    cur.high = Math.max(cur.high, b.high);
    cur.low = Math.min(cur.low, b.low);
    cur.close = b.close;
    cur.volume += b.volume;
    cur.deliveryQty =
      cur.deliveryQty === null || b.deliveryQty === null ? null : cur.deliveryQty + b.deliveryQty;
    cur.sessions++;
  }
  return weeks;
}
