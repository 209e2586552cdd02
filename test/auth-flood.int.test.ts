/**
 * Issue 41's done-when, on real processes: the most forged-token requests one process can send for 15 s
 * beside a paying caller, against the same flood of wrong-checksum tokens (what the load generator
 * itself costs on these cores) in the same run. The paying caller gets only 200s, auth's CPU stays under
 * 5% of one core, and no forged token is looked up beyond the throttle's allowance. Also: X-Forwarded-For
 * is believed only from the configured proxies. Figures are printed, `make bench` style; the Node-driven
 * twin of load-tests/auth-flood.js.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgedLegacyToken, forgedTaggedToken } from '../load-tests/lib/flood.js';
import { PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';

const SECONDS = Number(process.env.AUTH_FLOOD_SECONDS ?? 15);
const CONNECTIONS = 50;
const PAYING_RATE = 20;
const FLOOD_ROUTE = '/v1/stocks/ARAVALIHOU/quote';
// The stack's data schemas are empty; the usage route answers 200 through auth and the ledger.
const PAYING_ROUTE = '/v1/me/usage';
const TICKS_PER_SECOND = 100;

let stack: Stack;
let payingToken: string;
type Gateway = { baseUrl: string; opsPort: number; stop(): Promise<void> };
let unthrottled: Gateway | undefined;
let foreignProxy: Gateway | undefined;

beforeAll(async () => {
  // Every gateway behind one proxy hop (the stack's env is every gateway's). The first one keeps the
  // shipped throttle and believes a proxy on loopback (the default TRUSTED_PROXY_CIDRS).
  // Patient deadlines: on two busy cores the ledger's usage read may outwait the default 300 ms, a 503
  // about the machine's load, not about the flood (the paying token is cached: it asks auth nothing).
  stack = await startStack({ ...PATIENT_DEADLINES, TRUST_PROXY_HOPS: '1' });
  payingToken = (await stack.admin('demo-token', '--plan', 'load-test')).split('\n').at(-1)!;
  // Without the failure throttle: what stops forged tagged tokens there must be the tag alone.
  unthrottled = await stack.startSecondGateway({ AUTH_FAILURE_LIMIT: '1000000' });
  // Behind a proxy elsewhere: loopback's X-Forwarded-For is then not believed.
  foreignProxy = await stack.startSecondGateway({
    AUTH_FAILURE_LIMIT: '5',
    TRUSTED_PROXY_CIDRS: '10.0.0.0/8',
  });
}, 540_000);
afterAll(async () => {
  await unthrottled?.stop();
  await foreignProxy?.stop();
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

/** The pid of the process started with `OPS_PORT=<port>` (a second gateway's, which the stack does not expose). */
function pidWithOpsPort(port: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`OPS_PORT=${port}`))
        return Number(entry);
    } catch {}
  }
  throw new Error(`no process with OPS_PORT=${port}`);
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return (fields[11]! + fields[12]!) / TICKS_PER_SECOND;
}

async function lookups(opsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('auth_cache_lookups_total') && l.includes('result="miss"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

interface FloodResult {
  requests: number;
  statuses: Record<string, number>;
  unexpected: number;
}

function flood(url: string, kind: string): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/load-tests/flood-driver.ts', url, kind, String(CONNECTIONS), String(SECONDS)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!))
        : reject(new Error(`flood: ${code} ${err}`)),
    );
  });
}

/** An open loop: a request every 1/rate s whatever the answers take, like a client's timer. */
async function paying(baseUrl: string): Promise<{ statuses: number[]; ms: number[] }> {
  const statuses: number[] = [];
  const ms: number[] = [];
  const calls: Promise<void>[] = [];
  const end = Date.now() + SECONDS * 1000;
  for (let next = Date.now(); next < end; next += 1000 / PAYING_RATE) {
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    const started = performance.now();
    calls.push(
      fetch(`${baseUrl}${PAYING_ROUTE}`, { headers: { authorization: `Bearer ${payingToken}` } }).then(
        async (res) => {
          await res.arrayBuffer();
          statuses.push(res.status);
          ms.push(performance.now() - started);
        },
        () => {
          statuses.push(0);
        },
      ),
    );
  }
  await Promise.all(calls);
  return { statuses, ms };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

interface Phase {
  name: string;
  flood: FloodResult;
  paying: { statuses: number[]; ms: number[] };
  authCpuShare: number;
  gatewayCpuUsPerFlood: number | undefined;
  lookups: number;
}

async function phase(name: string, gw: { baseUrl: string; opsPort: number; pid?: number }, kind: string) {
  const authPid = stack.procs.get('auth')!.child.pid!;
  // The paying token is verified and cached before the flood, as a subscriber's would be.
  expect(
    (await fetch(`${gw.baseUrl}${PAYING_ROUTE}`, { headers: { authorization: `Bearer ${payingToken}` } }))
      .status,
  ).toBe(200);
  const before = {
    auth: cpuSeconds(authPid),
    gw: gw.pid ? cpuSeconds(gw.pid) : 0,
    lookups: await lookups(gw.opsPort),
    at: performance.now(),
  };
  const [floodResult, payingResult] = await Promise.all([
    flood(`${gw.baseUrl}${FLOOD_ROUTE}`, kind),
    paying(gw.baseUrl),
  ]);
  const wallS = (performance.now() - before.at) / 1000;
  const result: Phase = {
    name,
    flood: floodResult,
    paying: payingResult,
    authCpuShare: (cpuSeconds(authPid) - before.auth) / wallS,
    gatewayCpuUsPerFlood: gw.pid
      ? ((cpuSeconds(gw.pid) - before.gw) * 1e6) / floodResult.requests
      : undefined,
    lookups: (await lookups(gw.opsPort)) - before.lookups,
  };
  phases.push(result);
  return result;
}

const phases: Phase[] = [];

function report(): void {
  const rows = phases.map((p) => {
    const s = Object.entries(p.flood.statuses)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ');
    return `| ${p.name.padEnd(34)} | ${String(Math.round(p.flood.requests / SECONDS)).padStart(6)} | ${s.padEnd(26)} | ${String(p.lookups).padStart(7)} | ${String(p.paying.statuses.filter((x) => x === 200).length).padStart(4)}/${String(p.paying.statuses.length).padEnd(4)} | ${pct(p.paying.ms, 50).toFixed(1).padStart(6)} | ${pct(p.paying.ms, 99).toFixed(1).padStart(6)} | ${(p.authCpuShare * 100).toFixed(2).padStart(6)} | ${p.gatewayCpuUsPerFlood === undefined ? '     -' : p.gatewayCpuUsPerFlood.toFixed(0).padStart(6)} |`;
  });
  process.stdout.write(
    [
      '',
      `auth flood: ${CONNECTIONS} connections from one process for ${SECONDS} s, a paying caller at ${PAYING_RATE}/s beside it`,
      '| flood                              | req/s  | flood answers              | lookups | 200s/sent | p50 ms | p99 ms | auth % | gw µs/req |',
      '| ---------------------------------- | -----: | -------------------------- | ------: | --------: | -----: | -----: | -----: | --------: |',
      ...rows,
      '',
    ].join('\n'),
  );
}

describe('a flood of forged tokens beside a paying caller', () => {
  afterAll(report);

  it('tagged forgeries cost what wrong-checksum tokens cost: no lookup, auth idle, the paying caller served alike', async () => {
    const gw = { ...unthrottled!, pid: pidWithOpsPort(unthrottled!.opsPort) };
    const baseline = await phase('wrong checksum (no throttle)', gw, 'checksum');
    const forged = await phase('forged tags (no throttle)', gw, 'tagged');
    for (const p of [baseline, forged]) {
      expect(p.flood.unexpected, p.name).toBe(0);
      expect(p.flood.requests, p.name).toBeGreaterThan(SECONDS * 50);
      expect(p.paying.statuses.length, p.name).toBeGreaterThan(SECONDS * PAYING_RATE * 0.9);
      expect(
        p.paying.statuses.filter((s) => s !== 200),
        p.name,
      ).toEqual([]);
    }
    // No forged token reached auth, and auth stayed under 5% of a core.
    expect(forged.lookups).toBe(0);
    expect(forged.authCpuShare).toBeLessThan(0.05);
    expect(forged.flood.statuses['401']).toBe(forged.flood.requests);
    // The gateway's CPU per flood request of each phase is printed, not asserted: at load 20 the two
    // phases of one run read 438 and 1,781 µs (fewer flood requests over the same fixed costs), a
    // figure of the machine's load rather than of the tag check.
    // And the paying caller's median is no worse beyond what two phases of one busy machine differ by.
    expect(pct(forged.paying.ms, 50)).toBeLessThan(pct(baseline.paying.ms, 50) * 3 + 20);
  }, 180_000);

  it('legacy forgeries with a right CRC32 (the attack of the issue): throttled at 30 failures, 429 with Retry-After, auth idle', async () => {
    const main = stack.procs.get('gateway')!;
    const gw = { baseUrl: stack.baseUrl, opsPort: main.opsPort, pid: main.child.pid };
    const forged = await phase('forged legacy CRC (throttle 30/min)', gw, 'legacy');
    expect(forged.flood.unexpected).toBe(0);
    expect(forged.paying.statuses.filter((s) => s !== 200)).toEqual([]);
    expect(forged.paying.statuses.length).toBeGreaterThan(SECONDS * PAYING_RATE * 0.9);
    // One address: 30 failures a window (two windows at most in the run), one lookup each. Until a
    // window's 30 have failed, the rest of the flood meets the bounded legacy lookups (503 with
    // Retry-After, no lookup); after that, 429. On a machine at load 12 the lookups were slow enough
    // that 503s were 14% of the flood, so the bound is a majority, not the 90% an idle machine shows.
    expect(forged.lookups).toBeLessThanOrEqual(60);
    expect(forged.flood.statuses['401'] ?? 0).toBeLessThanOrEqual(forged.lookups);
    expect(forged.flood.statuses['429']).toBeGreaterThan(forged.flood.requests * 0.5);
    expect(forged.authCpuShare).toBeLessThan(0.05);
  }, 180_000);
});

describe('X-Forwarded-For', () => {
  const get = (baseUrl: string, token: string, forwardedFor?: string) =>
    fetch(`${baseUrl}${FLOOD_ROUTE}`, {
      headers: {
        authorization: `Bearer ${token}`,
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
    });

  it('from a trusted proxy names the client: each address has its own allowance, and a 429 says when to retry', async () => {
    const base = stack.baseUrl;
    for (let i = 0; i < 30; i++)
      expect((await get(base, forgedLegacyToken(), '198.51.100.20')).status).toBe(401);
    const throttled = await get(base, forgedLegacyToken(), '198.51.100.20');
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(throttled.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    // A bad tag from it too: 429, no lookup.
    expect((await get(base, forgedTaggedToken(), '198.51.100.20')).status).toBe(429);
    // Another client behind the same proxy is not affected.
    expect((await get(base, forgedLegacyToken(), '198.51.100.21')).status).toBe(401);
  });

  it('from anywhere else is not believed: a client cannot escape the throttle by naming new addresses', async () => {
    const base = foreignProxy!.baseUrl;
    const answers: number[] = [];
    for (let i = 0; i < 8; i++)
      answers.push((await get(base, forgedLegacyToken(), `203.0.113.${i + 1}`)).status);
    expect(answers).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // The paying caller at that address is served all the same: its token is proven.
    expect((await get(base, payingToken, '203.0.113.99')).status).toBe(404);
  });
});
