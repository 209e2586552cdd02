// `make bench` runs test/bench/gateway-path.ts, whose gateway stands in for auth, the ledger and
// metering in its own process (gateway-path-server.ts). A change of what a route asks of those (usage
// reads asking metering whether they can be read, say) made every usage run answer 500 and stopped
// `make bench` there, with nothing in the suite noticing: this asks each of the bench's scenarios once.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, release } from '../ports.ts';
import { SCENARIOS, start, stop } from './gateway-path-setup.ts';

let child: ChildProcess | undefined;
let port: number;

beforeAll(async () => {
  port = await freePort();
  child = await start(['--import', 'tsx', 'test/bench/gateway-path-server.ts'], port);
}, 90_000);

afterAll(async () => {
  if (child) await stop(child);
  release(port);
});

describe("the gateway-path bench's gateway (make bench)", () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const res = await fetch(`http://127.0.0.1:${port}${scenario.path}`, { headers: scenario.headers });
    const body = await res.text();
    expect(res.status, body.slice(0, 300)).toBe(scenario.status);
    if (scenario.path === '/v1/me/usage') {
      const doc = JSON.parse(body) as { data: { plan: string; day: { used: number } } };
      expect(doc.data.plan).toBe('load-test');
      expect(doc.data.day.used).toBeGreaterThan(0);
    }
  });
});
