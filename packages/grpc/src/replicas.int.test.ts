import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { type common, options } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { pauseProcess } from '../../../test/process-pause.ts';
import { createClient } from './client.ts';
import { jsonDocument } from './documents.ts';
import { replicaMetrics } from './replicas.ts';
import { GrpcServer } from './server.ts';

// Real servers in processes of their own, stopped with SIGSTOP: the kernel keeps their connections
// open while they answer nothing, so only deadlines show the fault (as with a wedged pod).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const children = new Set<ChildProcess>();
const cleanup: (() => Promise<void> | void)[] = [];
const endChildren = () => {
  for (const c of children) {
    c.kill('SIGCONT');
    c.kill('SIGKILL');
  }
  children.clear();
};
process.once('exit', endChildren);
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
  endChildren();
});

async function replica(name: string): Promise<{ address: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/grpc/test/replica-server.ts', name], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const address = `127.0.0.1:${Number(String(chunk).trim())}`;
  // A process just started answers its first calls slowly (cold code): warm it before it is timed.
  const warm = client(address, false, 10_000);
  for (let i = 0; i < 20; i++) await warm.call.getStockOptions({ symbol: 'X' });
  warm.close();
  return { address, child };
}

function client(target: string, reads: boolean, deadlineMs: number) {
  const registry = createRegistry('client');
  const c = createClient(options.OptionsAnalyticsServiceService, target, {
    target: 'options-analytics',
    metrics: grpcClientMetrics(registry),
    replicaMetrics: replicaMetrics(registry),
    defaultDeadlineMs: deadlineMs,
    reads,
  });
  cleanup.unshift(() => c.close());
  const metric = async (name: string, address: string) => {
    const m = (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.address === address);
    return m?.value;
  };
  return { ...c, metric };
}

interface Call {
  start: number;
  end: number;
  server?: string;
  code?: number;
}

async function timed(fn: () => Promise<{ data_json: Buffer }>): Promise<Call> {
  const start = performance.now();
  try {
    const doc = await fn();
    return { start, end: performance.now(), server: JSON.parse(String(doc.data_json)).server };
  } catch (err) {
    return { start, end: performance.now(), code: (err as { code: number }).code };
  }
}

/** `workers` callers, each calling again as soon as its call ends, for `ms`. */
async function load(workers: number, ms: number, fn: () => Promise<{ data_json: Buffer }>): Promise<Call[]> {
  const calls: Call[] = [];
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        calls.push(await timed(fn));
        // A turn of the event loop between calls, as between requests (a refused call never leaves it).
        await new Promise((r) => setImmediate(r));
      }
    }),
  );
  return calls;
}

async function waitUntil(check: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t0 = performance.now();
  while (!(await check())) {
    if (performance.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await sleep(10);
  }
  return performance.now() - t0;
}

describe('per-address outlier ejection', () => {
  it('ejects a stopped replica after consecutive deadline misses: every read still succeeds, none waiting on it once it is out, and it is back after SIGCONT', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const c = client(`ipv4:${a.address},${b.address}`, true, 2_000);
    const ask = () => c.call.getStockOptions({ symbol: 'X' });
    const warm = await load(4, 300, ask);
    expect(new Set(warm.map((x) => x.server))).toEqual(new Set(['a', 'b']));

    await pauseProcess(a.child.pid!);
    const calls = await load(8, 3_000, ask);
    expect(calls.filter((x) => x.code !== undefined)).toEqual([]);
    // The first attempt on the stopped replica has half the 2 s budget; its miss is the first sign.
    const firstMiss = Math.min(...calls.filter((x) => x.end - x.start >= 900).map((x) => x.end));
    expect(firstMiss).toBeLessThan(Number.POSITIVE_INFINITY);
    const after = calls.filter((x) => x.start > firstMiss);
    expect(after.length).toBeGreaterThan(50);
    expect(after.every((x) => x.server === 'b')).toBe(true);
    expect(c.addresses()).toEqual([
      { address: a.address, ejected: true },
      { address: b.address, ejected: false },
    ]);
    expect(await c.metric('grpc_client_address_ejections_total', a.address)).toBe(1);
    expect(await c.metric('grpc_client_address_ejected', a.address)).toBe(1);
    // While it is out, no call is even sent to it (a retry on b would hide one that was); the chaos
    // test prints how long the answers take.
    const sentToA = await c.metric('grpc_client_address_calls_total', a.address);
    const more = await load(4, 300, ask);
    expect(more.every((x) => x.server === 'b')).toBe(true);
    expect(await c.metric('grpc_client_address_calls_total', a.address)).toBe(sentToA);
    expect(await c.metric('grpc_client_address_calls_total', b.address)).toBeGreaterThan(more.length);

    a.child.kill('SIGCONT');
    // Probes come at most 1.5 s apart; a busy machine may stretch that, never into many seconds.
    await waitUntil(() => !c.addresses()[0]!.ejected, 10_000);
    const again = await load(4, 200, ask);
    expect(again.some((x) => x.server === 'a')).toBe(true);
    expect(await c.metric('grpc_client_address_ejected', a.address)).toBe(0);
  }, 60_000);

  it('with its only replica ejected, a call fails UNAVAILABLE without waiting out its deadline; SIGCONT brings it back', async () => {
    const a = await replica('a');
    const c = client(a.address, true, 400);
    const ask = () => c.call.getStockOptions({ symbol: 'X' });
    expect((await timed(ask)).server).toBe('a');
    await pauseProcess(a.child.pid!);
    // Three callers miss their deadline together: that ejects the address (alone, it is not ejected
    // before three misses of its own).
    const misses = await Promise.all([1, 2, 3].map(() => timed(ask)));
    expect(misses[0]!.code).toBe(4);
    expect(misses.every((x) => x.code === 4 || x.code === 14)).toBe(true);
    expect(c.addresses()[0]!.ejected).toBe(true);
    const refused = await load(4, 500, ask);
    expect(new Set(refused.map((x) => x.code))).toEqual(new Set([14]));
    // Refused without waiting out the 400 ms deadline: nothing is sent to the ejected address.
    expect(Math.max(...refused.map((x) => x.end - x.start))).toBeLessThan(400);

    a.child.kill('SIGCONT');
    await waitUntil(async () => (await timed(ask)).server === 'a', 10_000);
  }, 60_000);

  it('probes again after a second ejection: the probe ticks stop once it is back and start with the next one', async () => {
    const a = await replica('a');
    const c = client(a.address, true, 400);
    const ask = () => c.call.getStockOptions({ symbol: 'X' });
    for (const round of [1, 2]) {
      await pauseProcess(a.child.pid!);
      await Promise.all([1, 2, 3].map(() => timed(ask)));
      expect(c.addresses()[0]!.ejected, `ejected in round ${round}`).toBe(true);
      expect(await c.metric('grpc_client_address_ejections_total', a.address)).toBe(round);
      a.child.kill('SIGCONT');
      // Only a probe brings an ejected address back: without the ticks it would stay out.
      await waitUntil(() => !c.addresses()[0]!.ejected, 10_000);
      expect((await timed(ask)).server).toBe('a');
    }
  }, 60_000);

  it('never ejects for answers the service chose (NOT_FOUND)', async () => {
    const a = await replica('a');
    const c = client(a.address, true, 500);
    for (let i = 0; i < 10; i++) {
      expect((await timed(() => c.call.getStockOptions({ symbol: 'MISSING' }))).code).toBe(5);
    }
    expect(c.addresses()[0]!.ejected).toBe(false);
    expect((await timed(() => c.call.getStockOptions({ symbol: 'X' }))).server).toBe('a');
  });

  it('skips an address that refuses connections without ejecting it; a call refused before any connection goes to another, even a write', async () => {
    const a = await replica('a');
    const refused = `127.0.0.1:${await closedPort()}`;
    // A patient deadline: at load 20 a call to the one live replica has outwaited 500 ms, which is not
    // what this test is about.
    const c = client(`ipv4:${refused},${a.address}`, false, 5_000);
    const calls = await load(2, 300, () => c.call.getStockOptions({ symbol: 'X' }));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((x) => x.server !== 'a').map((x) => x.code)).toEqual([]);
    expect(c.addresses().every((x) => !x.ejected)).toBe(true);
  });
});

describe('an address that refuses connections', () => {
  it('a service started after the client is waited for within the deadline, not refused for the reconnect backoff', async () => {
    const port = await closedPort();
    const c = client(`127.0.0.1:${port}`, true, 3_000);
    const ask = () => c.call.getStockOptions({ symbol: 'X' });
    // Refused while nothing listens: the channel backs off between attempts (0.1 s, growing to 0.25 s).
    expect((await timed(ask)).code).toBe(14);
    await sleep(1_500);
    await serve(port, async () => jsonDocument({ server: 'late' }));
    const late = await timed(ask);
    expect(late.code).toBeUndefined();
    expect(late.server).toBe('late');
    expect(c.addresses()).toEqual([{ address: `127.0.0.1:${port}`, ejected: false }]);
  });

  it('one that stays down is ejected after three missed deadlines, and its calls then fail at once', async () => {
    // Far above what a refusal takes on a starved machine, so a call that waited out its deadline
    // cannot pass for one refused at once.
    const deadlineMs = 2_000;
    const port = await closedPort();
    const c = client(`127.0.0.1:${port}`, true, deadlineMs);
    const ask = () => c.call.getStockOptions({ symbol: 'X' });
    expect((await timed(ask)).code).toBe(14);
    const waited = await Promise.all([1, 2, 3].map(() => timed(ask)));
    expect(waited.map((x) => x.code)).toEqual([4, 4, 4]);
    expect(c.addresses()[0]!.ejected).toBe(true);
    const refused = await load(2, 200, ask);
    expect(new Set(refused.map((x) => x.code))).toEqual(new Set([14]));
    expect(Math.max(...refused.map((x) => x.end - x.start))).toBeLessThan(deadlineMs / 2);
  });
});

describe('one retry on another replica', () => {
  async function hanging() {
    let calls = 0;
    const address = await serve(0, (signal) => {
      calls++;
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('gone'))),
      );
    });
    return { address, calls: () => calls };
  }

  it('sends a read at most twice, within its one budget, and a call of a service with writes once', async () => {
    const [a, b] = [await hanging(), await hanging()];
    const reads = client(`ipv4:${a.address},${b.address}`, true, 400);
    const r = await timed(() => reads.call.getStockOptions({ symbol: 'X' }));
    expect(r.code).toBe(4);
    expect(r.end - r.start).toBeGreaterThanOrEqual(390);
    // One budget: it ends at its deadline, not after a second full one (a busy machine adds some).
    expect(r.end - r.start).toBeLessThan(800);
    expect(a.calls() + b.calls()).toBe(2);
    expect([a.calls(), b.calls()]).toEqual([1, 1]);

    const writes = client(`ipv4:${a.address},${b.address}`, false, 300);
    expect((await timed(() => writes.call.getStockOptions({ symbol: 'X' }))).code).toBe(4);
    expect(a.calls() + b.calls()).toBe(3);
  });
});

/** An in-process options-analytics server on `port` (0: any) whose getStockOptions is `answer`. */
async function serve(
  port: number,
  answer: (signal: AbortSignal) => Promise<common.Document>,
): Promise<string> {
  const s = new GrpcServer({
    logger: createLogger('t', 'silent'),
    tracer: trace.getTracer('t'),
    registry: createRegistry('serve'),
  }).add(options.OptionsAnalyticsServiceService, {
    getStockOptions: (_req, ctx) => answer(ctx.signal),
    getOptionChain: async () => jsonDocument({}),
    getIvHistory: async () => jsonDocument({}),
  });
  const bound = await s.listen('127.0.0.1', port);
  cleanup.push(() => s.shutdown(100));
  return `127.0.0.1:${bound}`;
}

async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}
