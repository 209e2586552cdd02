import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DEFAULT_HISTORY_DAYS, DEFAULT_SEED, DEFAULT_SIZE, generateDataset } from '@mdp/market';
import { lastCompletedSession } from '@mdp/nse-calendar';
import { generateCompanies } from '../../services/filings-reader/src/generate/companies.ts';
import { fnoStocks } from '../../services/options-analytics/src/generate/universe.ts';
import { nodeArgsFor } from '../bundles.ts';
import { DATABASE_URL, PATIENT_DEADLINES, startStack } from '../stack.ts';
import { TEST_ENV } from '../test-env.ts';

/** What the platform tests are given: where the loaded platform answers, a token, and its market. */
export interface Platform {
  baseUrl: string;
  /** The gateway's operations port (`/metrics`, `/readyz`). */
  gatewayOpsUrl: string;
  /** On a plan without caps and with a burst cap no test reaches. */
  token: string;
  /**
   * Tokens of fresh accounts, each for one test that counts its own usage: on the `platform` plan
   * (uncapped), on `free` (50 a day, 60 a minute) and on `burst-10` (uncapped, 10 a minute).
   */
  spare: { platform: string[]; free: string[]; burst10: string[] };
  /** An account an operator created and invited with the admin tool: its one-use link and address. */
  invite: { url: string; email: string };
  /** Symbols with something to show: the largest company (F&O), a listed ETF, a company with filings. */
  symbols: { stock: string; etf: string; filer: string };
  /** The generated market the equities and options data were loaded from (regenerate it to compare). */
  market: { seed: number; size: number; historyDays: number; endDay: number };
}

const exec = promisify(execFile);

/**
 * Spare tokens of each kind (see `Platform.spare`); the fifth and sixth of each are the Python client's,
 * the seventh `/docs`'s try-it's.
 */
const SPARE_TOKENS = 7;

/**
 * The whole platform as real processes with data in every service, loaded with the data tools as
 * `make run` loads them: the default equities and options datasets, so every name the READMEs and
 * scripts give as an example is served here too, and the filings of the default market's three
 * largest companies (of its 300). Started once per test run for every platform test (vitest global
 * setup); resolves to the stop function.
 */
export async function startLoadedStack(): Promise<{ platform: Platform; stop: () => Promise<void> }> {
  const market = {
    seed: DEFAULT_SEED,
    size: DEFAULT_SIZE,
    historyDays: DEFAULT_HISTORY_DAYS,
    endDay: lastCompletedSession(Date.now()),
  };
  const generated = generateDataset(market);
  const symbols = {
    stock: fnoStocks(generated).current[0]!.nseSymbol!,
    etf: generated.stocks.find((s) => s.stockType === 'etf' && s.status === 'listed')!.symbol,
    filer: generateCompanies(1)[0]!.symbol,
  };
  // One trusted proxy hop, as behind an ingress: the account site's tests stand for many client
  // addresses with X-Forwarded-For. These tests count units and read answers: patient deadlines.
  // Two ledger shards, the topology operators scale to: every platform test meters through both.
  const stack = await startStack({ ...TEST_ENV, ...PATIENT_DEADLINES, TRUST_PROXY_HOPS: '1' }, { shards: 2 });
  try {
    await stack.admin(
      'plan',
      'create',
      'platform',
      '--daily',
      'none',
      '--monthly',
      'none',
      '--burst',
      '1000000',
    );
    await stack.admin('plan', 'create', 'burst-10', '--daily', 'none', '--monthly', 'none', '--burst', '10');
    const token = (await stack.admin('demo-token', '--plan', 'platform')).split('\n').at(-1)!;
    const pool = async (plan: string) =>
      (await stack.admin('token-pool', '--plan', plan, '--count', String(SPARE_TOKENS))).trim().split('\n');
    const accountId = (await stack.admin('account', 'create', '--plan', 'pro', '--name', 'invited')).trim();
    const inviteEmail = `invited-${Date.now().toString(36)}@example.com`;
    const inviteUrl = (
      await stack.admin('account', 'invite', accountId, inviteEmail, '--base-url', stack.baseUrl)
    )
      .trim()
      .split('\n')
      .at(-1)!;
    const spare = {
      platform: await pool('platform'),
      free: await pool('free'),
      burst10: await pool('burst-10'),
    };
    const tool = async (service: string, ...args: string[]) => {
      const schema = stack.schemas.find((s) => s.endsWith(`_${service.replace(/-/g, '_')}`))!;
      await exec(process.execPath, [...nodeArgsFor(`services/${service}/src/cli.ts`), ...args], {
        env: { ...process.env, DATABASE_URL, DB_SCHEMA: schema },
      });
    };
    await Promise.all([
      tool('equities-data', 'load-default'),
      tool('options-analytics', 'load-default'),
      tool('filings-reader', 'load-default', '--companies', '3'),
    ]);
    // The equities service reloads on the load's notification.
    const until = Date.now() + 120_000;
    const quote = `${stack.baseUrl}/v1/stocks/${encodeURIComponent(symbols.stock)}/quote`;
    while ((await fetch(quote, { headers: { authorization: `Bearer ${token}` } })).status !== 200) {
      if (Date.now() > until) throw new Error('the equities service never served the generated data');
      await new Promise((r) => setTimeout(r, 200));
    }
    return {
      platform: {
        baseUrl: stack.baseUrl,
        gatewayOpsUrl: `http://127.0.0.1:${stack.procs.get('gateway')!.opsPort}`,
        token,
        spare,
        invite: { url: inviteUrl, email: inviteEmail },
        symbols,
        market,
      },
      stop: () => stack.shutdown(),
    };
  } catch (err) {
    await stack.shutdown();
    throw err;
  }
}
