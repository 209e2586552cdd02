import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFormatter } from '../scripts/lib/log-format.ts';
import { probe, Supervisor } from '../scripts/lib/supervisor.ts';
import { freePort } from './ports.ts';
import { until } from './until.ts';

// `make run`'s supervisor on small child programs: a killed process is restarted and ready again, a
// crash loop ends the run with status 1, a stop stops everyone.

const dir = mkdtempSync(join(tmpdir(), 'mdp-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER = join(dir, 'server.mjs');
writeFileSync(
  SERVER,
  `import { createServer } from 'node:http';
   createServer((req, res) => res.end('ok')).listen(Number(process.env.OPS_PORT), '127.0.0.1');
   process.on('SIGTERM', () => process.exit(0));`,
);
const CRASH = join(dir, 'crash.mjs');
writeFileSync(CRASH, 'process.exit(3);');

const policy = {
  initialDelayMs: 50,
  maxDelayMs: 200,
  stableAfterMs: 30_000,
  crashLoop: { exits: 3, withinMs: 10_000 },
};

function supervisor() {
  const log: string[] = [];
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => {
    exited = resolve;
  });
  const sup = new Supervisor({
    say: (t) => log.push(t),
    warn: (t) => log.push(t),
    exit: (code) => exited(code),
    policy,
    stopGraceMs: 5_000,
    readyTimeoutMs: 10_000,
  });
  return { sup, log, exit };
}

const spec = (name: string, file: string, opsPort: number) => ({
  name,
  args: [file],
  env: { ...process.env, OPS_PORT: String(opsPort) },
  cwd: dir,
  opsPort,
  formatter: createFormatter(name, 8, 0, false),
});

describe('the make run supervisor', () => {
  it('restarts a process killed with SIGKILL, logs it, and sees it ready again; a stop stops all', async () => {
    const { sup, log, exit } = supervisor();
    const port = await freePort();
    sup.start([spec('svc', SERVER, port)]);
    await until('the process ready', async () => (await probe(port)) === 'ready');
    const first = sup.running[0]!.child;
    first.kill('SIGKILL');
    await until('the log to say it is ready again', () => log.includes('svc is ready again'));
    expect(log).toContain('svc was killed by SIGKILL unexpectedly; restart 1 in 50 ms');
    expect(sup.running[0]!.child.pid).not.toBe(first.pid);
    expect(await probe(port)).toBe('ready');
    void sup.stop(0);
    expect(await exit).toBe(0);
    expect(sup.running[0]!.alive).toBe(false);
  });

  it('ends the run with status 1 when a process crash-loops, stopping the others', async () => {
    const { sup, log, exit } = supervisor();
    const port = await freePort();
    sup.start([spec('steady', SERVER, port), spec('crashy', CRASH, await freePort())]);
    expect(await exit).toBe(1);
    expect(log.filter((l) => l.startsWith('crashy exited with code 3 unexpectedly')).length).toBe(2);
    expect(log).toContain('crashy exited with code 3: crash loop (3 exits within 10 s); stopping the others');
    expect(sup.running.every((r) => !r.alive)).toBe(true);
  });
});
