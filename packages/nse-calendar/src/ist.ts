/**
 * Asia/Kolkata calendar arithmetic. IST is UTC+05:30 with no daylight saving, so every boundary is a
 * fixed offset from UTC: a day starts at 18:30:00Z of the previous UTC day, a month at 18:30:00Z of the
 * last UTC day of the previous month. Pure functions over epoch milliseconds; the clock is injected.
 */
export const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
/** A day of 24 hours in milliseconds (IST has no daylight saving, so every IST day is one). */
export const DAY_MS = 86_400_000;

/** A source of "now" in epoch milliseconds, injected so that boundaries are testable. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

/** Shifted so that its UTC fields read as IST wall-clock fields. */
function istWall(epochMs: number): Date {
  return new Date(epochMs + IST_OFFSET_MS);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * The last day and month asked for, with the instants they span: the ledger asks for the current ones
 * several times an admission, and formatting them each time was most of what those calls cost. The
 * same string object comes back while the instant stays in the period, so a Map keyed by it hashes it
 * once. An instant outside (NaN included) is formatted and becomes the remembered one.
 */
const lastDay = { from: 0, to: -1, text: '' };
const lastMonth = { from: 0, to: -1, text: '' };

/** The IST calendar day containing the instant, as YYYY-MM-DD. */
export function istDay(epochMs: number): string {
  if (epochMs >= lastDay.from && epochMs < lastDay.to) return lastDay.text;
  const d = istWall(epochMs);
  const text = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  lastDay.from = istDayStart(epochMs);
  lastDay.to = lastDay.from + DAY_MS;
  lastDay.text = text;
  return text;
}

/** The IST calendar month containing the instant, as YYYY-MM. */
export function istMonth(epochMs: number): string {
  if (epochMs >= lastMonth.from && epochMs < lastMonth.to) return lastMonth.text;
  const d = istWall(epochMs);
  const text = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}`;
  lastMonth.from = istMonthStart(epochMs);
  lastMonth.to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - IST_OFFSET_MS;
  lastMonth.text = text;
  return text;
}

/** Epoch ms of the IST midnight that starts the day containing the instant. */
export function istDayStart(epochMs: number): number {
  const shifted = epochMs + IST_OFFSET_MS;
  return shifted - (((shifted % DAY_MS) + DAY_MS) % DAY_MS) - IST_OFFSET_MS;
}

/**
 * Epoch ms of 00:00 IST on a YYYY-MM-DD date: the instant its IST day starts. As Date.parse reads it: NaN
 * for text of another shape or a day past 31, a day past the month's end rolls over (2026-02-30 is 2
 * March), so check that the date is real first where that matters.
 */
export function istDateStart(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) - IST_OFFSET_MS;
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

/**
 * Epoch ms of 00:00 IST on the first of the next month (when the monthly window resets): the remembered
 * month's end (`istMonth`), asked for with every capped admission.
 */
export function istNextMonthStart(epochMs: number): number {
  if (!(epochMs >= lastMonth.from && epochMs < lastMonth.to)) istMonth(epochMs);
  return lastMonth.to;
}

/** Today's date in IST as YYYY-MM-DD: the upper bound for any date a client may ask about. */
export function istToday(clock: Clock = systemClock): string {
  return istDay(clock());
}
