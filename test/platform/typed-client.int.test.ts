import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { allPrices, MdpClient, MdpError, quotes, quoteUnits } from '@mdp/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, platform } from './client.ts';
import { validCalls } from './valid-calls.ts';

// The typed client (packages/client) against the real platform, as a subscriber's program uses it: every
// route, the pager, batch quotes, the rate-limit state, the `mdp` command line, the examples, and the
// package `npm pack` makes, installed into an empty project.

const exec = promisify(execFile);
const { stock } = platform.symbols;
const SOURCE = ['--conditions=mdp-source', '--import', 'tsx'];
const env = (token: string) => ({ ...process.env, MDP_TOKEN: token, MDP_BASE_URL: platform.baseUrl });

let docId: number;
beforeAll(async () => {
  docId = (await ok(`/v1/stocks/${platform.symbols.filer}/documents`)).data[0].doc_id;
});

describe('the typed client', () => {
  it('calls every route and gets the REST document; usage counts one unit for each', async () => {
    const token = platform.spare.platform[2]!;
    const client = new MdpClient({ baseUrl: platform.baseUrl, token });
    const calls = validCalls(docId);
    for (const [operationId, { args, path }] of Object.entries(calls)) {
      const method = (client as unknown as Record<string, (p: unknown) => Promise<any>>)[operationId]!;
      const result = await method.call(client, args);
      const viaRest = await ok(path);
      expect(result.meta.route, operationId).toBe(operationId);
      if (operationId !== 'getMyUsage') expect(result.data, operationId).toEqual(viaRest.data);
      expect(result.requestId, operationId).toMatch(/^[0-9a-f-]{36}$/);
    }
    const usage = await client.getMyUsage();
    expect(usage.data.day.used).toBe(Object.keys(calls).length - 1);
  }, 120_000);

  it('reports the rate-limit state of the last response, and the typed error of a refusal', async () => {
    const client = new MdpClient({ baseUrl: platform.baseUrl, token: platform.spare.free[1]! });
    await client.getStockQuote({ symbol: stock });
    expect(client.rateLimit).toMatchObject({ limit: 50, remaining: 49, burstPerMinute: 60 });
    expect(client.rateLimit!.reset!.getTime()).toBeGreaterThan(Date.now());
    expect(client.rateLimit!.current).toMatch(/^"daily";r=49;t=\d+$/);
    const err = await client.getStockQuote({ symbol: 'NOSUCHCO' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MdpError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    const bad = await client.getPriceHistory({ symbol: stock, days: 5000 }).catch((e: MdpError) => e);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request', param: 'days' });
  });

  it('pages a history of over 2,000 days with no gap and no overlap', async () => {
    const client = new MdpClient({ baseUrl: platform.baseUrl, token: platform.token });
    const paged = await allPrices(client, { symbol: stock, days: 200 });
    const dates = paged.map((b) => b.date);
    expect(new Set(dates).size).toBe(dates.length);
    expect([...dates].sort()).toEqual(dates);
    const span = (Date.parse(dates.at(-1)!) - Date.parse(dates[0]!)) / 86_400_000;
    expect(span).toBeGreaterThan(2_000);
    // Pages of 200 calendar days end exactly where one page of 2,000 days does.
    const single = await client.getPriceHistory({ symbol: stock, days: 2000 });
    expect(single.meta.has_more).toBe(true);
    expect(paged.slice(-single.data.length)).toEqual(single.data);
    expect(paged.length).toBeGreaterThan(single.data.length);
  }, 60_000);

  it('quotes any number of symbols in groups of 20, one unit a group', async () => {
    const client = new MdpClient({ baseUrl: platform.baseUrl, token: platform.spare.platform[3]! });
    const symbols = [
      stock,
      platform.symbols.etf,
      ...Array.from({ length: 23 }, (_, i) => `NOSUCH${i}`),
      stock,
    ];
    expect(quoteUnits(symbols)).toBe(2);
    const { items, units } = await quotes(client, symbols);
    expect(units).toBe(2);
    expect(items).toHaveLength(25);
    expect((items[0] as { symbol: string }).symbol).toBe(stock);
    expect((await client.getMyUsage()).data.day.used).toBe(2);
  });
});

describe('the mdp command line', () => {
  const mdp = (token: string, ...args: string[]) =>
    exec(process.execPath, [...SOURCE, 'packages/client/src/cli.ts', ...args], { env: env(token) });

  it('prints a quote, a CSV price history of every field the route serves, and the usage', async () => {
    const quote = JSON.parse((await mdp(platform.token, 'quote', stock)).stdout);
    expect(quote.symbol).toBe(stock);
    const csv = (await mdp(platform.token, 'price', stock, '--days', '30', '--csv')).stdout
      .trim()
      .split('\n');
    const month = (await ok(`/v1/stocks/${stock}/price?days=30`)).data;
    // The columns are every field the route serves (delivery_pct included), null as an empty cell.
    const columns = Object.keys(month[0]);
    expect(columns).toContain('delivery_pct');
    expect(csv[0]).toBe(columns.join(','));
    expect(csv.slice(1)).toEqual(month.map((b: any) => columns.map((c) => b[c] ?? '').join(',')));
    // More than one page (2,000 days): the same bars as the pages of 2,100 days' worth by hand.
    const long = (await mdp(platform.token, 'price', stock, '--days', '2100', '--csv')).stdout
      .trim()
      .split('\n')
      .slice(1);
    const first = await ok(`/v1/stocks/${stock}/price?days=2000`);
    const rest = await ok(`/v1/stocks/${stock}/price?days=100&end_date=${first.meta.next_cursor}`);
    const start = new Date(Date.parse(first.meta.window.to) - 2099 * 86_400_000).toISOString().slice(0, 10);
    const expected = [...rest.data, ...first.data].filter((b: any) => b.date >= start);
    expect(long.map((l) => l.split(',')[0])).toEqual(expected.map((b: any) => b.date));
    expect(JSON.parse((await mdp(platform.token, 'usage')).stdout).plan).toBe('platform');
  }, 60_000);

  it('says what went wrong, with exit code 1 for the API and 2 for a usage error', async () => {
    await expect(mdp(platform.token, 'quote', 'NOSUCHCO')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^mdp: not_found: .*\[request [0-9a-f-]{36}\]/),
    });
    await expect(mdp(platform.token, 'quote')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('quote needs a symbol'),
    });
    await expect(mdp('', 'usage')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('MDP_TOKEN'),
    });
  });
});

describe('the examples', () => {
  it('run as written against the platform', async () => {
    const quote = await exec(process.execPath, [...SOURCE, 'examples/quote.ts'], {
      env: env(platform.token),
    });
    expect(quote.stdout).toMatch(
      /^ARAVALIHOU Aravali Housing Limited: ₹[\d.]+ \(-?[\d.]+%\)\n4 quotes for 1 unit\(s\)\n/,
    );
    const prices = await exec(process.execPath, [...SOURCE, 'examples/price-history.ts', stock, '500'], {
      env: env(platform.token),
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = prices.stdout.trim().split('\n');
    expect(lines[0]).toBe('date,open,high,low,close,volume');
    // Every session of the default history (about 1,480), over three pages.
    expect(lines.length).toBeGreaterThan(1_400);
    expect(new Set(lines).size).toBe(lines.length);
  }, 60_000);
});

describe('the package', () => {
  let dir: string;
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('npm pack makes a package that installs and runs in an empty project', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mdp-client-'));
    const { stdout } = await exec('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: 'packages/client',
    });
    const tarball = join(dir, stdout.trim().split('\n').at(-1)!);
    const project = join(dir, 'app');
    await exec('mkdir', ['-p', project]);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    await exec('npm', ['install', '--silent', '--no-audit', '--no-fund', tarball], { cwd: project });
    writeFileSync(
      join(project, 'main.js'),
      `import { MdpClient } from '@mdp/client';
const client = new MdpClient({ baseUrl: process.env.MDP_BASE_URL, token: process.env.MDP_TOKEN });
const { data } = await client.getStockQuote({ symbol: process.argv[2] });
console.log(data.symbol);`,
    );
    expect(
      (
        await exec(process.execPath, ['main.js', stock], { cwd: project, env: env(platform.token) })
      ).stdout.trim(),
    ).toBe(stock);
    const cli = await exec(join(project, 'node_modules/.bin/mdp'), ['quote', stock], {
      cwd: project,
      env: env(platform.token),
    });
    expect(JSON.parse(cli.stdout).symbol).toBe(stock);
  }, 180_000);
});
