import { formatDay } from '@mdp/nse-calendar';
import type { EquitiesDataset, StockEntry } from './dataset.ts';
import { deliveryPct, type PriceBar } from './domain/adjust.ts';
import { growth } from './domain/growth.ts';
import { periodReturns, range52, technicals } from './domain/technicals.ts';
import type { WeeklyBar } from './domain/weekly.ts';

/** The JSON documents of each route, built from in-memory entries and adjusted bars. */

const r2 = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 100) / 100;
const day = (d: number | null | undefined) => (d === null || d === undefined ? null : formatDay(d));

/** SPEC 2.2. Every field is a string or boolean; unknown values are empty strings. */
export function searchItem(e: StockEntry) {
  const r = e.row;
  return {
    symbol: r.symbol,
    name: r.name,
    bse_code: r.bseCode ?? '',
    nse_symbol: r.nseSymbol ?? '',
    sector: r.sector ?? '',
    industry: r.industry ?? '',
    macro_sector: r.macroSector ?? '',
    is_active: r.status === 'listed',
    stock_type: r.stockType,
  };
}

function ratios(e: StockEntry) {
  const ltp = e.lastBar ? e.lastBar.close / 100 : undefined;
  return {
    pe: ltp !== undefined && e.eps !== undefined && e.eps > 0 ? r2(ltp / e.eps) : null,
    pb:
      ltp !== undefined && e.bookValuePs !== undefined && e.bookValuePs > 0 ? r2(ltp / e.bookValuePs) : null,
  };
}

/** SPEC 2.7 quote: LTP, change, change %, volume, market cap, PE, PB, 52-week high/low. */
export function quote(e: StockEntry) {
  const r = e.row;
  const b = e.lastBar;
  const ltp = b ? b.close / 100 : null;
  const prev = e.prevClose === undefined ? null : e.prevClose / 100;
  const change = ltp !== null && prev !== null ? ltp - prev : null;
  return {
    symbol: r.symbol,
    name: r.name,
    exchange: r.nseSymbol ? 'NSE' : 'BSE',
    is_active: r.status === 'listed',
    as_of: day(b?.d),
    currency: 'INR',
    ltp,
    open: b ? b.open / 100 : null,
    high: b ? b.high / 100 : null,
    low: b ? b.low / 100 : null,
    prev_close: prev,
    change: r2(change),
    change_pct: change !== null && prev ? r2((change / prev) * 100) : null,
    volume: b?.volume ?? null,
    delivery_pct: b ? deliveryPct(b.deliveryQty, b.volume) : null,
    market_cap_cr: r2(e.marketCapCr),
    ...ratios(e),
    week_52_high: e.range52 ? e.range52.high / 100 : null,
    week_52_low: e.range52 ? e.range52.low / 100 : null,
  };
}

/**
 * A page of bars as JSON text, written directly: a 2,000-day page is about 1,400 bars, and building
 * objects for JSON.stringify would cost more than reading them from Postgres.
 * Daily: {date, open, high, low, close, volume, delivery_pct}. Weekly: `date` is the Monday of the
 * ISO week, plus `last_session` and `sessions`.
 */
export function barsJson(bars: readonly PriceBar[] | readonly WeeklyBar[], weekly: boolean): string {
  const parts: string[] = new Array(bars.length);
  for (let i = 0; i < bars.length; i++) {
    const b = bars[i]!;
    const head = weekly
      ? `{"date":"${formatDay((b as WeeklyBar).weekStart)}","last_session":"${formatDay(b.d)}","sessions":${(b as WeeklyBar).sessions}`
      : `{"date":"${formatDay(b.d)}"`;
    parts[i] =
      `${head},"open":${b.open},"high":${b.high},"low":${b.low},"close":${b.close},"volume":${b.volume},"delivery_pct":${deliveryPct(b.deliveryQty, b.volume)}}`;
  }
  return `[${parts.join(',')}]`;
}

function fundamentals(e: StockEntry) {
  const y = e.annual.at(-1);
  const ltp = e.lastBar ? e.lastBar.close / 100 : undefined;
  const capital = y ? y.equity + y.borrowings : 0;
  // Dividends per share were declared on the share count of their year; restate them on today's.
  const dps = y && e.shares ? y.dividendPs : undefined;
  return {
    market_cap_cr: r2(e.marketCapCr),
    ...ratios(e),
    roe_pct: y && y.equity > 0 ? r2((y.netProfit / y.equity) * 100) : null,
    roce_pct: y && capital > 0 ? r2((y.ebit / capital) * 100) : null,
    debt_to_equity: y && y.equity > 0 ? r2(y.borrowings / y.equity) : null,
    eps_ttm: r2(e.eps),
    book_value_per_share: r2(e.bookValuePs),
    dividend_yield_pct: dps !== undefined && ltp ? r2((dps / ltp) * 100) : null,
    face_value: e.row.faceValue,
    shares_outstanding: e.shares ?? null,
    fiscal_year: y ? `FY${y.fiscalYear}` : null,
  };
}

function priceMetrics(e: StockEntry, bars: readonly PriceBar[]) {
  const last = bars.at(-1);
  const range = range52(bars);
  const recent = bars.slice(-20);
  const delivered = recent.filter((b) => b.deliveryQty !== null);
  let allTimeHigh: PriceBar | undefined;
  for (const b of bars) if (!allTimeHigh || b.high > allTimeHigh.high) allTimeHigh = b;
  return {
    as_of: day(last?.d),
    ltp: last?.close ?? null,
    first_bar: day(e.firstDay),
    week_52: range,
    pct_from_52w_high: range && last ? r2((last.close / range.high - 1) * 100) : null,
    pct_from_52w_low: range && last ? r2((last.close / range.low - 1) * 100) : null,
    high_in_history: allTimeHigh ? { price: allTimeHigh.high, date: formatDay(allTimeHigh.d) } : null,
    returns_pct: periodReturns(bars),
    avg_volume_20d: recent.length
      ? Math.round(recent.reduce((a, b) => a + b.volume, 0) / recent.length)
      : null,
    avg_delivery_pct_20d:
      delivered.length === recent.length && recent.length > 0
        ? r2(
            (delivered.reduce((a, b) => a + b.deliveryQty!, 0) /
              Math.max(
                1,
                recent.reduce((a, b) => a + b.volume, 0),
              )) *
              100,
          )
        : null,
  };
}

/** An imported stock has no description: say what the data knows, in one sentence. */
function aboutFromFacts(e: StockEntry): string {
  const r = e.row;
  const kind =
    r.stockType === 'equity'
      ? `${r.industry ?? r.sector ?? 'listed'} company`
      : r.stockType.replace(/_/g, ' ');
  const venues = [
    r.nseSymbol && `NSE (${r.nseSymbol}${r.board === 'sme' ? ', SME' : ''})`,
    r.bseCode && `BSE (${r.bseCode})`,
  ]
    .filter(Boolean)
    .join(' and ');
  const status =
    r.status === 'listed'
      ? `listed on ${venues}`
      : `${r.status} (${r.delistingReason ?? 'no longer traded'}${r.delistedOn ? `, ${formatDay(r.delistedOn)}` : ''}); it traded on ${venues}`;
  return `${r.name} is a ${kind}, ${status}.`;
}

function identity(e: StockEntry) {
  const r = e.row;
  const alias = (kind: string) => e.aliases.filter((a) => a.kind === kind);
  return {
    symbol: r.symbol,
    name: r.name,
    isin: r.isin,
    nse_symbol: r.nseSymbol,
    bse_code: r.bseCode,
    bse_symbol: r.bseSymbol,
    series: r.series,
    stock_type: r.stockType,
    board: r.board,
    is_active: r.status === 'listed',
    status: r.status,
    listed_on: day(r.listedOn),
    delisted_on: day(r.delistedOn),
    delisting_reason: r.delistingReason,
    macro_sector: r.macroSector,
    sector: r.sector,
    industry: r.industry,
    basic_industry: r.basicIndustry,
    about: r.about ?? aboutFromFacts(e),
    brand_names: alias('brand').map((a) => a.alias),
    former_names: alias('former_name').map((a) => ({ name: a.alias, until: day(a.until) })),
    former_symbols: alias('former_symbol').map((a) => ({ symbol: a.alias, until: day(a.until) })),
  };
}

export type ProfileSection = 'technicals' | 'ratings' | 'peers';

/** SPEC 2.7 profile, with the sections asked for in `include`. `bars` are adjusted, oldest first. */
export function profile(
  ds: EquitiesDataset,
  e: StockEntry,
  bars: readonly PriceBar[],
  include: ProfileSection[],
) {
  const doc: Record<string, unknown> = {
    ...identity(e),
    fundamentals: fundamentals(e),
    price_metrics: priceMetrics(e, bars),
    growth: growth(e.annual, bars),
    quote: quote(e),
    corporate_actions: e.actions.map((a) => ({
      ex_date: formatDay(a.exDate),
      kind: a.kind,
      description: a.description,
      // Prices before the ex-date are multiplied by this in every served series.
      price_factor: a.ratioOld / a.ratioNew,
    })),
  };
  if (include.includes('technicals')) doc.technicals = technicals(bars);
  if (include.includes('ratings')) {
    // The rating in force: the newest action per agency and instrument (the full history is /ratings).
    const current = new Map<string, (typeof e.ratings)[number]>();
    for (const r of e.ratings)
      if (!current.has(`${r.agency}|${r.instrument}`)) current.set(`${r.agency}|${r.instrument}`, r);
    doc.ratings = {
      credit_ratings: [...current.values()].map((r) => ({
        agency: r.agency,
        instrument: r.instrument,
        rating: r.rating,
        outlook: r.outlook,
        action: r.action,
        date: formatDay(r.ratedOn),
      })),
    };
  }
  if (include.includes('peers')) {
    doc.peers = ds.peers(e, 10).map((p) => {
      const q = quote(p);
      return {
        symbol: p.row.symbol,
        name: p.row.name,
        industry: p.row.industry,
        market_cap_cr: q.market_cap_cr,
        ltp: q.ltp,
        change_pct: q.change_pct,
        pe: q.pe,
        pb: q.pb,
      };
    });
  }
  return doc;
}
