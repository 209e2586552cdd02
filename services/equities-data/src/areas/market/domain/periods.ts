import { type DayNumber, day, formatDay } from '@mdp/nse-calendar';

export const monthKey = (d: DayNumber): string => formatDay(d).slice(0, 7);
export const yearKey = (d: DayNumber): string => formatDay(d).slice(0, 4);
export const firstOfMonth = (d: DayNumber): DayNumber => day(`${monthKey(d)}-01`);
export const firstOfYear = (d: DayNumber): DayNumber => day(`${yearKey(d)}-01-01`);

/** The same day `months` calendar months earlier (the month's last day when it is shorter). */
export function monthsBefore(d: DayNumber, months: number): DayNumber {
  const [y, m, dd] = formatDay(d).split('-').map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) - months;
  const [ty, tm] = [Math.floor(index / 12), (index % 12) + 1];
  const pad = (n: number) => String(n).padStart(2, '0');
  const next = tm === 12 ? `${ty + 1}-01-01` : `${ty}-${pad(tm + 1)}-01`;
  return Math.min(day(`${ty}-${pad(tm)}-01`) + dd - 1, day(next) - 1);
}
