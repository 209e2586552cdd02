import type { DayNumber } from '@mdp/nse-calendar';
import { tradingDays } from '@mdp/nse-calendar';
import type { BarRow, CorporateActionRow } from '../model.ts';
import type { Rng } from './rng.ts';
import { SECTORS } from './taxonomy.ts';
import type { PricePlan } from './universe.ts';

/**
 * The common part of every stock's returns: a market factor with volatility clustering and one
 * factor per sector, over the NSE trading calendar. Stocks load on them (beta, sector) and add their
 * own noise, whose size falls with market capitalisation — so returns are correlated within a sector,
 * small companies swing more, and calm and turbulent periods come and go together.
 */
export interface MarketPath {
  days: DayNumber[];
  indexOf: Map<DayNumber, number>;
  market: Float64Array;
  volatility: Float64Array;
  sectors: Float64Array[];
}

const MARKET_DRIFT = 0.12 / 250;
const MARKET_VOL = 0.0085;
const SECTOR_VOL = 0.0075;

export function marketPath(rng: Rng, from: DayNumber, to: DayNumber): MarketPath {
  const days = tradingDays(from, to);
  const n = days.length;
  const market = new Float64Array(n);
  const volatility = new Float64Array(n);
  const sectors = SECTORS.map(() => new Float64Array(n));
  let h = 0;
  for (let t = 0; t < n; t++) {
    // log-volatility follows a mean-reverting AR(1): quiet and stressed spells of a few weeks.
    h = 0.97 * h + 0.13 * rng.normal();
    const v = Math.exp(h - 0.28);
    volatility[t] = v;
    market[t] = MARKET_DRIFT + MARKET_VOL * v * rng.normal();
    for (const s of sectors) s[t] = SECTOR_VOL * v * rng.normal();
  }
  return { days, indexOf: new Map(days.map((d, i) => [d, i])), market, volatility, sectors };
}

/** Tick sizes in paise: 1 below Rs 250, 5 above, as on NSE's cash market. */
function toPaise(rupees: number): number {
  const tick = rupees >= 250 ? 5 : 1;
  return Math.max(1, Math.round((rupees * 100) / tick) * tick);
}

export interface SimulationResult {
  lastClose: number;
  bars: number;
}

/**
 * Runs one stock's daily bars from its first to its last day. Called twice per stock with an identical
 * fresh `rng`: once without `emit` to learn the last close (which sets the share count behind the
 * target market cap) and once emitting bars with `shares` known. Both runs draw the same numbers; the
 * first computes only the closes, skipping the other five draws of each day instead of using them.
 */
export function simulateStock(
  plan: PricePlan,
  path: MarketPath,
  rng: Rng,
  actions: readonly CorporateActionRow[],
  shares: number,
  emit?: (bar: BarRow) => void,
): SimulationResult {
  const sector = plan.sectorIndex >= 0 ? path.sectors[plan.sectorIndex] : undefined;
  let price = plan.startPrice;
  let start = 0;
  while (start < path.days.length && path.days[start]! < plan.firstDay) start++;
  let count = 0;
  let lastClose = toPaise(price);
  for (let t = start; t < path.days.length && path.days[t]! <= plan.lastDay; t++) {
    const d = path.days[t]!;
    for (const a of actions) {
      if (a.exDate === d) {
        price = (price * a.ratioOld) / a.ratioNew;
      }
    }
    const ret = dayReturn(plan, path, sector, t, price, rng);
    count++;
    if (!emit) {
      for (let k = 0; k < 5; k++) rng.skipNormal();
      lastClose = toPaise(price * Math.exp(ret));
      price = lastClose / 100;
      continue;
    }
    const v = path.volatility[t]!;
    const sigma = plan.idioVol + MARKET_VOL * v * plan.beta;
    const gap = 0.3 * sigma * rng.normal();
    const wickUp = Math.abs(rng.normal()) * 0.45 * sigma;
    const wickDown = Math.abs(rng.normal()) * 0.45 * sigma;
    const volumeNoise = rng.normal();
    const deliveryNoise = rng.normal();

    const open = toPaise(price * Math.exp(gap));
    const close = toPaise(price * Math.exp(ret));
    const high = Math.max(open, close, toPaise((Math.max(open, close) / 100) * Math.exp(wickUp)));
    const low = Math.min(open, close, toPaise((Math.min(open, close) / 100) * Math.exp(-wickDown)));
    price = close / 100;
    lastClose = close;
    const surprise = Math.abs(ret - plan.drift) / sigma;
    const volume = Math.max(
      1,
      Math.round(
        (shares / shareMultiplierAtEnd(actions, d)) *
          plan.turnover *
          Math.exp(0.45 * volumeNoise) *
          (0.6 + 0.5 * surprise),
      ),
    );
    const deliveryPct = Math.min(
      100,
      Math.max(3, plan.deliveryMean + 9 * deliveryNoise - 7 * (surprise - 0.8)),
    );
    emit({
      stockId: plan.stockId,
      d,
      open,
      high,
      low,
      close,
      volume,
      deliveryQty: Math.round((volume * deliveryPct) / 100),
    });
  }
  return { lastClose, bars: count };
}

/** A day's log return: the market and sector factors the stock loads on, and the first draw of the day. */
function dayReturn(
  plan: PricePlan,
  path: MarketPath,
  sector: Float64Array | undefined,
  t: number,
  price: number,
  rng: Rng,
): number {
  // Penny stocks drift back up rather than vanish: prices are floored in effect, never zero.
  const floor = price < 1 ? 0.02 : 0;
  return (
    plan.drift +
    floor +
    plan.beta * (path.market[t]! - MARKET_DRIFT) +
    (sector ? sector[t]! : 0) +
    plan.idioVol * rng.normal()
  );
}

/** Shares outstanding on day `d` relative to today's count (after every later split or bonus). */
function shareMultiplierAtEnd(actions: readonly CorporateActionRow[], d: DayNumber): number {
  let m = 1;
  for (const a of actions) if (a.exDate > d) m *= a.ratioNew / a.ratioOld;
  return m;
}
