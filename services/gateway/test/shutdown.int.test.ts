import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINITIONS, echoImpl, type RunningServices, startGateway, startServices } from './harness.ts';

let services: RunningServices;
let released: () => void;
const gate = new Promise<void>((resolve) => {
  released = resolve;
});

beforeAll(async () => {
  services = await startServices({
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getStockQuote: async (req: { symbol: string }) => {
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
    await new Promise((r) => setTimeout(r, 200));
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
    const slow = await startServices({
      impls: {
        equities: {
          ...echoImpl(DEFINITIONS.equities),
          getStockQuote: async (req: { symbol: string }) => {
            await hold;
            return echoImpl(DEFINITIONS.equities).getStockQuote(req, {} as never);
          },
        } as never,
      },
    });
    const gw = await startGateway(slow, { deadlineMs: 5_000 });
    try {
      const inFlight = gw.get('/v1/stocks/INFY/quote');
      await new Promise((r) => setTimeout(r, 100));
      const stopping = slow.stop();
      release();
      expect((await inFlight).statusCode).toBe(200);
      await stopping;
    } finally {
      await gw.close();
    }
  });
});
