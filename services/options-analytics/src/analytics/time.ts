/**
 * Time conventions. NSE's F&O contracts expire at the close of trading, 15:30 IST (10:00 UTC), on their
 * expiry day; end-of-day snapshots are taken at the same close on their trade date. Time to expiry is
 * the calendar time between the two in years of 365 days (ACT/365), so an EOD snapshot sees a whole
 * number of days / 365 and an option expiring at that very close has T = 0 (no IV).
 */
import { DAY_MS } from '@mdp/nse-calendar';

const YEAR_MS = 365 * DAY_MS;
const CLOSE_UTC_HOUR = 10;

/** Epoch ms of 15:30 IST on a YYYY-MM-DD date. */
export function marketCloseMs(date: string): number {
  return Date.parse(`${date}T${String(CLOSE_UTC_HOUR).padStart(2, '0')}:00:00Z`);
}

/** Years from an instant to the close of the expiry day (negative once it has passed). */
export function yearsToExpiry(fromMs: number, expiry: string): number {
  return (marketCloseMs(expiry) - fromMs) / YEAR_MS;
}

/** Whole calendar days between two YYYY-MM-DD dates. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
