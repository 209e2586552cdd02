import type { DayNumber } from '@mdp/nse-calendar';
import type pg from 'pg';
import { rejectionOf } from './kind.ts';
import type { Rejection, Sourced } from './report.ts';

interface Holder {
  stockId: number;
  listedOn: DayNumber | null;
  delistedOn: DayNumber | null;
}

/**
 * Which stock an exchange file means by a symbol on a given day. Symbols change (ZOMATO became
 * ETERNAL on 2025-04-09) and are reused, so a 2024 bhavcopy row for ZOMATO is Eternal's bar, and a
 * symbol now held by a listed company may have meant a delisted one years ago.
 */
class SymbolResolver {
  private constructor(
    private readonly byIsin: Map<string, number>,
    /** Former symbols: symbol → [stock, valid until (exclusive)], earliest first. */
    private readonly former: Map<string, { stockId: number; until: DayNumber }[]>,
    /** Current NSE symbols, listed stocks first. */
    private readonly current: Map<string, Holder[]>,
  ) {}

  static async load(client: pg.PoolClient): Promise<SymbolResolver> {
    const stocks = await client.query<{
      id: number;
      isin: string | null;
      nse_symbol: string | null;
      listed: number | null;
      delisted: number | null;
    }>(
      `SELECT id, isin, nse_symbol, listed_on - DATE '1970-01-01' AS listed, delisted_on - DATE '1970-01-01' AS delisted
         FROM stocks ORDER BY status = 'listed' DESC, delisted_on DESC NULLS FIRST, id`,
    );
    const byIsin = new Map<string, number>();
    const current = new Map<string, Holder[]>();
    for (const s of stocks.rows) {
      if (s.isin) byIsin.set(s.isin, s.id);
      if (s.nse_symbol) {
        const list = current.get(s.nse_symbol) ?? [];
        list.push({
          stockId: s.id,
          listedOn: s.listed === null ? null : Number(s.listed),
          delistedOn: s.delisted === null ? null : Number(s.delisted),
        });
        current.set(s.nse_symbol, list);
      }
    }
    const aliases = await client.query<{ stock_id: number; alias: string; until: number | null }>(
      `SELECT stock_id, alias, until - DATE '1970-01-01' AS until FROM aliases
        WHERE kind = 'former_symbol' AND until IS NOT NULL ORDER BY until`,
    );
    const former = new Map<string, { stockId: number; until: DayNumber }[]>();
    for (const a of aliases.rows) {
      const list = former.get(a.alias) ?? [];
      list.push({ stockId: a.stock_id, until: Number(a.until) });
      former.set(a.alias, list);
    }
    return new SymbolResolver(byIsin, former, current);
  }

  /** The stock meant by `symbol` (or `isin`, when the file has one) on day `d`. */
  resolve(symbol: string, d: DayNumber, isin?: string | null): number | undefined {
    if (isin) {
      const id = this.byIsin.get(isin);
      if (id !== undefined) return id;
    }
    for (const f of this.former.get(symbol) ?? []) if (d < f.until) return f.stockId;
    const holders = this.current.get(symbol);
    if (!holders) return undefined;
    // The holder listed on that day (listed stocks are first); a lone holder when dates do not tell.
    for (const h of holders)
      if ((h.listedOn === null || d >= h.listedOn) && (h.delistedOn === null || d < h.delistedOn))
        return h.stockId;
    return holders.length === 1 ? holders[0]!.stockId : undefined;
  }
}

/**
 * The stock each parsed row names (by its ISIN where it has one, else its symbol on day `on`), and a
 * rejection for each row naming no stock of the master, both in the order of the rows.
 */
export async function resolveRows<T extends { symbol: string; isin?: string | null }>(
  client: pg.PoolClient,
  rows: readonly Sourced<T>[],
  on: (v: T) => DayNumber,
  unknown: (v: T) => string = () => 'symbol not in the stock master',
): Promise<{ resolved: { row: Sourced<T>; stockId: number }[]; rejections: Rejection[] }> {
  const resolver = await SymbolResolver.load(client);
  const resolved: { row: Sourced<T>; stockId: number }[] = [];
  const rejections: Rejection[] = [];
  for (const row of rows) {
    const stockId = resolver.resolve(row.value.symbol, on(row.value), row.value.isin);
    if (stockId === undefined) rejections.push(rejectionOf(row, unknown(row.value)));
    else resolved.push({ row, stockId });
  }
  return { resolved, rejections };
}
