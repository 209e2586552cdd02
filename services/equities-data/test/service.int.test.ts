import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { status } from '@mdp/grpc';
import { createLogger } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { run } from '../src/cli.ts';
import { runImport } from '../src/importers/index.ts';
import { RELOAD_CHANNEL, readDatasetVersion } from '../src/store/dataset-change.ts';
import { listenForReloads } from '../src/store/reload.ts';
import { grpcError, type ServiceEnv, silent, startService } from './grpc-env.ts';
import { clockAt, DATABASE_URL, readDocument, smallDataset } from './support.ts';

// A reduced default dataset (300 stocks, six years of bars) loaded through the CLI into a fresh schema,
// served by the real gRPC server and called through the real client.
const SIZE = '300';
const END = '2026-11-20';
let env: ServiceEnv;
const io = { log: () => {}, now: clockAt('2026-11-22') };

/** Another service's schema in the same database, with a table the load must leave unanalysed. */
const neighbour = `eqsvc_neighbour_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  env = await startService({ prefix: 'eqsvc', clock: clockAt('2026-11-22') });
  const { pool } = env;
  await pool.query(`CREATE SCHEMA "${neighbour}"`);
  await pool.query(`CREATE TABLE "${neighbour}".events AS SELECT g AS id FROM generate_series(1, 100) AS g`);
  await run(pool, ['load-default', '--if-empty', '--size', SIZE, '--end', END], io);
  // A company whose symbol has an ampersand, with two bars.
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO stocks (symbol, name, isin, nse_symbol, bse_code, sector, industry, macro_sector, shares_outstanding)
     VALUES ('M&M', 'Mahindra & Mahindra Limited', 'INE101A01026', 'M&M', '500520', 'Automobile and Auto Components',
             'Automobiles', 'Consumer Discretionary', 1243528831) RETURNING id`,
  );
  await pool.query(
    `INSERT INTO daily_bars VALUES ($1, '2026-11-19', 320000, 325000, 318000, 321000, 100000, 40000),
                                   ($1, '2026-11-20', 321000, 330000, 320500, 329700, 120000, 60000)`,
    [rows[0]!.id],
  );
  await env.reload();
});

afterAll(async () => {
  await env?.pool.query(`DROP SCHEMA IF EXISTS "${neighbour}" CASCADE`);
  await env?.close();
});

describe('loading the default dataset', () => {
  it('loads once; --if-empty leaves a loaded schema alone', async () => {
    expect(await run(env.pool, ['load-default', '--if-empty', '--size', SIZE, '--end', END], io)).toMatch(
      /already loaded/,
    );
    const stats = await run(env.pool, ['stats'], io);
    expect(stats).toMatch(new RegExp(`stocks\\s+${Number(SIZE) + 1}\\b`));
    // Every area's tables are counted, and the generated load filled them.
    for (const table of ['financial_periods', 'shareholding', 'news', 'fii_dii_cash', 'fpi_sectors'])
      expect(stats).toMatch(new RegExp(`^${table}\\s+[1-9]\\d*$`, 'm'));
  });

  it("analyses its own schema's tables and no other schema's", async () => {
    const { rows } = await env.pool.query<{ schema: string; table: string; analysed: boolean }>(
      `SELECT schemaname AS schema, relname AS table, last_analyze IS NOT NULL AS analysed
         FROM pg_stat_user_tables
        WHERE (schemaname = current_schema() AND relname IN ('stocks', 'daily_bars')) OR schemaname = $1
        ORDER BY 1 DESC, 2`,
      [neighbour],
    );
    expect(rows).toEqual([
      { schema: neighbour, table: 'events', analysed: false },
      { schema: env.schema, table: 'daily_bars', analysed: true },
      { schema: env.schema, table: 'stocks', analysed: true },
    ]);
  });

  it('stores exactly what the generator produces (the database and the in-memory model agree)', async () => {
    const mem = smallDataset(Number(SIZE), Date.parse(`${END}T00:00:00Z`) / 86_400_000, 20_260_101);
    const { rows } = await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM daily_bars');
    expect(Number(rows[0]!.n)).toBe(mem.generated.barCount + 2);
    for (const e of mem.dataset.entries.slice(0, 40)) {
      const db = env.dataset.resolve(e.row.symbol)!;
      expect(db.lastBar).toEqual(e.lastBar);
      expect(db.range52).toEqual(e.range52);
      expect(db.prevClose).toBe(e.prevClose);
      expect(db.marketCapCr).toBeCloseTo(e.marketCapCr!, 6);
    }
  });
});

/** The largest generated stock with full history (not the hand-made M&M). */
const generatedTop = () =>
  env.dataset.entries.find(
    (e) =>
      e.row.symbol !== 'M&M' &&
      e.row.status === 'listed' &&
      e.firstDay! < Date.parse('2021-01-01') / 86_400_000,
  )!;

describe('the gRPC service over Postgres', () => {
  it('searches, with meta total/limit/offset', async () => {
    const top = generatedTop();
    const { data, meta } = readDocument(await env.client.call.searchStocks({ q: top.row.symbol, limit: 3 }));
    expect(data[0].symbol).toBe(top.row.symbol);
    expect(meta).toMatchObject({ limit: 3, offset: 0 });
    const amp = readDocument(await env.client.call.searchStocks({ q: 'M&M', limit: 3 }));
    expect(amp.data[0]).toMatchObject({
      symbol: 'M&M',
      bse_code: '500520',
      is_active: true,
      stock_type: 'equity',
    });
  });

  it('quotes a symbol with an ampersand, and by BSE code', async () => {
    const q = readDocument(await env.client.call.getStockQuote({ symbol: 'M&M' })).data;
    expect(q).toMatchObject({
      symbol: 'M&M',
      ltp: 3297,
      prev_close: 3210,
      change: 87,
      change_pct: 2.71,
      volume: 120000,
      delivery_pct: 50,
    });
    expect(q.market_cap_cr).toBeCloseTo((1243528831 * 3297) / 1e7, 0);
    expect(readDocument(await env.client.call.getStockQuote({ symbol: '500520' })).data.symbol).toBe('M&M');
  });

  it('answers NOT_FOUND for unknown symbols, and for the routes of later issues', async () => {
    expect((await grpcError(env.client.call.getStockQuote({ symbol: 'NOPE' }))).code).toBe(status.NOT_FOUND);
    expect(
      (await grpcError(env.client.call.getPriceHistory({ symbol: 'NOPE', days: 5, interval: 'daily' }))).code,
    ).toBe(status.NOT_FOUND);
    expect((await grpcError(env.client.call.getFinancials({ symbol: 'M&M' }))).code).toBe(status.NOT_FOUND);
  });

  it('batches quotes and reports unknown symbols; more than 20 is INVALID_ARGUMENT on symbols', async () => {
    const { data, meta } = readDocument(
      await env.client.call.getQuotes({ symbols: ['M&M', 'NOPE', env.dataset.entries[0]!.row.symbol] }),
    );
    expect(data.map((d: { symbol: string }) => d.symbol)).toEqual([
      'M&M',
      'NOPE',
      env.dataset.entries[0]!.row.symbol,
    ]);
    expect(meta).toMatchObject({ requested: 3, found: 2, not_found: ['NOPE'] });
    const many = Array.from({ length: 21 }, (_, i) => `S${i}`);
    expect(await grpcError(env.client.call.getQuotes({ symbols: many }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'symbols',
    });
  });

  it('pages 2,000-day price history back to the first bar with no gap or repeat', async () => {
    const stock = generatedTop();
    const { rows } = await env.pool.query<{ d: string }>(
      "SELECT to_char(d, 'YYYY-MM-DD') AS d FROM daily_bars WHERE stock_id = $1 ORDER BY d",
      [stock.row.id],
    );
    const dates: string[] = [];
    let end: string | undefined;
    let pages = 0;
    for (;;) {
      const { data, meta } = readDocument(
        await env.client.call.getPriceHistory({
          symbol: stock.row.symbol,
          days: 2000,
          interval: 'daily',
          end_date: end,
        }),
      );
      pages++;
      dates.unshift(...data.map((b: { date: string }) => b.date));
      if (!meta.has_more) break;
      end = meta.next_cursor;
    }
    expect(pages).toBe(2);
    expect(dates).toEqual(rows.map((r) => r.d));
  });

  it('refuses a cursor it could not have issued with INVALID_ARGUMENT naming end_date', async () => {
    for (const end_date of ['2026-11-23', '2000-01-03'])
      expect(
        await grpcError(
          env.client.call.getPriceHistory({ symbol: 'M&M', days: 30, interval: 'daily', end_date }),
        ),
      ).toMatchObject({
        code: status.INVALID_ARGUMENT,
        param: 'end_date',
      });
  });

  it('serves a profile with technicals, ratings and peers from the stored history', async () => {
    const top = generatedTop();
    const { data } = readDocument(
      await env.client.call.getStockProfile({
        symbol: top.row.symbol,
        include: ['technicals', 'ratings', 'peers'],
      }),
    );
    expect(data.technicals.sma['200']).toBeGreaterThan(0);
    expect(data.growth.stock_price_cagr_pct['5y']).not.toBeNull();
    expect(data.quote.ltp).toBe(top.lastBar!.close / 100);
  });
});

/** Polls `done` (a reload, a version check, a connection) instead of guessing how long it takes. */
const until = async (what: string, done: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** A listener's connections whose LISTEN has completed (so it has taken effect). */
const listening = async (applicationName: string) =>
  (
    await env.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = $1 AND query LIKE 'LISTEN%' AND state = 'idle'`,
      [applicationName],
    )
  ).rows[0]!.n;

/** An NSE master list of one company, imported as the CLI would (committing and notifying). */
const importCompany = async (symbol: string, name: string, isin: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'eqreload-'));
  try {
    const file = join(dir, 'EQUITY_L.csv');
    writeFileSync(
      file,
      'SYMBOL,NAME OF COMPANY, SERIES, DATE OF LISTING, PAID UP VALUE, MARKET LOT, ISIN NUMBER, FACE VALUE\n' +
        `${symbol},${name},EQ,20-NOV-2026,10,1,${isin},10\n`,
    );
    expect((await runImport(env.pool, 'nse-securities', [file])).changed).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const served = async (q: string) =>
  readDocument(await env.client.call.searchStocks({ q, limit: 1 })).data[0]?.name;

describe('a running service', () => {
  it('reloads its in-memory dataset when an import into its schema commits', async () => {
    let reloads = 0;
    let checks = 0;
    const loaded = await readDatasetVersion(env.pool);
    const listener = listenForReloads({
      databaseUrl: DATABASE_URL,
      schema: env.schema,
      logger: silent,
      debounceMs: 50,
      isCurrent: async () => {
        const current = (await readDatasetVersion(env.pool)) === loaded;
        checks++;
        return current;
      },
      reload: async () => {
        await env.reload();
        reloads++;
      },
    });
    try {
      // The version check runs once LISTEN is in place.
      await until('the version check on connecting', () => checks === 1);
      await importCompany('NEWCO', 'Newly Listed Company Limited', 'INE002A01018');
      await until('the reload', () => reloads === 1);
      expect(await served('NEWCO')).toBe('Newly Listed Company Limited');
    } finally {
      await listener.close();
    }
  });

  it('retries a failed reload with backoff until one succeeds, with no further notification', async () => {
    const appName = `equities-data-listen-${Math.random().toString(36).slice(2, 10)}`;
    const logged: { msg: string; retryMs?: number }[] = [];
    const logger = createLogger('t', 'error', { write: (line: string) => logged.push(JSON.parse(line)) });
    let attempts = 0;
    let reloads = 0;
    const listener = listenForReloads({
      databaseUrl: DATABASE_URL,
      schema: env.schema,
      logger,
      debounceMs: 50,
      applicationName: appName,
      isCurrent: async () => true,
      reload: async () => {
        if (++attempts <= 2) throw new Error('canceling statement due to statement timeout');
        await env.reload();
        reloads++;
      },
    });
    try {
      await until('the listener to listen', async () => (await listening(appName)) === 1);
      await env.pool.query('SELECT pg_notify($1, $2)', [RELOAD_CHANNEL, env.schema]);
      await until('the reload to succeed', () => reloads === 1);
      expect(attempts).toBe(3);
      expect(logged).toEqual([
        expect.objectContaining({ msg: 'dataset reload failed', retryMs: expect.any(Number) }),
        expect.objectContaining({ msg: 'dataset reload failed', retryMs: expect.any(Number) }),
      ]);
    } finally {
      await listener.close();
    }
  });

  it('on its first connection, reloads an import that committed after its first load', async () => {
    let reloads = 0;
    let loaded = await readDatasetVersion(env.pool);
    // Its notification is sent before anyone listens, so it is lost: only the version tells.
    await importCompany('LATECO', 'Late Listed Company Limited', 'INE009A01021');
    const listener = listenForReloads({
      databaseUrl: DATABASE_URL,
      schema: env.schema,
      logger: silent,
      debounceMs: 50,
      isCurrent: async () => (await readDatasetVersion(env.pool)) === loaded,
      reload: async () => {
        loaded = await readDatasetVersion(env.pool);
        await env.reload();
        reloads++;
      },
    });
    try {
      await until('the reload', () => reloads === 1);
      expect(await served('LATECO')).toBe('Late Listed Company Limited');
    } finally {
      await listener.close();
    }
  });
});

describe('a running service whose LISTEN connection drops', () => {
  const appName = `equities-data-listen-${Math.random().toString(36).slice(2, 10)}`;

  it('reloads after reconnecting only when the dataset version moved meanwhile', async () => {
    let reloads = 0;
    let checks = 0;
    let served = await readDatasetVersion(env.pool);
    const listener = listenForReloads({
      databaseUrl: DATABASE_URL,
      schema: env.schema,
      logger: silent,
      debounceMs: 50,
      applicationName: appName,
      isCurrent: async () => {
        const current = (await readDatasetVersion(env.pool)) === served;
        checks++;
        return current;
      },
      reload: async () => {
        started++;
        served = await readDatasetVersion(env.pool);
        await env.reload();
        reloads++;
      },
    });
    let started = 0;
    /** Long enough for a reload scheduled by the check (50 ms of debounce) to have started. */
    const settle = () => new Promise((r) => setTimeout(r, 1_000));
    /** Cuts the listener's connection, as a database restart would, and waits for its version check. */
    const cut = async () => {
      const checked = checks;
      const { rows } = await env.pool.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
        [appName],
      );
      expect(rows[0]!.n).toBe(1);
      await until('the version check after reconnecting', () => checks > checked);
    };
    try {
      await until('the version check on connecting', () => checks === 1);
      await cut();
      await settle();
      expect(started).toBe(0);
      // A change whose notification was lost while nobody listened: only its version tells.
      await env.pool.query('UPDATE dataset_version SET version = version + 1');
      await cut();
      await until('the reload', () => reloads === 1);
      await cut();
      await settle();
      expect(started).toBe(1);
    } finally {
      await listener.close();
    }
  });
});

describe('the command-line tool', () => {
  const exec = promisify(execFile);
  const tool = (...args: string[]) =>
    exec(process.execPath, [...nodeArgsFor('services/equities-data/src/cli.ts'), ...args], {
      env: { ...process.env, DATABASE_URL, DB_SCHEMA: env.schema },
    });

  it('prints what the schema holds, and exits 2 with usage on a bad command', async () => {
    expect((await tool('stats')).stdout).toMatch(/daily_bars\s+\d+/);
    const err = (await tool('frobnicate').catch((e) => e)) as { code: number; stderr: string };
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/unknown command "frobnicate"[\s\S]*usage: equities-data/);
    // Two runs of the real CLI, each compiling its TypeScript: over 30 s on a machine under load.
  }, 120_000);
});
