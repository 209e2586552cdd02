import { options } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import { jsonDocument } from './documents.ts';
import { GrpcServer } from './server.ts';

// Real servers and channels on loopback: how calls spread over pods, and how connections are recycled.
const silent = createLogger('t', 'silent');
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function server(name: string, maxConnectionAgeMs?: number) {
  const peers = new Set<string>();
  let calls = 0;
  const s = new GrpcServer({
    logger: silent,
    tracer: trace.getTracer('t'),
    registry: createRegistry(name),
    maxConnectionAgeMs,
  }).add(options.OptionsAnalyticsServiceService, {
    getStockOptions: async (_req, ctx) => {
      calls++;
      peers.add(ctx.peer);
      return jsonDocument({ server: name });
    },
    getOptionChain: async () => jsonDocument({}),
    getIvHistory: async () => jsonDocument({}),
  });
  const port = await s.listen('127.0.0.1', 0);
  cleanup.push(() => s.shutdown(100));
  return { port, peers, calls: () => calls };
}

function client(target: string) {
  const c = createClient(options.OptionsAnalyticsServiceService, target, {
    target: 'options-analytics',
    metrics: grpcClientMetrics(createRegistry('client')),
    defaultDeadlineMs: 2_000,
  });
  cleanup.unshift(() => c.close());
  return c;
}

describe('gRPC channels between pods', () => {
  it('spread calls round robin over every address the target resolves to', async () => {
    const [a, b] = [await server('a'), await server('b')];
    // What a headless Service's DNS name gives: several pod addresses behind one target.
    const c = client(`ipv4:127.0.0.1:${a.port},127.0.0.1:${b.port}`);
    for (let i = 0; i < 40; i++) await c.call.getStockOptions({ symbol: 'X' });
    expect(a.calls() + b.calls()).toBe(40);
    expect(a.calls()).toBeGreaterThanOrEqual(15);
    expect(b.calls()).toBeGreaterThanOrEqual(15);
  });

  it('recycle connections past their maximum age without failing a call, so clients re-resolve', async () => {
    const s = await server('aged', 300);
    const c = client(`127.0.0.1:${s.port}`);
    for (let i = 0; i < 30; i++) {
      await c.call.getStockOptions({ symbol: 'X' });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(s.calls()).toBe(30);
    // Each new connection comes from a new client port.
    expect(s.peers.size).toBeGreaterThan(1);
  });

  it('keep one connection when no maximum age is set (the ledger admission stream relies on it)', async () => {
    const s = await server('steady');
    const c = client(`127.0.0.1:${s.port}`);
    for (let i = 0; i < 10; i++) {
      await c.call.getStockOptions({ symbol: 'X' });
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(s.peers.size).toBe(1);
  });
});
