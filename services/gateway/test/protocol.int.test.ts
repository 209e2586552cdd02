import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError, status } from '@mdp/grpc';
import { announceDataChanged, connectNats } from '@mdp/nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFINITIONS,
  echoImpl,
  NATS_URL,
  type RunningServices,
  silentLogger,
  startGateway,
  startServices,
  type TestGateway,
} from './harness.ts';
import { SPEC_ROUTES } from './spec-table.ts';

let services: RunningServices;
let gw: TestGateway;

/** Equities fails in the ways a data service can, chosen by the symbol. */
const equitiesImpl = {
  ...echoImpl(DEFINITIONS.equities),
  getStockQuote: async ({ symbol }: { symbol: string }) => {
    if (symbol === 'CRASH') throw new Error('relation "quotes" does not exist at 10.0.0.7:5432');
    if (symbol === 'FAIL') throw new RpcError(status.INTERNAL, 'disk read error on /var/lib/data');
    if (symbol === 'SLOW') await new Promise((r) => setTimeout(r, 1_500));
    if (symbol === 'CURSOR')
      throw RpcError.invalidArgument('end_date', 'end_date was not issued by the service');
    if (symbol === 'MISSING') throw RpcError.notFound('unknown symbol MISSING');
    return echoImpl(DEFINITIONS.equities).getStockQuote({ symbol }, {} as never);
  },
};

beforeAll(async () => {
  services = await startServices({ impls: { equities: equitiesImpl } });
  gw = await startGateway(services, { deadlineMs: 300 });
});
afterAll(async () => {
  await gw.close();
  await services.stop();
});

const inject = (method: string, url: string, headers: Record<string, string> = {}, payload?: string) =>
  gw.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });

function expectError(
  res: { statusCode: number; json(): any; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = res.json();
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  return body;
}

describe('paths and methods', () => {
  it('an unknown path is 404 route_not_found, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
      expectError(await inject(method, '/v1/nothing-here'), 404, 'route_not_found');
    }
    expectError(await inject('GET', '/'), 404, 'route_not_found');
    expectError(await inject('GET', '/v1/stocks/TCS/quote/extra'), 404, 'route_not_found');
  });

  it('every method but GET and OPTIONS on every route is 405 with Allow, HEAD included', async () => {
    for (const spec of SPEC_ROUTES) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) {
        const res = await inject(method, spec.example);
        expect(res.statusCode, `${method} ${spec.example}`).toBe(405);
        expect(res.headers.allow).toBe('GET, OPTIONS');
        if (method !== 'HEAD') expect(res.json().error.code).toBe('method_not_allowed');
      }
    }
  });

  it('a POST with a broken JSON body is still a 405, not a parser error', async () => {
    const res = await inject('POST', '/v1/stocks?q=x', { 'content-type': 'application/json' }, '{not json');
    expectError(res, 405, 'method_not_allowed');
  });

  it('OPTIONS answers a CORS preflight on every route', async () => {
    for (const spec of SPEC_ROUTES) {
      const res = await inject('OPTIONS', spec.example, {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
      expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
      expect(res.headers.allow).toBe('GET, OPTIONS');
    }
  });

  it('pages for people are same-origin: no CORS on the site, its 404 page, its preflight or the reference', async () => {
    const origin = { origin: 'https://app.example', 'access-control-request-method': 'GET' };
    for (const url of ['/account/sign-in', '/account/no-such-page', '/docs']) {
      const res = await inject('GET', url, origin);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(res.headers['access-control-expose-headers'], url).toBeUndefined();
    }
    const preflight = await inject('OPTIONS', '/account/sign-in', origin);
    expectError(preflight, 404, 'route_not_found');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('GET responses let browsers read the body and the rate-limit headers', async () => {
    const res = await inject('GET', '/v1/stocks/TCS/quote', { origin: 'https://app.example' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
  });

  it('answers without Origin (no browser across origins) carry no CORS headers; the shared-cacheable one varies by it', async () => {
    for (const url of ['/v1/stocks/TCS/quote', '/v1/nothing', '/v1/openapi.json']) {
      const res = await inject('GET', url);
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(res.headers['access-control-expose-headers'], url).toBeUndefined();
      const browser = await inject('GET', url, { origin: 'https://app.example' });
      expect(browser.headers['access-control-allow-origin'], url).toBe('*');
    }
    // A cache in between keeps the OpenAPI document (public, max-age=300): one copy without CORS headers
    // must not be handed to a browser.
    const doc = await inject('GET', '/v1/openapi.json', { 'accept-encoding': 'gzip' });
    expect(String(doc.headers.vary).toLowerCase().split(/,\s*/)).toEqual(
      expect.arrayContaining(['origin', 'accept-encoding']),
    );
  });
});

describe('malformed requests still get the error envelope', () => {
  it('bad percent-encoding in the path: a 400 naming the parameter of a route (SPEC 4.5 rule 6)', async () => {
    for (const [url, param] of [
      ['/v1/stocks/%E0%A4%A/quote', 'symbol'],
      ['/v1/stocks/%zz/price', 'symbol'],
      ['/v1/indices/Nifty%E0%A4/history', 'name'],
    ] as const) {
      const res = await inject('GET', url);
      expectError(res, 400, 'invalid_request');
      expect(res.json().error.details, url).toEqual({ param });
    }
    // No route of that shape: nothing to name.
    const unknown = await inject('GET', '/v1/nothing/%E0%A4%A');
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.json().error.details).toBeUndefined();
  });

  it('an oversized URL over a real socket', async () => {
    const address = await gw.app
      .listen({ host: '127.0.0.1', port: 0 })
      .then(() => gw.app.server.address() as AddressInfo);
    const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: address.port, path: `/v1/stocks?q=${'a'.repeat(40_000)}` },
        (r) => {
          let body = '';
          r.on('data', (c) => {
            body += c;
          });
          r.on('end', () =>
            resolve({ status: r.statusCode ?? 0, type: String(r.headers['content-type']), body }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(400);
    expect(res.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });
});

describe('failures of the owning service', () => {
  it('unknown symbol → 404 not_found with the service message', async () => {
    const body = expectError(await inject('GET', '/v1/stocks/MISSING/quote'), 404, 'not_found');
    expect(body.error.message).toContain('MISSING');
  });

  it('a parameter the service refuses → 400 naming it', async () => {
    const body = expectError(await inject('GET', '/v1/stocks/CURSOR/quote'), 400, 'invalid_request');
    expect(body.error.details.param).toBe('end_date');
  });

  it('a dataset failure → 500 tool_error without internal detail', async () => {
    for (const symbol of ['FAIL', 'CRASH']) {
      const res = await inject('GET', `/v1/stocks/${symbol}/quote`);
      expectError(res, 500, 'tool_error');
      expect(res.body).not.toMatch(/disk|relation|10\.0\.0\.7|var\/lib|stack/i);
    }
  });

  it('a service slower than the deadline → 502 upstream_unavailable', async () => {
    // The handler sleeps 1.5 s; only the 300 ms deadline can turn that into a 502.
    expectError(await inject('GET', '/v1/stocks/SLOW/quote'), 502, 'upstream_unavailable');
  });

  it('a service that is down → 502 for what is not cached; cached documents keep being served', async () => {
    const lone = await startServices();
    const gw2 = await startGateway(lone, { deadlineMs: 500 });
    try {
      expect((await gw2.get('/v1/stocks/TCS/quote')).statusCode).toBe(200);
      await lone.stopData();
      expect((await gw2.get('/v1/stocks/TCS/quote')).statusCode).toBe(200);
      const res = await gw2.get('/v1/stocks/INFY/quote');
      expectError(res, 502, 'upstream_unavailable');
      // The route owned by the other, still-stopped, service fails the same way.
      expectError(await gw2.get('/v1/options/NIFTY/chain'), 502, 'upstream_unavailable');
    } finally {
      await gw2.close();
      await lone.stop();
    }
  });
});

describe('the gateway keeps data documents', () => {
  it('asks the service once for the same question, again for another, and again after data.changed', async () => {
    let calls = 0;
    const counting = await startServices({
      impls: {
        equities: {
          ...echoImpl(DEFINITIONS.equities),
          getStockQuote: async (req: { symbol: string }) => {
            calls++;
            return echoImpl(DEFINITIONS.equities).getStockQuote(req, {} as never);
          },
        },
      },
    });
    const gw3 = await startGateway(counting);
    const nc = await connectNats({ url: NATS_URL, name: 'cache-test', logger: silentLogger });
    try {
      for (let i = 0; i < 5; i++) expect((await gw3.get('/v1/stocks/TCS/quote')).statusCode).toBe(200);
      expect(calls).toBe(1);
      await gw3.get('/v1/stocks/INFY/quote');
      expect(calls).toBe(2);
      // Concurrent misses share one call.
      await Promise.all(Array.from({ length: 10 }, () => gw3.get('/v1/stocks/WIPRO/quote')));
      expect(calls).toBe(3);
      announceDataChanged(nc, 'equities');
      await nc.flush();
      let after = calls;
      for (let i = 0; i < 50 && after === calls; i++) {
        await gw3.get('/v1/stocks/TCS/quote');
        if (calls === after) await new Promise((r) => setTimeout(r, 20));
        else after = -1;
      }
      expect(calls).toBe(4);
    } finally {
      await nc.drain();
      await gw3.close();
      await counting.stop();
    }
  });
});
