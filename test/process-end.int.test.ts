import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaseDir } from './ports.ts';
import { until } from './until.ts';

// A test process stopped the way vitest stops a worker whose hook timed out (SIGTERM) takes the servers
// it started with it (test/process-end.ts): here a private nats-server, and the port leased for it.

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A killed child of the stopped process may linger as a zombie until init reaps it.
  return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

describe('a test process stopped with SIGTERM', () => {
  it('stops the private nats-server it started and gives its port back, and still ends by the signal', async () => {
    const script = `import { startPrivateNats } from './test/private-infra.ts';
        const nats = await startPrivateNats();
        console.log(JSON.stringify({ pid: nats.pid(), port: nats.port }));
        setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_, sig) => resolve(sig)),
    );
    const started = await new Promise<{ pid: number; port: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += String(c);
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', () => reject(new Error('the test process ended before starting nats-server')));
    });
    expect(alive(started.pid)).toBe(true);
    expect(existsSync(join(leaseDir(), String(started.port)))).toBe(true);

    child.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    await until('the test process gone', () => !alive(started.pid), 5_000, 100);
    expect(existsSync(join(leaseDir(), String(started.port)))).toBe(false);
  });
});
