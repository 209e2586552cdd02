import type { CallOptions, MdpClient, Params, Result } from './client.ts';

/** Symbols per `/v1/quotes` call (SPEC: 1 to 20 distinct symbols, one unit). */
export const QUOTES_PER_CALL = 20;

/** Units `quotes()` spends on these symbols: one per group of 20 distinct symbols. */
export function quoteUnits(symbols: readonly string[]): number {
  return Math.ceil(new Set(symbols).size / QUOTES_PER_CALL);
}

type BatchItem = Result<'getQuotes'>['data'][number];

/**
 * Quotes of any number of symbols, in calls of 20 distinct symbols (each one unit; `quoteUnits` says
 * how many), in the order given; symbols the API does not know come back as its not-found items.
 */
export async function quotes(
  client: MdpClient,
  symbols: readonly string[],
  options?: CallOptions,
): Promise<{ items: BatchItem[]; units: number }> {
  const distinct = [...new Set(symbols)];
  const items: BatchItem[] = [];
  for (let i = 0; i < distinct.length; i += QUOTES_PER_CALL) {
    const page = await client.getQuotes({ symbols: distinct.slice(i, i + QUOTES_PER_CALL) }, options);
    items.push(...page.data);
  }
  return { items, units: Math.ceil(distinct.length / QUOTES_PER_CALL) };
}

/**
 * Every page of a price history, newest page first: follows `meta.next_cursor` (as `end_date`) until
 * `meta.has_more` is false. Each page costs one unit.
 */
export async function* pricePages(
  client: MdpClient,
  params: Params<'getPriceHistory'>,
  options?: CallOptions,
): AsyncGenerator<Result<'getPriceHistory'>> {
  let cursor = params.end_date;
  for (;;) {
    const page = await client.getPriceHistory(
      { ...params, ...(cursor ? { end_date: cursor } : {}) },
      options,
    );
    yield page;
    const next = page.meta.next_cursor;
    if (!page.meta.has_more || typeof next !== 'string') return;
    cursor = next;
  }
}

type Bar = Result<'getPriceHistory'>['data'][number];

/** The whole price history as one list of bars, oldest first (every page of `pricePages`). */
export async function allPrices(
  client: MdpClient,
  params: Params<'getPriceHistory'>,
  options?: CallOptions,
): Promise<Bar[]> {
  const pages: Bar[][] = [];
  for await (const page of pricePages(client, params, options)) pages.unshift(page.data);
  return pages.flat();
}
