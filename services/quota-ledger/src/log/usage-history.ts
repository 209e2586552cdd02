import {
  type Clock,
  DAY_MS,
  IST_OFFSET_MS,
  istDay,
  istDayStart,
  istMonth,
  istMonthStart,
} from '@mdp/nse-calendar';
import { INTERFACES, type Interface } from '@mdp/usage';
import { type ByInterface, noUnits } from '../admission/account-book.ts';

/** How many IST days and IST clock hours the account site's charts show. */
const HISTORY_DAYS = 30;
const HISTORY_HOURS = 24;

const HOUR_MS = 3_600_000;
/** Where IST hours start within a UTC hour (IST is UTC+05:30: at half past). */
export const IST_HOUR_PHASE_MS = IST_OFFSET_MS % HOUR_MS;

/** As the usage document writes instants: `2026-03-14T10:00:00Z`. */
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The periods one usage-history document covers, all decided from one reading of the clock. */
export interface HistoryWindow {
  /** The last 30 IST days as YYYY-MM-DD, oldest first, ending with today. */
  days: string[];
  /** Epoch ms starts of the last 24 IST clock hours, oldest first, ending with the current one. */
  hours: number[];
  /** Today (IST) and the current IST month: the windows of `by_route`. */
  today: string;
  month: string;
  /** The first IST day of the current month. */
  monthFirstDay: string;
  /** [from, to) instants of the hourly window. */
  hoursFrom: number;
  hoursTo: number;
}

/**
 * The window as of one reading of `clock`. Days are IST days and hours IST clock hours (they start at
 * half past a UTC hour), so an hour never straddles two IST days.
 */
export function historyWindow(clock: Clock): HistoryWindow {
  const now = clock();
  const dayStart = istDayStart(now);
  // IST has no daylight saving: every IST day is 24 hours long.
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) =>
    istDay(dayStart - (HISTORY_DAYS - 1 - i) * DAY_MS),
  );
  const hourStart = Math.floor((now - IST_HOUR_PHASE_MS) / HOUR_MS) * HOUR_MS + IST_HOUR_PHASE_MS;
  const hours = Array.from(
    { length: HISTORY_HOURS },
    (_, i) => hourStart - (HISTORY_HOURS - 1 - i) * HOUR_MS,
  );
  const today = istDay(now);
  const monthStart = istMonthStart(now);
  return {
    days,
    hours,
    today,
    month: istMonth(now),
    monthFirstDay: istDay(monthStart),
    hoursFrom: hours[0]!,
    hoursTo: hourStart + HOUR_MS,
  };
}

/** What the store read for one account (only non-zero groups; anything outside the window is ignored). */
export interface HistoryRows {
  /** Charged units per IST day and interface (the projection's cells summed by day and interface). */
  daily: { day: string; via: Interface; units: number }[];
  /** Charged, not voided requests per clock hour of admission (epoch ms of the hour's start). */
  hourly: { hourMs: number; units: number }[];
  /** Charged, not voided requests per route, today and in the current month. */
  routes: { route: string; day: number; month: number }[];
}

export interface UsageHistory {
  days: { day: string; units: number }[];
  hours: { hour: string; units: number }[];
  by_route: { day: Record<string, number>; month: Record<string, number> };
  by_interface_days: { day: string; by_interface: ByInterface }[];
}

/** Routes with units in the period, most used first (then by name), as an object in that order. */
function rankRoutes(routes: { route: string; n: number }[]): Record<string, number> {
  const ranked = routes
    .filter((r) => r.n > 0)
    .sort((a, b) => b.n - a.n || (a.route < b.route ? -1 : a.route > b.route ? 1 : 0));
  return Object.fromEntries(ranked.map((r) => [r.route, r.n]));
}

/** The usage-history document: every day and hour of the window present, zero when nothing was charged. */
export function usageHistoryDocument(w: HistoryWindow, rows: HistoryRows): UsageHistory {
  const perDay = new Map<string, ByInterface>(w.days.map((d) => [d, noUnits()]));
  for (const r of rows.daily) {
    const by = perDay.get(r.day);
    if (by && (INTERFACES as readonly string[]).includes(r.via)) by[r.via] += r.units;
  }
  const perHour = new Map<number, number>(w.hours.map((h) => [h, 0]));
  for (const r of rows.hourly) {
    const n = perHour.get(r.hourMs);
    if (n !== undefined) perHour.set(r.hourMs, n + r.units);
  }
  const total = (by: ByInterface) => INTERFACES.reduce((sum, via) => sum + by[via], 0);
  return {
    days: w.days.map((day) => ({ day, units: total(perDay.get(day)!) })),
    hours: w.hours.map((h) => ({ hour: isoSeconds(h), units: perHour.get(h)! })),
    by_route: {
      day: rankRoutes(rows.routes.map((r) => ({ route: r.route, n: r.day }))),
      month: rankRoutes(rows.routes.map((r) => ({ route: r.route, n: r.month }))),
    },
    by_interface_days: w.days.map((day) => ({ day, by_interface: perDay.get(day)! })),
  };
}
