import { Writable } from 'node:stream';
import { createLogger } from '@mdp/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  DEFINITIONS,
  echoImpl,
  type RunningServices,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';

// The platform's id of a request (Request-Id) and the client's own (X-Request-Id): which is which, on
// the wire, to browsers and in the logs. What they mean for charging: test/client-ids.int.test.ts.

const lines: Record<string, unknown>[] = [];
const logger = createLogger(
  'gateway',
  'debug',
  new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  }),
);

let services: RunningServices;
let gw: TestGateway;

beforeAll(async () => {
  services = await startServices({
    impls: {
      equities: {
        ...echoImpl(DEFINITIONS.equities),
        getStockQuote: async ({ symbol }: { symbol: string }) => {
          if (symbol === 'CRASH') throw new Error('disk on fire');
          return echoImpl(DEFINITIONS.equities).getStockQuote({ symbol }, {} as never);
        },
      },
    },
  });
  gw = await startGateway(services, { logger });
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

const get = (url: string, headers: Record<string, string> = {}) => gw.inject({ method: 'GET', url, headers });
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('gives every request a new id of its own in Request-Id, and echoes a well-formed X-Request-Id', async () => {
  const first = await get('/v1/stocks/TCS/quote', { 'x-request-id': 'client-req-12345' });
  const again = await get('/v1/stocks/TCS/quote', { 'x-request-id': 'client-req-12345' });
  for (const res of [first, again]) {
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe('client-req-12345');
    expect(res.headers['request-id']).toMatch(UUID_V7);
  }
  // The same client id twice is two requests, each with its own id.
  expect(again.headers['request-id']).not.toBe(first.headers['request-id']);
  // A client id that is not well-formed is not echoed: X-Request-Id is then the platform's id.
  for (const bad of ['bad id with spaces', 'short', 'x'.repeat(65), 'semi;colon-id']) {
    const made = await get('/v1/stocks/TCS/quote', { 'x-request-id': bad });
    expect(made.headers['request-id']).toMatch(UUID_V7);
    expect(made.headers['x-request-id']).toBe(made.headers['request-id']);
  }
  const error = await get('/v1/nothing', { 'x-request-id': 'client-req-67890' });
  expect(error.headers['request-id']).toMatch(UUID_V7);
  expect(error.headers['x-request-id']).toBe('client-req-67890');
});

it('lets a browser read both ids across origins', async () => {
  const res = await get('/v1/stocks/TCS/quote', { origin: 'https://example.com' });
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
  expect(exposed).toEqual(expect.arrayContaining(['request-id', 'x-request-id']));
});

it('logs the client’s id beside the platform’s, so either finds the request', async () => {
  const res = await get('/v1/stocks/CRASH/quote', { 'x-request-id': 'support-ticket-42' });
  expect(res.statusCode).toBe(500);
  const requestId = res.headers['request-id'];
  const failed = lines.find((l) => l.msg === 'request failed' && l.reqId === requestId);
  expect(failed).toMatchObject({ correlationId: 'support-ticket-42' });
  const summary = lines.find((l) => l.msg === 'request' && l.reqId === requestId);
  expect(summary).toMatchObject({ correlationId: 'support-ticket-42', status: 500 });
  // A request without a client id logs none.
  const plain = await get('/v1/stocks/TCS/quote');
  const line = lines.find((l) => l.msg === 'request' && l.reqId === plain.headers['request-id']);
  expect(line).toBeDefined();
  expect(line).not.toHaveProperty('correlationId');
});
