// `make bench` runs test/bench/gateway-path.ts, whose gateway stands in for auth, the ledger and
// metering in its own process (gateway-path-server.ts). A change of what a route asks of those (usage
// reads asking metering whether they can be read, say) made every usage run answer 500 and stopped
// `make bench` there, with nothing in the suite noticing: this asks each of the bench's scenarios once.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/services.ts';
import { freePort, release } from '../ports.ts';
import { atProcessEnd } from '../process-end.ts';
import { SCENARIOS } from './gateway-path-scenarios.ts';

let child: ChildProcess;
let port: number;

beforeAll(async () => {
  port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/bench/gateway-path-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  atProcessEnd(() => child.kill('SIGKILL'));
  const until = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return;
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`the bench's gateway did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }
  release(port);
});

describe("the gateway-path bench's gateway (make bench)", () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const res = await fetch(`http://127.0.0.1:${port}${scenario.path}`, { headers: scenario.headers });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status, body.toString('utf8').slice(0, 300)).toBe(scenario.status);
    if (scenario.path === '/v1/me/usage') {
      const doc = JSON.parse(body.toString('utf8')) as { data: { plan: string; day: { used: number } } };
      expect(doc.data.plan).toBe('load-test');
      expect(doc.data.day.used).toBeGreaterThan(0);
    }
  });
});
