import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonExamples } from '../docs/examples.ts';
import { getAs, ok, platform } from './client.ts';
import { validCalls } from './valid-calls.ts';

// The Python client (clients/python) against the real platform, as a subscriber's Python program uses
// it: its integration tests (clients/python/tests/integration) run by the Python that has pandas, each
// reporting what it saw so that this side can hold it against the server's own figures (units charged,
// the REST documents); kept-alive connections to the gateway; the failed-authentication throttle's 429
// raised at once; the command line against `mdp`'s output byte for byte; the package pip installs
// offline into a fresh virtual environment, running the README's example; and every example of the
// client's own README as written.

const exec = promisify(execFile);
/** A Python 3.9+ with pandas and venv: Debian's (python3-pandas, python3-venv) unless MDP_PYTHON says. */
const PYTHON = process.env.MDP_PYTHON || '/usr/bin/python3';
const PACKAGE = 'clients/python';
const { stock, etf, filer } = platform.symbols;

const work = mkdtempSync(join(tmpdir(), 'mdp-python-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The fifth and sixth spare tokens of each plan are this file's (loaded-stack.ts).
const tokens = {
  platform: platform.token,
  routes: platform.spare.platform[4]!,
  cli: platform.spare.platform[5]!,
  burst: platform.spare.burst10[4]!,
  quota: platform.spare.free[4]!,
};

beforeAll(() => {
  // Fails here, loudly, rather than skipping the DataFrame tests on a machine without pandas.
  const probe = spawnSync(
    PYTHON,
    ['-c', 'import sys, pandas, venv, ensurepip; print(sys.version_info >= (3, 9))'],
    {
      encoding: 'utf8',
    },
  );
  if (probe.status !== 0 || probe.stdout.trim() !== 'True')
    throw new Error(
      `${PYTHON} with pandas and venv is needed by the Python client's tests (${(probe.stderr || probe.error?.message || '').trim().split('\n').at(-1)}): ` +
        "run `make test-tools` as root (it installs Debian's python3-pandas and python3-venv), or `sudo apt-get install python3-pandas python3-venv`, or set MDP_PYTHON to a Python 3.9+ that has pandas",
    );
});

let report = 0;

/** Runs one test class of the Python integration tests; resolves to what it reported. */
async function python(testClass: string, extra: Record<string, string> = {}): Promise<any> {
  const reportFile = join(work, `report-${++report}.json`);
  const docId = (await ok(`/v1/stocks/${filer}/documents`)).data[0].doc_id;
  const run = await exec(PYTHON, ['-m', 'unittest', '-v', `tests.integration.test_platform.${testClass}`], {
    cwd: PACKAGE,
    env: {
      ...process.env,
      PYTHONPATH: 'src',
      PYTHONDONTWRITEBYTECODE: '1',
      MDP_BASE_URL: platform.baseUrl,
      MDP_TEST_TOKENS: JSON.stringify(tokens),
      MDP_TEST_SYMBOLS: JSON.stringify({ stock, etf, filer }),
      MDP_TEST_CALLS: JSON.stringify(
        Object.fromEntries(Object.entries(validCalls(docId)).map(([id, c]) => [id, { args: c.args }])),
      ),
      MDP_TEST_REPORT: reportFile,
      ...extra,
    },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`python ${testClass} failed:\n${err.stderr ?? ''}${err.stdout ?? ''}${err.message}`);
  });
  // unittest prints its summary on stderr: every test ran and passed, none skipped.
  expect(run.stderr).toMatch(/\nOK\n?$/);
  expect(run.stderr).not.toMatch(/skipped|expected failures/);
  return JSON.parse(readFileSync(reportFile, 'utf8'));
}

async function usedToday(token: string): Promise<number> {
  const usage = await getAs(token, '/v1/me/usage');
  expect(usage.status).toBe(200);
  return usage.body.data.day.used;
}

describe('the Python client against the platform', () => {
  it('answers every route through its typed method with the REST document, and charges one unit a 200', async () => {
    const { routes } = await python('EveryRoute');
    const calls = validCalls((await ok(`/v1/stocks/${filer}/documents`)).data[0].doc_id);
    for (const [operationId, { path }] of Object.entries(calls)) {
      if (operationId === 'getMyUsage') continue;
      expect(routes.data[operationId], operationId).toEqual((await ok(path)).data);
    }
    expect(routes.metered_200s).toBe(Object.keys(calls).length - 1);
    expect(await usedToday(tokens.routes)).toBe(routes.metered_200s);
  }, 120_000);

  it('waits out a 429 rate_limited for its Retry-After; units charged = the 200s received', async () => {
    const { burst } = await python('Retries.test_rate_limited_is_waited_out');
    expect(burst.ok).toBe(12);
    expect(burst.refused).toBeGreaterThanOrEqual(1);
    expect(await usedToday(tokens.burst)).toBe(burst.ok);
  }, 180_000);

  it('does not retry quota_exhausted; units charged = the 200s received', async () => {
    const { quota } = await python('Retries.test_quota_exhausted_is_not_retried');
    expect(quota).toMatchObject({ ok: 50, refused: 3, refusals: 3 });
    expect(await usedToday(tokens.quota)).toBe(50);
  }, 120_000);

  it('walks the cursor over a history of more than 2,000 days, every bar once, and takes the last N days in the pages they need', async () => {
    const { paging } = await python('Paging');
    // The same walk by hand, a page of 2,000 days at a time.
    const byHand: string[] = [];
    let pages = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await ok(`/v1/stocks/${stock}/price?days=2000${cursor ? `&end_date=${cursor}` : ''}`);
      pages++;
      byHand.unshift(...page.data.map((b: { date: string }) => b.date));
      if (!page.meta.has_more) break;
      cursor = page.meta.next_cursor;
    }
    // No days: the whole history in the largest pages, as many as by hand.
    expect(pages).toBeGreaterThan(1);
    expect(paging.pages).toBe(pages);
    expect(paging.dates).toEqual(byHand);
    // The last 2,100 calendar days up to the first page's end, in two requests.
    const start = new Date(Date.parse(paging.window_to) - 2099 * 86_400_000).toISOString().slice(0, 10);
    expect(paging.last_2100).toEqual(byHand.filter((d) => d >= start));
    expect(paging.last_2100_requests).toBe(2);
  }, 120_000);

  it('keeps its connection to the gateway alive: 41 calls over one connection, and 41 without keep-alive', async () => {
    const { keep_alive, ampersand } = await python('KeepAlive');
    expect(keep_alive.kept.connections).toBe(1);
    expect(keep_alive.fresh.connections).toBe(41);
    expect(keep_alive.threads.connections).toBeLessThanOrEqual(4);
    expect(ampersand.status).toBe(404);
  }, 120_000);

  it('raises the throttle’s 429 for an address that sent too many refused tokens at once, without waiting it out', async () => {
    // The gateway believes one proxy hop from loopback (TRUST_PROXY_HOPS=1): a proxy that names one client
    // address stands for a client whose address has sent 30 refused tokens.
    const address = '198.51.100.51';
    const gateway = new URL(platform.baseUrl);
    const proxy = createServer((req, res) => {
      const target = new URL(req.url ?? '/', platform.baseUrl);
      const upstream = request(
        {
          host: gateway.hostname,
          port: gateway.port,
          path: target.pathname + target.search,
          headers: { ...req.headers, host: gateway.host, 'x-forwarded-for': address },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const refused = (token: string) =>
        fetch(`${platform.baseUrl}/v1/stocks/${stock}/quote`, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
        });
      for (let i = 0; i < 30; i++) expect((await refused(`mdp_refused_${i}`)).status).toBe(401);
      const throttled = await refused('mdp_refused_again');
      expect(throttled.status).toBe(429);
      // What the client tells it from a burst-cap 429 by: no account's rate-limit headers.
      for (const name of ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit', 'x-ratelimit-remaining'])
        expect(throttled.headers.get(name), name).toBeNull();
      const { throttle } = await python('AuthThrottle', {
        http_proxy: proxyUrl,
        HTTP_PROXY: proxyUrl,
        no_proxy: '',
        NO_PROXY: '',
      });
      expect(throttle.elapsed).toBeLessThan(5);
      expect(throttle.retry_after).toBeGreaterThan(5);
      expect(throttle.message).toMatch(/^429 rate_limited: too many failed authentications/);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 120_000);

  it('raises ValueError naming the parameter before any request, where the API would answer 400 for it', async () => {
    const { bounds } = await python('Bounds');
    expect(bounds.params).toEqual([
      'days',
      'days',
      'end_date',
      'symbols',
      'strikes',
      'periods',
      'limit',
      'granularity',
    ]);
  });

  it('converts price and index history, financials and option chains to DataFrames with typed columns', async () => {
    const { frames } = await python('Frames');
    const IST = 'datetime64[ns, Asia/Kolkata]';
    expect(frames.prices).toEqual({
      open: 'float64',
      high: 'float64',
      low: 'float64',
      close: 'float64',
      volume: 'int64',
      delivery_pct: 'float64',
      'index:date': IST,
    });
    expect(frames.weekly).toMatchObject({
      last_session: IST,
      sessions: 'int64',
      volume: 'int64',
      'index:date': IST,
    });
    expect(frames.index).toMatchObject({ close: 'float64', pe: 'float64', 'index:date': IST });
    expect(frames.index_weekly).toMatchObject({ week_start: IST, sessions: 'int64', 'index:date': IST });
    expect(frames.chain).toMatchObject({
      strike: 'float64',
      call_ltp: 'float64',
      call_iv: 'float64',
      call_oi: 'Int64',
      call_volume: 'Int64',
      put_delta: 'float64',
      put_oi: 'Int64',
    });
    expect(frames.chain_rows).toBe(11);
    expect(frames.financials).toEqual(['float64']);
    expect(frames.financials_columns).toHaveLength(4);
    expect(frames.every_section).toEqual(['float64']);
    expect(frames.price_rows).toBeGreaterThan(15);
  }, 120_000);
});

describe('python -m mdp_client', () => {
  const env = { ...process.env, MDP_TOKEN: tokens.cli, MDP_BASE_URL: platform.baseUrl };
  const py = (...args: string[]) =>
    exec(PYTHON, ['-m', 'mdp_client', ...args], {
      cwd: PACKAGE,
      env: { ...env, PYTHONPATH: 'src', PYTHONDONTWRITEBYTECODE: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
  const mdp = (...args: string[]) =>
    exec(
      process.execPath,
      ['--conditions=mdp-source', '--import', 'tsx', 'packages/client/src/cli.ts', ...args],
      {
        env,
        maxBuffer: 16 * 1024 * 1024,
      },
    );

  it('searches', async () => {
    const ours = JSON.parse((await py('search', 'aravali', '--limit', '3')).stdout);
    expect(ours).toEqual((await ok('/v1/stocks?q=aravali&limit=3')).data);
    expect(ours[0].symbol).toBe('ARAVALIHOU');
  });

  it('prints what the mdp command prints: quote, usage and price --csv', async () => {
    for (const args of [
      ['quote', stock],
      ['price', stock, '--days', '30', '--csv'],
      ['price', stock, '--days', '2100', '--csv'],
      ['price', stock, '--days', '10'],
      ['usage'],
    ]) {
      const [ours, theirs] = [await py(...args), await mdp(...args)];
      expect(ours.stdout, args.join(' ')).toBe(theirs.stdout);
    }
    const csv = (await py('price', stock, '--days', '30', '--csv')).stdout.trim().split('\n');
    const month = (await ok(`/v1/stocks/${stock}/price?days=30`)).data;
    expect(csv[0]).toBe(Object.keys(month[0]).join(','));
    expect(csv).toHaveLength(month.length + 1);
  }, 120_000);

  it('says what went wrong, with exit code 1 for the API and 2 for a usage error', async () => {
    await expect(py('quote', 'NOSUCHCO')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^mdp: not_found: .*\[request [0-9a-f-]{36}\]/),
    });
    await expect(py('quote')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('quote needs a symbol'),
    });
  });
});

describe('the package', () => {
  it('pip installs offline into a fresh virtual environment and runs the README’s example', async () => {
    const venv = join(work, 'venv');
    await exec(PYTHON, ['-m', 'venv', venv]);
    // --no-index: nothing may come from a package index; the package's own build backend needs nothing.
    const pip = await exec(
      join(venv, 'bin/python'),
      ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', PACKAGE],
      { env: { ...process.env, PIP_NO_INPUT: '1' } },
    );
    expect(pip.stdout).toMatch(/Successfully installed mdp-client-1\.1\.0/);
    const [readme] = pythonExamples('README.md').filter((e) => e.kind === 'program');
    expect(readme, 'README.md has a ```python example').toBeDefined();
    const program = readme!.source.replaceAll('localhost:8080', new URL(platform.baseUrl).host);
    // Run from elsewhere than the source, so the installed package is the one imported.
    const run = await exec(join(venv, 'bin/python'), ['-c', program], {
      cwd: work,
      env: { PATH: process.env.PATH, MDP_TOKEN: tokens.platform },
    });
    expect(run.stdout).toMatch(/^ARAVALIHOU Aravali Housing Limited ₹[\d.]+\n/);
    const where = await exec(
      join(venv, 'bin/python'),
      ['-c', 'import mdp_client; print(mdp_client.__file__)'],
      {
        cwd: work,
      },
    );
    expect(where.stdout.startsWith(venv)).toBe(true);
  }, 180_000);
});

describe('the client README', () => {
  const examples = pythonExamples(`${PACKAGE}/README.md`);

  it('has a program for each section that shows code, and every command of the command line', () => {
    expect(examples.filter((e) => e.kind === 'program').length).toBeGreaterThanOrEqual(5);
    const commands = examples.filter((e) => e.kind === 'command').map((e) => e.source.split(' ')[3]);
    expect(new Set(commands)).toEqual(new Set(['quote', 'price', 'search', 'usage', '--help']));
  });

  it.each(examples.map((e) => [`clients/python/README.md:${e.line}`, e] as const))(
    '%s runs as written on the default data',
    async (_, example) => {
      const env = {
        ...process.env,
        PYTHONPATH: join(process.cwd(), PACKAGE, 'src'),
        PYTHONDONTWRITEBYTECODE: '1',
        MDP_TOKEN: tokens.platform,
        MDP_BASE_URL: platform.baseUrl,
      };
      const { stdout, stderr } =
        example.kind === 'program'
          ? await exec(PYTHON, ['-c', example.source], {
              cwd: work,
              env,
              timeout: 90_000,
              maxBuffer: 32 * 1024 * 1024,
            })
          : await exec('bash', ['-c', example.source.replace(/^python3 /, `${PYTHON} `)], {
              cwd: work,
              env,
              timeout: 90_000,
              maxBuffer: 32 * 1024 * 1024,
            });
      expect(stdout.length, example.source).toBeGreaterThan(0);
      expect(stderr, example.source).toBe('');
    },
    120_000,
  );
});
