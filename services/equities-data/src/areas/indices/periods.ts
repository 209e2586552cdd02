import { type DayNumber, day, formatDay, isTradingDay, weekStart } from '@mdp/nse-calendar';

export type Granularity = 'week' | 'month';

/** A calendar period: an ISO week (Monday to Sunday) or a calendar month, both days inclusive. */
export interface Period {
  start: DayNumber;
  end: DayNumber;
}

function periodOf(d: DayNumber, g: Granularity): Period {
  if (g === 'week') {
    const start = weekStart(d);
    return { start, end: start + 6 };
  }
  const [y, m] = formatDay(d).split('-').map(Number) as [number, number];
  const start = day(`${y}-${String(m).padStart(2, '0')}-01`);
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return { start, end: day(next) - 1 };
}

function lastSession(p: Period): DayNumber | undefined {
  for (let d = p.end; d >= p.start; d--) if (isTradingDay(d)) return d;
  return undefined;
}

/**
 * The `n` most recent completed periods, oldest first, preceded by the period before them (whose
 * close is the base of the return). A period is complete once every one of its sessions lies before
 * IST today: today's session never counts, not even after the 15:30 close, because its official
 * closing levels are published that evening. So on Saturday and Sunday the week just ended is
 * complete; on Monday to Friday (including Friday evening) the latest complete week is the previous
 * one; a month is complete from the day after its last session (which may be before its last day).
 * Periods without a session (none on the NSE calendar) are skipped.
 */
export function completedPeriods(today: DayNumber, g: Granularity, n: number): Period[] {
  const out: Period[] = [];
  let p = periodOf(today, g);
  while (out.length < n + 1) {
    const last = lastSession(p);
    if (last !== undefined && last < today) out.push(p);
    p = periodOf(p.start - 1, g);
  }
  return out.reverse();
}
