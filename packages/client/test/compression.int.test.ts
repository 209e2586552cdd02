import { jsonDocument } from '@mdp/grpc';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  DEFINITIONS,
  echoImpl,
  type RunningServices,
  startGateway,
  startServices,
  type TestGateway,
} from '../../../services/gateway/test/harness.ts';
import { MdpClient } from '../src/index.ts';

// The typed client asks for compressed answers and reads them, against a real gateway over HTTP. Node's
// fetch asks for gzip and deflate only over plain http (brotli only over https), so a brotli answer here
// shows the client's own Accept-Encoding went out.

let services: RunningServices;
let gw: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  services = await startServices({
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getPriceHistory: async ({ symbol, days }: { symbol: string; days: number }) =>
          jsonDocument(
            Array.from({ length: days }, (_, i) => ({
              date: new Date(Date.UTC(2021, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
              close: 1_000 + i / 4,
              volume: 10_000 + i,
            })),
            { symbol, window: { days, interval: 'daily' } },
          ),
      },
    },
  });
  // Deadlines for a loaded machine: an answer here is a 200, not a 503 of a slow auth check.
  gw = await startGateway(services, {
    admissionDeadlineMs: 10_000,
    authDeadlineMs: 5_000,
    deadlineMs: 10_000,
  });
  await gw.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(gw.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await gw?.close();
  await services?.stop();
});

it('asks for brotli or gzip, gets brotli, and returns the same data as an uncompressed answer', async () => {
  const asked: (string | null)[] = [];
  const encodings: (string | null)[] = [];
  const client = new MdpClient({
    baseUrl,
    token: services.token,
    fetch: async (input, init) => {
      asked.push(new Headers(init?.headers).get('accept-encoding'));
      const res = await fetch(input, init);
      encodings.push(res.headers.get('content-encoding'));
      return res;
    },
  });
  const { data, meta } = await client.getPriceHistory({ symbol: 'TCS', days: 1_000 });
  expect(asked).toEqual(['br, gzip']);
  expect(encodings).toEqual(['br']);

  const plain = await fetch(`${baseUrl}/v1/stocks/TCS/price?days=1000`, {
    headers: { authorization: `Bearer ${services.token}`, 'accept-encoding': 'identity' },
  });
  expect(plain.headers.get('content-encoding')).toBeNull();
  const expected = (await plain.json()) as { data: unknown; meta: Record<string, unknown> };
  expect(data).toEqual(expected.data);
  expect(data).toHaveLength(1_000);
  expect({ ...meta, as_of: undefined }).toEqual({ ...expected.meta, as_of: undefined });
});

it('reads a small answer, which comes uncompressed', async () => {
  const encodings: (string | null)[] = [];
  const client = new MdpClient({
    baseUrl,
    token: services.token,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      encodings.push(res.headers.get('content-encoding'));
      return res;
    },
  });
  const { data } = await client.getPriceHistory({ symbol: 'TCS', days: 2 });
  expect(data).toHaveLength(2);
  expect(encodings).toEqual([null]);
});
