import type { BarRow, CorporateActionRow } from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';

/**
 * Split and bonus adjustment: a price on day d is multiplied by the product of ratio_old / ratio_new
 * over every action whose ex-date is after d, so that the whole series is comparable with today's
 * share count. Volumes are divided by the same factor; delivery % is a ratio and does not change.
 */
export function adjustmentFactor(actions: readonly CorporateActionRow[], d: DayNumber): number {
  let f = 1;
  for (const a of actions) if (a.exDate > d) f *= a.ratioOld / a.ratioNew;
  return f;
}

/** A bar in rupees, adjusted for later splits and bonuses. */
export interface PriceBar {
  d: DayNumber;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Shares delivered, adjusted like volume; null when the source had no delivery figures. */
  deliveryQty: number | null;
}

const rupees = (paise: number, factor: number) => Math.round(paise * factor) / 100;

export function adjustBars(bars: readonly BarRow[], actions: readonly CorporateActionRow[]): PriceBar[] {
  const sorted = [...actions].sort((a, b) => a.exDate - b.exDate);
  const out: PriceBar[] = new Array(bars.length);
  for (let i = 0; i < bars.length; i++) {
    const b = bars[i]!;
    const f = sorted.length === 0 ? 1 : adjustmentFactor(sorted, b.d);
    out[i] = {
      d: b.d,
      open: rupees(b.open, f),
      high: rupees(b.high, f),
      low: rupees(b.low, f),
      close: rupees(b.close, f),
      volume: f === 1 ? b.volume : Math.round(b.volume / f),
      deliveryQty: b.deliveryQty === null ? null : f === 1 ? b.deliveryQty : Math.round(b.deliveryQty / f),
    };
  }
  return out;
}

export function deliveryPct(deliveryQty: number | null, volume: number): number | null {
  if (deliveryQty === null || volume <= 0) return null;
  return Math.round((deliveryQty / volume) * 10_000) / 100;
}
