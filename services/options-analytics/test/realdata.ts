import { readdirSync, readFileSync } from 'node:fs';

/** The real exchange files shared beside the project (never copied into it). */
export const REALDATA = new URL('../../../../shared/realdata/', import.meta.url);

export const realPath = (relative: string) => new URL(relative, REALDATA).pathname;
export const readReal = (relative: string) => readFileSync(realPath(relative), 'utf8');

export const NIFTY_BANKNIFTY_DIR = 'nse_fo_udiff_NIFTY_BANKNIFTY_2025-01_2026-03/';
export const FULL_DAY_FILE = 'nse_fo_udiff_full_day/BhavCopy_NSE_FO_reconstructed_20260327.csv';
export const LOT_FILE = 'nse_fo/fo_mktlots_2026-08.csv';

/** The per-symbol UDiFF files of NIFTY and BANKNIFTY: { symbol, date, relative path }, by date. */
export function niftyBankniftyFiles(): { symbol: string; date: string; path: string }[] {
  return readdirSync(realPath(NIFTY_BANKNIFTY_DIR))
    .map((name) => /^([A-Z]+)_(\d{4}-\d{2}-\d{2})\.csv$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ symbol: m[1]!, date: m[2]!, path: `${NIFTY_BANKNIFTY_DIR}${m[0]}` }))
    .sort((a, b) => (a.date === b.date ? (a.symbol < b.symbol ? -1 : 1) : a.date < b.date ? -1 : 1));
}
