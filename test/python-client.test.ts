import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The Python client's own unit tests (clients/python/tests/unit: parameter bounds and numpy/pandas-like
// values, SPEC 7 retries and the waits they announce against a scripted loopback server, kept-alive
// connections counted where they arrive, paging by days, exceptions by kind, the pacer, the command line,
// Python 3.9 syntax and the standard library only), run by python3 -m unittest so that `make test` runs
// them: a failure, an error or a skipped test fails here. Its integration tests run against the platform
// in test/platform/python-client.int.test.ts.

const PYTHON = process.env.MDP_PYTHON || 'python3';

describe('the Python client', () => {
  it('passes its unit tests, none skipped', () => {
    const run = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-s', 'tests/unit', '-t', '.', '-v'], {
      cwd: 'clients/python',
      env: { ...process.env, PYTHONPATH: 'src', PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.error)
      throw new Error(`${PYTHON} did not run (${run.error.message}): the client's tests need Python 3.9+`);
    expect(run.status, run.stderr).toBe(0);
    const ran = Number(/\nRan (\d+) tests? in /.exec(run.stderr)?.[1] ?? 0);
    expect(ran).toBeGreaterThanOrEqual(70);
    expect(run.stderr).toMatch(/\nOK\n?$/);
    expect(run.stderr).not.toMatch(/skipped|expected failures/);
  });
});
