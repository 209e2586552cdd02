import type { IndexFamily } from '@mdp/market';

/** Rows of NSE's index file that are not equity indices (bond, money-market, volatility): not served. */
const NOT_EQUITY = /\bVIX\b|G-Sec|\bBond\b|\bRate Index\b|\bT-Bill/i;

const STRATEGY =
  /equal[ -]weight|equal-cap|low[ -]volatility|alpha|high beta|quality|value|momentum|multifactor|dividend|liquid|inverse|leverage|futures|arbitrage|\bTR\b/i;
const SECTORAL =
  /\b(bank|auto|energy|financial services|fmcg|it|media|metal|pharma|realty|oil & gas|healthcare|consumer durables|chemicals)\b/i;
const BROAD =
  /^nifty ?(50|next 50|100|200|500|total market|midcap ?(50|100|150|select)|smallcap ?(50|100|250)|microcap 250|largemidcap 250|midsmallcap ?400|sme emerge|500 multicap 50:25:25)$/i;

export function isEquityIndex(name: string): boolean {
  return !NOT_EQUITY.test(name);
}

/**
 * The family of a real NSE index from its name, by NSE's own grouping: strategy (factor and weighting
 * schemes), sectoral, broad market slices, and thematic for the rest.
 */
export function familyOf(name: string): IndexFamily {
  if (STRATEGY.test(name)) return 'strategy';
  if (SECTORAL.test(name)) return 'sectoral';
  if (BROAD.test(name.trim())) return 'broad';
  return 'thematic';
}
