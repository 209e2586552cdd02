import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SERVICES, PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';

let stack: Stack;
let token: string;
const authorized = (url: string) =>
  fetch(`${stack.baseUrl}${url}`, { headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  stack = await startStack(PATIENT_DEADLINES);
  token = (await stack.admin('demo-token', '--plan', 'free')).split('\n').at(-1)!;
  // startStack waits up to 240 s for the five services, then as long for the gateway: beside a whole
  // test run on two cores a start takes minutes (`make test-stress`).
}, 540_000);
afterAll(async () => {
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

describe('the platform as six processes', () => {
  it('every service answers liveness, readiness and metrics on its ops port', async () => {
    for (const name of ALL_SERVICES) {
      const { opsPort } = stack.procs.get(name)!;
      expect((await fetch(`http://127.0.0.1:${opsPort}/healthz`)).status, name).toBe(200);
      expect((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status, name).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
      expect(metrics, name).toContain(`service="${name}"`);
    }
  });

  it('serves the OpenAPI document', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { info: { version: string } }).info.version).toBe('1.0.0');
  });

  it('a data route travels gateway → gRPC → the real service and back', async () => {
    // This stack's schemas are empty, so each owning service answers "not found" in its own words;
    // a service that did not answer would be a 502.
    const urls = ['/v1/stocks/TCS/quote', '/v1/stocks/TCS/documents?limit=5', '/v1/options/NIFTY/chain'];
    for (const url of urls) {
      const res = await authorized(url);
      const text = await res.text();
      expect(res.status, `${url}: ${text}`).toBe(404);
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });

  it('each service logs structured JSON lines with its name', () => {
    for (const name of ALL_SERVICES) {
      const line = stack.procs
        .get(name)!
        .output.join('')
        .split('\n')
        .find((l) => l.startsWith('{'));
      expect(JSON.parse(line!).service, name).toBe(name);
    }
  });

  it('a stopped data service gives 502 for its routes only, and recovers when it returns', async () => {
    expect(await stack.stop('options-analytics')).toBe(0);
    const down = await authorized('/v1/options/NIFTY/chain');
    expect(down.status).toBe(502);
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('upstream_unavailable');
    expect((await authorized('/v1/stocks/TCS/quote')).status).toBe(404);
    await stack.start('options-analytics');
    let status = 0;
    for (let i = 0; i < 50 && status !== 404; i++) {
      status = (await authorized('/v1/options/NIFTY/chain')).status;
      if (status !== 404) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(404);
  }, 60_000);

  it('SIGTERM shuts a service down cleanly with exit code 0', async () => {
    const { opsPort } = stack.procs.get('filings-reader')!;
    const exit = stack.stop('filings-reader');
    expect(await exit).toBe(0);
    await expect(fetch(`http://127.0.0.1:${opsPort}/healthz`)).rejects.toThrow();
    expect(stack.procs.get('filings-reader')!.output.join('')).toContain('shutting down');
  });
});
