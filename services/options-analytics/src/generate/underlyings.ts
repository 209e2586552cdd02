import { type CorporateActionRow, type GeneratedDataset, generateIndices, Rng } from '@mdp/market';
import { addDays, type DayNumber, day, formatDay, tradingDayOnOrBefore } from '@mdp/nse-calendar';
import { daysBetween } from '../analytics/time.ts';
import type { UnderlyingSpec } from './underlying-model.ts';
import { fnoStocks, INDEX_UNDERLYINGS } from './universe.ts';

/**
 * The underlyings of the generated market with their prices: index levels from the market's indices,
 * stock closes from the market's bars, on the same trading days. So an option chain's underlying price
 * is the quote the equities service serves for that day.
 */
export function underlyingSpecs(
  market: GeneratedDataset,
  days: readonly string[],
  only?: ReadonlySet<string>,
): UnderlyingSpec[] {
  const wanted = (symbol: string) => !only || only.has(symbol);
  const at = new Map(days.map((d, i) => [day(d), i]));
  const specs: UnderlyingSpec[] = [];

  const indexContracts = INDEX_UNDERLYINGS.filter((u) => wanted(u.symbol));
  const indices = new Map(
    generateIndices(
      market,
      indexContracts.map((u) => u.index),
    ).map((i) => [i.name, i]),
  );
  for (const u of indexContracts) {
    const index = indices.get(u.index);
    if (!index) throw new Error(`the market has no index "${u.index}"`);
    const closes = series(
      days.length,
      at,
      index.bars.map((b) => [b.d, b.close]),
    );
    specs.push({
      symbol: u.symbol,
      name: u.index,
      kind: 'index',
      closes,
      returns: logReturns(closes, new Map()),
      dividendYield: (index.bars.at(-1)?.divYield ?? 0) / 100,
      derivativesUntil: null,
    });
  }

  const { current, former } = fnoStocks(market);
  const actionsOf = new Map<number, CorporateActionRow[]>();
  for (const a of market.actions) actionsOf.set(a.stockId, [...(actionsOf.get(a.stockId) ?? []), a]);
  // A stock's annual results run oldest first, so the last one kept is its latest.
  const latestDividendPs = new Map<number, number>();
  for (const a of market.annual) latestDividendPs.set(a.stockId, a.dividendPs);
  const earliest = addDays(days[0]!, Math.floor(days.length * 0.3));
  const span = Math.max(1, daysBetween(earliest, addDays(days.at(-1)!, -30)));
  for (const [stocks, discontinued] of [
    [current, false],
    [former, true],
  ] as const)
    for (const stock of stocks) {
      const symbol = stock.nseSymbol!;
      if (!wanted(symbol)) continue;
      const bars: [DayNumber, number][] = [];
      market.emitBars(stock.id, (b) => bars.push([b.d, b.close / 100]));
      const closes = series(days.length, at, bars);
      const jumps = new Map(
        (actionsOf.get(stock.id) ?? []).map((a) => [at.get(a.exDate)!, Math.log(a.ratioNew / a.ratioOld)]),
      );
      const dividendPs = latestDividendPs.get(stock.id) ?? 0;
      specs.push({
        symbol,
        name: stock.name,
        kind: 'stock',
        closes,
        returns: logReturns(closes, jumps),
        dividendYield: Math.min(0.08, dividendPs / closes[closes.length - 1]!),
        // Discontinued somewhere after the first third of the history and a month before its end.
        derivativesUntil: discontinued
          ? formatDay(
              tradingDayOnOrBefore(
                day(earliest) + Math.floor(Rng.named(market.options.seed, `until:${symbol}`).next() * span),
              ),
            )
          : null,
      });
    }
  return specs;
}

/** Values on each of the days, carried forward over any day without one. */
function series(n: number, at: Map<DayNumber, number>, points: readonly [DayNumber, number][]): Float64Array {
  const out = new Float64Array(n).fill(Number.NaN);
  for (const [d, v] of points) {
    const i = at.get(d);
    if (i !== undefined) out[i] = v;
  }
  const first = out.findIndex((v) => !Number.isNaN(v));
  if (first < 0) throw new Error('no price on any day of the history');
  for (let i = 0; i < n; i++) if (Number.isNaN(out[i]!)) out[i] = out[i === 0 ? first : i - 1]!;
  return out;
}

/** Log returns, with the jump a split or bonus puts into traded prices taken out on its ex-date. */
function logReturns(closes: Float64Array, jumps: ReadonlyMap<number, number>): Float64Array {
  const out = new Float64Array(closes.length);
  for (let i = 1; i < closes.length; i++)
    out[i] = Math.log(closes[i]! / closes[i - 1]!) + (jumps.get(i) ?? 0);
  return out;
}
