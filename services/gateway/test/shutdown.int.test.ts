import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINITIONS, echoImpl, type RunningServices, startGateway, startServices } from './harness.ts';

let services: RunningServices;
let released: () => void;
const gate = new Promise<void>((resolve) => {
  released = resolve;
});
/** Resolves once a held call has reached the data service: only then is it in flight (no sleep guesses it). */
let reached: () => void;
const arrived = new Promise<void>((resolve) => {
  reached = resolve;
});

beforeAll(async () => {
  services = await startServices({
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getStockQuote: async (req: { symbol: string }) => {
          reached();
          await gate;
          return echoImpl(DEFINITIONS.equities).getStockQuote(req, {} as never);
        },
      } as never,
    },
  });
});
afterAll(async () => {
  await services.stop();
});

describe('graceful shutdown', () => {
  it('the gateway finishes in-flight requests before closing', async () => {
    const gw = await startGateway(services, { deadlineMs: 5_000 });
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = gw.app.server.address() as AddressInfo;
    const inFlight = fetch(`http://127.0.0.1:${port}/v1/stocks/TCS/quote`, {
      headers: { authorization: `Bearer ${services.token}` },
    });
    await arrived;
    const closed = gw.close();
    released();
    const res = await inFlight;
    await closed;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { request: { symbol: string } } }).data.request.symbol).toBe('TCS');
  });

  it('a data service finishes in-flight calls while shutting down', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    let inService!: () => void;
    const called = new Promise<void>((r) => {
      inService = r;
    });
    const slow = await startServices({
      impls: {
        equities: {
          ...echoImpl(DEFINITIONS.equities),
          getStockQuote: async (req: { symbol: string }) => {
            inService();
            await hold;
            return echoImpl(DEFINITIONS.equities).getStockQuote(req, {} as never);
          },
        } as never,
      },
    });
    const gw = await startGateway(slow, { deadlineMs: 5_000 });
    try {
      const inFlight = gw.get('/v1/stocks/INFY/quote');
      await called;
      const stopping = slow.stop();
      release();
      expect((await inFlight).statusCode).toBe(200);
      await stopping;
    } finally {
      await gw.close();
    }
  });
});
