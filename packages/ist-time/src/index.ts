/**
 * Asia/Kolkata calendar arithmetic. IST is UTC+05:30 with no daylight saving, so every boundary is a
 * fixed offset from UTC: a day starts at 18:30:00Z of the previous UTC day, a month at 18:30:00Z of the
 * last UTC day of the previous month. Pure functions over epoch milliseconds; the clock is injected.
 */
export const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A source of "now" in epoch milliseconds, injected so that boundaries are testable. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

/** Shifted so that its UTC fields read as IST wall-clock fields. */
function istWall(epochMs: number): Date {
  return new Date(epochMs + IST_OFFSET_MS);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The IST calendar day containing the instant, as YYYY-MM-DD. */
export function istDay(epochMs: number): string {
  const d = istWall(epochMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** The IST calendar month containing the instant, as YYYY-MM. */
export function istMonth(epochMs: number): string {
  const d = istWall(epochMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}`;
}

/** Epoch ms of the IST midnight that starts the day containing the instant. */
export function istDayStart(epochMs: number): number {
  const shifted = epochMs + IST_OFFSET_MS;
  return shifted - (((shifted % DAY_MS) + DAY_MS) % DAY_MS) - IST_OFFSET_MS;
}

/** Epoch ms of the next IST midnight (when the daily window resets). */
export function istNextDayStart(epochMs: number): number {
  return istDayStart(epochMs) + DAY_MS;
}

/** Epoch ms of 00:00 IST on the first of the month containing the instant. */
export function istMonthStart(epochMs: number): number {
  const d = istWall(epochMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - IST_OFFSET_MS;
}

/** Epoch ms of 00:00 IST on the first of the next month (when the monthly window resets). */
export function istNextMonthStart(epochMs: number): number {
  const d = istWall(epochMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - IST_OFFSET_MS;
}

/** Today's date in IST as YYYY-MM-DD: the upper bound for any date a client may ask about. */
export function istToday(clock: Clock = systemClock): string {
  return istDay(clock());
}
