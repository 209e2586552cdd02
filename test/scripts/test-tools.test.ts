import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `make test` first runs scripts/test-tools.sh ensure: every program the tests run besides Postgres and
// NATS is there, or the run stops before any test, naming each missing one and how to get it. Binaries
// named by the variables are the user's own: used as they are, never installed over (so this test
// changes nothing on the machine).

const dir = mkdtempSync(join(tmpdir(), 'mdp-test-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fake(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho "${name} 9.9.9"\n`);
  chmodSync(path, 0o755);
  return path;
}

function ensure(env: Record<string, string>) {
  const r = spawnSync('bash', ['scripts/test-tools.sh', 'ensure'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('scripts/test-tools.sh ensure', () => {
  it('finds every program the tests run and prints its version', () => {
    const r = ensure({
      PROMETHEUS_BIN: fake('prometheus'),
      PROMTOOL_BIN: fake('promtool'),
      CHROMIUM_PATH: fake('chromium'),
      HELM_BIN: fake('helm'),
      MDP_PYTHON: fake('python'),
    });
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    for (const name of ['prometheus', 'promtool', 'chromium', 'helm', 'python'])
      expect(r.out).toContain(`${name}: ${name} 9.9.9 (${join(dir, name)})`);
    expect(r.out).toContain('every program the tests run is here');
  });

  it('stops with status 1 naming each missing program, what needs it and how to get it', () => {
    const missing = join(dir, 'nowhere');
    const r = ensure({
      PROMETHEUS_BIN: missing,
      PROMTOOL_BIN: missing,
      CHROMIUM_PATH: missing,
      HELM_BIN: missing,
      MDP_PYTHON: missing,
    });
    expect(r.status).toBe(1);
    expect(r.out).not.toContain('installing');
    const lines = r.err.split('\n').filter((l) => l.startsWith('test-tools:   - '));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain(
      `PROMETHEUS_BIN=${missing} is not an executable file (test/ops/dashboards.int.test.ts)`,
    );
    expect(lines[1]).toContain(`PROMTOOL_BIN=${missing}`);
    expect(lines[2]).toContain(
      `CHROMIUM_PATH=${missing} is not an executable file (test/platform/account-site-browser.int.test.ts)`,
    );
    expect(lines[3]).toContain(
      `MDP_PYTHON=${missing} is not a Python 3.9+ with pandas and venv (test/platform/python-client.int.test.ts)`,
    );
    expect(lines[4]).toContain('helm (test/ops/helm.int.test.ts)');
    expect(lines[4]).toContain('https://helm.sh/docs/intro/install/');
  });
});
