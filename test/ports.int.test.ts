import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ephemeralLow, freePort, leaseRange, release } from './ports.ts';

// Test servers' ports (test/ports.ts): leased below the kernel's ephemeral range, never to two
// processes at once, given back when the holder exits, taken over when it died without doing so.

const dir = mkdtempSync(join(tmpdir(), 'mdp-port-leases-test-'));
process.env.MDP_PORT_LEASE_DIR = dir;
afterAll(() => {
  delete process.env.MDP_PORT_LEASE_DIR;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A process leasing `count` ports while the others lease theirs; it holds them until its stdin closes,
 * so no process gives its ports back before every other one has leased.
 */
function leaser(count: number): { ports: Promise<number[]>; exited: Promise<void>; done(): void } {
  const script = `import { freePort } from './test/ports.ts';
    const ports = [];
    for (let i = 0; i < ${count}; i++) ports.push(await freePort());
    console.log(JSON.stringify(ports));
    process.stdin.resume().on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, MDP_PORT_LEASE_DIR: dir },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  const ports = new Promise<number[]>((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += String(c);
      if (out.endsWith('\n')) resolve(JSON.parse(out) as number[]);
    });
    child.once('exit', (code) => reject(new Error(`the leasing process exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { ports, exited, done: () => child.stdin.end() };
}

describe('leased test ports', () => {
  it('four processes leasing 100 ports each at once get 400 different ports, all below the ephemeral range', async () => {
    const leasers = [1, 2, 3, 4].map(() => leaser(100));
    const leased = (await Promise.all(leasers.map((l) => l.ports))).flat();
    for (const l of leasers) l.done();
    await Promise.all(leasers.map((l) => l.exited));
    expect(new Set(leased).size).toBe(400);
    const { from, to } = leaseRange();
    for (const port of leased) {
      expect(port).toBeGreaterThanOrEqual(from);
      expect(port).toBeLessThanOrEqual(to);
    }
    expect(to).toBeLessThan(ephemeralLow());
    // Each process gave its leases back when it exited.
    expect(readdirSync(dir).filter((f) => leased.includes(Number(f)))).toEqual([]);
  });

  it('a lease is held by this process until released, and its port is bindable', async () => {
    const port = await freePort();
    expect(readFileSync(join(dir, String(port)), 'utf8').trim()).toBe(String(process.pid));
    release(port);
    expect(existsSync(join(dir, String(port)))).toBe(false);
  });

  it("takes over the lease of a holder that died (SIGKILL) and never a live holder's", async () => {
    const { from, to } = leaseRange();
    const write = (pid: number) => {
      for (let port = from; port <= to; port++) writeFileSync(join(dir, String(port)), `${pid}\n`);
    };
    write(process.ppid); // alive: every port is taken
    await expect(freePort()).rejects.toThrow(/no port could be leased/);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    write(dead);
    const port = await freePort();
    expect(readFileSync(join(dir, String(port)), 'utf8').trim()).toBe(String(process.pid));
    const others = readdirSync(dir).filter((f) => f !== String(port));
    // Every other lease is still the dead holder's. A few may be gone: this test leases from a directory
    // of its own, so a port another test process on the machine has bound (its lease is in the shared
    // directory) is taken over here, found not bindable, and given up (seen beside the stress loop).
    expect(others.length).toBeLessThanOrEqual(to - from);
    expect(others.length).toBeGreaterThan(to - from - 10);
    expect(others.every((f) => readFileSync(join(dir, f), 'utf8').trim() === String(dead))).toBe(true);
    release(port);
  });
});
