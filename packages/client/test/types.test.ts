import { describe, expect, it } from 'vitest';
import { MdpClient } from '../src/index.ts';

// The route methods are typed from the OpenAPI document: `make typecheck` fails when a call below that
// must be refused is accepted (each `@ts-expect-error` must meet an error), or a valid one is refused.

const client = new MdpClient({ token: 'mdp_test', baseUrl: 'http://127.0.0.1:9', retry: { maxAttempts: 1 } });

export async function typedCalls(): Promise<number> {
  const quote = await client.getStockQuote({ symbol: 'ARAVALIHOU' });
  const ltp: number | null = quote.data.ltp;
  const usage = await client.getMyUsage();
  const left: number | null = usage.data.day.remaining;
  await client.searchStocks({ q: 'aravali' });
  await client.getQuotes({ symbols: ['ARAVALIHOU', 'ANUPAMIRO'] });
  // @ts-expect-error `symbol` is required
  await client.getStockQuote({});
  // @ts-expect-error `days` is a number
  await client.getPriceHistory({ symbol: 'ARAVALIHOU', days: '30' });
  // @ts-expect-error no such parameter
  await client.searchStocks({ q: 'aravali', colour: 'red' });
  // @ts-expect-error `interval` is daily or weekly
  await client.getPriceHistory({ symbol: 'ARAVALIHOU', interval: 'hourly' });
  return (ltp ?? 0) + (left ?? 0);
}

describe('the client builds each route’s URL from its parameters', () => {
  it('puts path parameters in the path, encoded, and lists as one comma-separated value', () => {
    expect(client.url('getStockQuote', { symbol: 'M&M' })).toBe('http://127.0.0.1:9/v1/stocks/M%26M/quote');
    expect(client.url('getQuotes', { symbols: ['ARAVALIHOU', 'ANUPAMIRO'] })).toBe(
      'http://127.0.0.1:9/v1/quotes?symbols=ARAVALIHOU,ANUPAMIRO',
    );
    expect(client.url('getIndexHistory', { name: 'NIFTY 50', interval: '1y' })).toBe(
      'http://127.0.0.1:9/v1/indices/NIFTY%2050/history?interval=1y',
    );
    expect(typeof typedCalls).toBe('function');
  });
});
