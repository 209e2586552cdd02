/**
 * Contract specifications the generator needs, following NSE's rules in spirit: strike intervals that
 * grow with the price, and lot sizes that make one contract worth about ₹15 lakh (the minimum contract
 * value since November 2024), rounded to a round number.
 */
export const TICK = 0.05;
const CONTRACT_VALUE = 1_500_000;

/** The strike interval of a stock's options at this price. */
export function stockStrikeStep(price: number): number {
  if (price < 50) return 1;
  if (price < 150) return 2.5;
  if (price < 300) return 5;
  if (price < 700) return 10;
  if (price < 1500) return 20;
  if (price < 4000) return 50;
  if (price < 10000) return 100;
  if (price < 25000) return 250;
  return 500;
}

/** A lot size worth about ₹15 lakh at this price, rounded to 1, 2.5 or 5 times a power of ten. */
export function stockLotSize(price: number): number {
  const raw = CONTRACT_VALUE / price;
  const unit = 10 ** Math.floor(Math.log10(raw)) / 4;
  const lot = Math.round(raw / unit) * unit;
  return Math.max(1, Math.round(lot));
}

/** A price rounded to the tick, and never below one tick. */
export function toTick(price: number): number {
  return Math.max(TICK, Math.round(price / TICK) * TICK);
}

/** Rounds to two decimals, as exchange prices are written. */
export function paise(x: number): number {
  return Math.round(x * 100) / 100;
}
