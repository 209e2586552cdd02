/**
 * scripts/install.sh (`make install`): `npm ci` from the cache first, run again when the registry drops
 * a response, never again for a failure that would repeat. Run for real against an `npm` on PATH that
 * fails as the registry did in CI (EIDLETIMEOUT mid-body) a given number of times.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './lib.ts';

const IDLE =
  'npm error code EIDLETIMEOUT\nnpm error Invalid response body while trying to fetch https://registry.npmjs.org/x';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs install.sh with an npm that prints `failure` and exits `code` on its first `failures` calls. */
function install(failures: number, failure = IDLE, code = 1, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mdp-install-'));
  dirs.push(dir);
  const npm = join(dir, 'npm');
  writeFileSync(
    npm,
    `#!/usr/bin/env bash
echo "$*" >> "${dir}/calls"
n=$(wc -l < "${dir}/calls")
if (( n <= ${failures} )); then cat "${dir}/failure" >&2; exit ${code}; fi
echo "added 1 package"
`,
  );
  chmodSync(npm, 0o755);
  writeFileSync(join(dir, 'failure'), `${failure}\n`);
  const run = spawnSync('bash', [join(ROOT, 'scripts/install.sh')], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, MDP_INSTALL_PAUSE_S: '0', ...env },
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n');
  } catch {}
  return { status: run.status, stderr: run.stderr, stdout: run.stdout, calls };
}

describe('make install (scripts/install.sh)', () => {
  it('installs the lockfile from the cache first: npm ci --prefer-offline, once when it succeeds', () => {
    const r = install(0);
    expect(r.status).toBe(0);
    expect(r.calls).toEqual(['ci --prefer-offline']);
    expect(r.stdout).toContain('added 1 package');
  });

  it('runs npm ci again when the registry dropped a response, and says so', () => {
    const r = install(2);
    expect(r.status).toBe(0);
    expect(r.calls).toHaveLength(3);
    expect(r.stderr).toContain('failed on the network (attempt 1 of 3)');
    expect(r.stderr).toContain('failed on the network (attempt 2 of 3)');
  });

  it('gives up after three network failures, naming the registry', () => {
    const r = install(99);
    expect(r.status).toBe(1);
    expect(r.calls).toHaveLength(3);
    expect(r.stderr).toMatch(/failed on the network 3 times; the registry .* is down/);
  });

  it('does not repeat a failure that is not the network, and keeps its exit code', () => {
    const r = install(
      99,
      'npm error code EUSAGE\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync',
      2,
    );
    expect(r.status).toBe(2);
    expect(r.calls).toHaveLength(1);
    expect(r.stderr).toContain('not on the network; not retried');
  });

  it.each([
    [
      'MDP_INSTALL_ATTEMPTS',
      'three',
      /MDP_INSTALL_ATTEMPTS must be a whole number from 1 to 99 \(got "three"\)/,
    ],
    ['MDP_INSTALL_ATTEMPTS', '0', /MDP_INSTALL_ATTEMPTS must be a whole number from 1 to 99 \(got "0"\)/],
    [
      'MDP_INSTALL_PAUSE_S',
      '-5',
      /MDP_INSTALL_PAUSE_S must be a whole number of seconds from 0 to 999 \(got "-5"\)/,
    ],
  ])('refuses %s=%s before running npm, naming the variable', (name, value, message) => {
    const r = install(0, IDLE, 1, { [name]: value });
    expect(r.status).toBe(2);
    expect(r.calls).toEqual([]);
    expect(r.stderr).toMatch(message);
  });
});
