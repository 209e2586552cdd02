import type { Pool } from '@mdp/db';
import type {
  AliasRow,
  AnnualResultRow,
  BarRow,
  CorporateActionRow,
  CreditRatingAction,
  MarketReportRow,
  StockRow,
} from '@mdp/market';
import type { DayNumber } from '@mdp/nse-calendar';

/** Everything the service keeps in memory, read in one go at start-up (a few hundred ms). */
export interface DatasetSnapshot {
  stocks: StockRow[];
  aliases: AliasRow[];
  actions: CorporateActionRow[];
  annual: AnnualResultRow[];
  /** Credit-rating actions, each stock's newest first. */
  ratings: CreditRatingAction[];
  reports: MarketReportRow[];
  /** The last two bars of each stock that has any, newest first. */
  lastBars: Map<number, BarRow[]>;
  firstDay: Map<number, DayNumber>;
  /** Highest high and lowest low of the 365 days up to each stock's last bar, as traded. */
  range52: Map<number, { high: number; low: number }>;
}

const DAY = (col: string, as = col) => `(${col} - DATE '1970-01-01') AS ${as}`;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

type Row = Record<string, unknown>;

function toBar(r: Row, stockId = Number(r.stock_id)): BarRow {
  return {
    stockId,
    d: Number(r.d),
    open: Number(r.open),
    high: Number(r.high),
    low: Number(r.low),
    close: Number(r.close),
    volume: Number(r.volume),
    deliveryQty: num(r.delivery_qty),
  };
}

export async function readDataset(pool: Pool): Promise<DatasetSnapshot> {
  const q = async (sql: string, params: unknown[] = []) => (await pool.query<Row>(sql, params)).rows;
  const [stocks, aliases, actions, annual, ratings, reports, last, ranges] = await Promise.all([
    q(`SELECT id, symbol, name, isin, nse_symbol, bse_code, bse_symbol, series, stock_type, board, macro_sector,
              sector, industry, basic_industry, status, ${DAY('listed_on')}, ${DAY('delisted_on')}, delisting_reason,
              face_value::float8 AS face_value, shares_outstanding::float8 AS shares_outstanding, about
         FROM stocks ORDER BY id`),
    q(`SELECT stock_id, kind, alias, ${DAY('until')} FROM aliases ORDER BY stock_id, kind, alias`),
    q(`SELECT stock_id, ${DAY('ex_date')}, kind, ratio_new, ratio_old, description FROM corporate_actions
        ORDER BY stock_id, ex_date`),
    q('SELECT * FROM annual_results ORDER BY stock_id, fiscal_year'),
    q(
      `SELECT stock_id, agency, instrument, rating, outlook, action, ${DAY('rated_on')} FROM credit_ratings
        ORDER BY stock_id, rated_on DESC, agency, instrument`,
    ),
    q(`SELECT stock_id, ${DAY('d')}, close, issue_size::float8 AS issue_size, market_cap::float8 AS market_cap, pe
         FROM market_reports ORDER BY stock_id, d`),
    q(`SELECT s.id AS stock_id, f.first_d, b.* FROM stocks s
         CROSS JOIN LATERAL (SELECT ${DAY('min(d)', 'first_d')} FROM daily_bars WHERE stock_id = s.id) f
         CROSS JOIN LATERAL (SELECT ${DAY('d')}, open, high, low, close, volume, delivery_qty FROM daily_bars
                              WHERE stock_id = s.id ORDER BY d DESC LIMIT 2) b`),
    q(`SELECT s.id AS stock_id, r.high, r.low FROM stocks s
         CROSS JOIN LATERAL (SELECT max(d) AS last FROM daily_bars WHERE stock_id = s.id) l
         CROSS JOIN LATERAL (SELECT max(high) AS high, min(low) AS low FROM daily_bars
                              WHERE stock_id = s.id AND d > l.last - 365) r
        WHERE l.last IS NOT NULL`),
  ]);

  // The 52-week range must be on today's share basis: recompute it for stocks with a split or bonus
  // inside the window (a handful), from their bars.
  const range52 = new Map(
    ranges.map((r) => [Number(r.stock_id), { high: Number(r.high), low: Number(r.low) }]),
  );
  const lastOf = new Map<number, number>();
  for (const r of last)
    lastOf.set(Number(r.stock_id), Math.max(Number(r.d), lastOf.get(Number(r.stock_id)) ?? 0));
  const redone = new Set<number>();
  for (const a of actions) {
    const id = Number(a.stock_id);
    const lastD = lastOf.get(id);
    if (lastD === undefined || Number(a.ex_date) <= lastD - 365 || !range52.has(id) || redone.has(id))
      continue;
    redone.add(id);
    const acts = actions
      .filter((x) => Number(x.stock_id) === id)
      .map((x) => ({
        exDate: Number(x.ex_date),
        ratioNew: Number(x.ratio_new),
        ratioOld: Number(x.ratio_old),
      }));
    const bars = await readBars(pool, id, lastD - 364, lastD);
    let high = 0;
    let low = Number.POSITIVE_INFINITY;
    for (const b of bars) {
      let f = 1;
      for (const x of acts) if (x.exDate > b.d) f *= x.ratioOld / x.ratioNew;
      high = Math.max(high, Math.round(b.high * f));
      low = Math.min(low, Math.round(b.low * f));
    }
    range52.set(id, { high, low });
  }

  const lastBars = new Map<number, BarRow[]>();
  const firstDay = new Map<number, DayNumber>();
  for (const r of last) {
    const id = Number(r.stock_id);
    firstDay.set(id, Number(r.first_d));
    const list = lastBars.get(id) ?? [];
    list.push(toBar(r, id));
    lastBars.set(id, list);
  }
  return {
    stocks: stocks.map((r) => ({
      id: Number(r.id),
      symbol: String(r.symbol),
      name: String(r.name),
      isin: (r.isin as string | null) ?? null,
      nseSymbol: (r.nse_symbol as string | null) ?? null,
      bseCode: (r.bse_code as string | null) ?? null,
      bseSymbol: (r.bse_symbol as string | null) ?? null,
      series: (r.series as string | null) ?? null,
      stockType: r.stock_type as StockRow['stockType'],
      board: r.board as StockRow['board'],
      macroSector: (r.macro_sector as string | null) ?? null,
      sector: (r.sector as string | null) ?? null,
      industry: (r.industry as string | null) ?? null,
      basicIndustry: (r.basic_industry as string | null) ?? null,
      status: r.status as StockRow['status'],
      listedOn: num(r.listed_on),
      delistedOn: num(r.delisted_on),
      delistingReason: (r.delisting_reason as string | null) ?? null,
      faceValue: num(r.face_value),
      sharesOutstanding: num(r.shares_outstanding),
      about: (r.about as string | null) ?? null,
    })),
    aliases: aliases.map((r) => ({
      stockId: Number(r.stock_id),
      kind: r.kind as AliasRow['kind'],
      alias: String(r.alias),
      until: num(r.until),
    })),
    actions: actions.map((r) => ({
      stockId: Number(r.stock_id),
      exDate: Number(r.ex_date),
      kind: r.kind as CorporateActionRow['kind'],
      ratioNew: Number(r.ratio_new),
      ratioOld: Number(r.ratio_old),
      description: String(r.description),
    })),
    annual: annual.map((r) => ({
      stockId: Number(r.stock_id),
      fiscalYear: Number(r.fiscal_year),
      sales: Number(r.sales),
      netProfit: Number(r.net_profit),
      equity: Number(r.equity),
      borrowings: Number(r.borrowings),
      ebit: Number(r.ebit),
      dividendPs: Number(r.dividend_ps),
    })),
    ratings: ratings.map((r) => ({
      stockId: Number(r.stock_id),
      agency: String(r.agency),
      instrument: String(r.instrument),
      rating: String(r.rating),
      outlook: (r.outlook as string | null) ?? null,
      action: r.action as CreditRatingAction['action'],
      ratedOn: Number(r.rated_on),
    })),
    reports: reports.map((r) => ({
      stockId: Number(r.stock_id),
      d: Number(r.d),
      close: num(r.close),
      issueSize: num(r.issue_size),
      marketCap: num(r.market_cap),
      pe: num(r.pe),
    })),
    lastBars,
    firstDay,
    range52,
  };
}

/**
 * One stock's bars between two days (inclusive), oldest first, as traded. The page comes back as one
 * text value parsed here, which costs Node about half of what 1,400 row objects do.
 */
export async function readBars(
  pool: Pool,
  stockId: number,
  from: DayNumber,
  to: DayNumber,
): Promise<BarRow[]> {
  const { rows } = await pool.query<{ t: string | null }>(
    `SELECT string_agg(concat_ws(',', d - DATE '1970-01-01', open, high, low, close, volume, delivery_qty), ';' ORDER BY d) AS t
       FROM daily_bars
      WHERE stock_id = $1 AND d BETWEEN DATE '1970-01-01' + $2::int AND DATE '1970-01-01' + $3::int`,
    [stockId, from, to],
  );
  const text = rows[0]?.t;
  if (!text) return [];
  return text.split(';').map((line) => {
    const f = line.split(',');
    return {
      stockId,
      d: Number(f[0]),
      open: Number(f[1]),
      high: Number(f[2]),
      low: Number(f[3]),
      close: Number(f[4]),
      volume: Number(f[5]),
      deliveryQty: f[6] === undefined ? null : Number(f[6]),
    };
  });
}

/** The latest bar strictly before `before`, if any (for a price page's next cursor). */
export async function readPreviousBarDay(
  pool: Pool,
  stockId: number,
  before: DayNumber,
): Promise<DayNumber | undefined> {
  const { rows } = await pool.query<Row>(
    `SELECT ${DAY('max(d)', 'd')} FROM daily_bars WHERE stock_id = $1 AND d < DATE '1970-01-01' + $2::int`,
    [stockId, before],
  );
  const d = rows[0]?.d;
  return d === null || d === undefined ? undefined : Number(d);
}
