import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { generateDataset } from '@mdp/market';
import { lastCompletedSession } from '@mdp/nse-calendar';
import { expect } from 'vitest';
import { generateCompanies } from '../services/filings-reader/src/generate/companies.ts';
import { fnoStocks } from '../services/options-analytics/src/generate/universe.ts';
import { DATABASE_URL, type Stack, startStack } from './stack.ts';

const exec = promisify(execFile);
/** A smaller market than the default (same rules), so loading it takes seconds. */
const SIZE = 600;
const HISTORY_DAYS = 500;

export interface LoadedStack {
  stack: Stack;
  token: string;
  /** Symbols with something to show: the largest company (F&O), a listed ETF, a company with filings. */
  symbols: { stock: string; etf: string; filer: string };
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field by the tests.
  get(path: string): Promise<{ status: number; body: any }>;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  ok(path: string): Promise<any>;
  shutdown(): Promise<void>;
}

/**
 * The whole platform as real processes with data in every service, loaded with the data tools as an
 * operator runs them: the equities and options datasets of one generated market, and the filings of
 * three companies of the default market.
 */
export async function startLoadedStack(): Promise<LoadedStack> {
  const market = generateDataset({
    seed: 20_260_101,
    size: SIZE,
    endDay: lastCompletedSession(Date.now()),
    historyDays: HISTORY_DAYS,
  });
  const symbols = {
    stock: fnoStocks(market).current[0]!.nseSymbol!,
    etf: market.stocks.find((s) => s.stockType === 'etf' && s.status === 'listed')!.symbol,
    filer: generateCompanies(1)[0]!.symbol,
  };
  const stack = await startStack();
  const token = (await stack.admin('demo-token', '--plan', 'pro')).split('\n').at(-1)!;
  const tool = async (service: string, ...args: string[]) => {
    const schema = stack.schemas.find((s) => s.endsWith(`_${service.replace(/-/g, '_')}`))!;
    await exec(process.execPath, ['--import', 'tsx', `services/${service}/src/cli.ts`, ...args], {
      env: { ...process.env, DATABASE_URL, DB_SCHEMA: schema },
    });
  };
  const get = async (path: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.json() };
  };
  const ok = async (path: string) => {
    const r = await get(path);
    expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
    return r.body;
  };
  const market_ = ['--size', String(SIZE), '--history-days', String(HISTORY_DAYS)];
  await Promise.all([
    tool('equities-data', 'generate', ...market_),
    tool('options-analytics', 'generate', ...market_),
    tool('filings-reader', 'load-default', '--companies', '3'),
  ]);
  // The equities service reloads on the load's notification.
  const until = Date.now() + 30_000;
  while ((await get(`/v1/stocks/${encodeURIComponent(symbols.stock)}/quote`)).status !== 200) {
    if (Date.now() > until) throw new Error('the equities service never served the generated data');
    await new Promise((r) => setTimeout(r, 200));
  }
  return { stack, token, symbols, get, ok, shutdown: () => stack.shutdown() };
}
