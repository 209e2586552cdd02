import { createHash } from 'node:crypto';
import { type DayNumber, day, formatDay, weekday } from './dates.ts';
import { IST_OFFSET_MS } from './ist.ts';

/**
 * One dated entry of the exchange's calendar (equities and equity derivatives close on the same days).
 * `holiday`: no session. `special`: a session on a day otherwise closed (Diwali Muhurat trading on a
 * holiday or a weekend, a Union Budget session on a Sunday); its bars are a session's, but nothing
 * settles or expires on it. `clearing`: a clearing (settlement) holiday, trading open; kept for the
 * record, it changes no trading day.
 */
export type CalendarDayKind = 'holiday' | 'special' | 'clearing';

export interface CalendarDay {
  /** YYYY-MM-DD */
  date: string;
  kind: CalendarDayKind;
  /** As the exchange names it ("Republic Day", "Diwali Laxmi Pujan (Muhurat trading)"). */
  description: string;
}

/** End-of-day data of a session is taken as out from 16:00 IST (the close is 15:30). */
const EOD_MINUTE = 16 * 60;

/**
 * The NSE trading calendar: weekends, the listed holidays and special sessions, through `lastYear`
 * (the last year whose list is loaded; later years know weekends only). Immutable: a new list makes a
 * new calendar, swapped in whole (in-force.ts).
 */
export class TradingCalendar {
  readonly lastYear: number;
  readonly days: readonly CalendarDay[];
  private readonly closed = new Set<DayNumber>();
  private readonly special = new Set<DayNumber>();

  constructor(days: readonly CalendarDay[], lastYear: number) {
    this.lastYear = lastYear;
    this.days = [...days].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    for (const d of this.days) {
      if (d.kind === 'holiday') this.closed.add(day(d.date));
      else if (d.kind === 'special') this.special.add(day(d.date));
    }
  }

  /** Whether a session is held: a weekday that is no holiday, or a special session. */
  isTradingDay(n: DayNumber): boolean {
    return this.special.has(n) || (weekday(n) < 5 && !this.closed.has(n));
  }

  /** Whether a full session is held (contracts expire and trades settle only on such days). */
  isRegularTradingDay(n: DayNumber): boolean {
    return weekday(n) < 5 && !this.closed.has(n) && !this.special.has(n);
  }

  /** Every trading day from `from` to `to`, both inclusive, in order. */
  tradingDays(from: DayNumber, to: DayNumber): DayNumber[] {
    const out: DayNumber[] = [];
    for (let n = from; n <= to; n++) if (this.isTradingDay(n)) out.push(n);
    return out;
  }

  /** The latest trading day on or before `n`. */
  tradingDayOnOrBefore(n: DayNumber): DayNumber {
    let d = n;
    while (!this.isTradingDay(d)) d--;
    return d;
  }

  /** The latest full session on or before `n`: where an expiry falling on a closed day moves. */
  regularTradingDayOnOrBefore(n: DayNumber): DayNumber {
    let d = n;
    while (!this.isRegularTradingDay(d)) d--;
    return d;
  }

  /**
   * The last session whose end-of-day data exists at the instant `nowMs`: today's once the day's data
   * is out, else the trading day before. Every generated dataset ends on it, so all services agree.
   */
  lastCompletedSession(nowMs: number): DayNumber {
    const istMinutes = Math.floor((nowMs + IST_OFFSET_MS) / 60_000);
    const today = Math.floor(istMinutes / 1440);
    return this.tradingDayOnOrBefore(istMinutes - today * 1440 >= EOD_MINUTE ? today : today - 1);
  }

  /** 00:00 IST on 1 January after `lastYear`: from then on a holiday would pass for a session. */
  endMs(): number {
    return Date.UTC(this.lastYear + 1, 0, 1) - IST_OFFSET_MS;
  }

  /** The entries of one year. */
  year(y: number): CalendarDay[] {
    return this.days.filter((d) => d.date.startsWith(`${y}-`));
  }

  private digest: string | undefined;

  /** Changes whenever the calendar does: a digest of its last year and entries. */
  get version(): string {
    this.digest ??= createHash('sha256')
      .update(JSON.stringify([this.lastYear, this.days.map((d) => [d.date, d.kind, d.description])]))
      .digest('hex')
      .slice(0, 16);
    return this.digest;
  }

  /** Weekday holidays (no session) as YYYY-MM-DD. */
  holidays(): string[] {
    return [...this.closed].sort((a, b) => a - b).map(formatDay);
  }
}
