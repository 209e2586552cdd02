import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeArgsFor } from './bundles.ts';

const exec = promisify(execFile);

/** Starts `server` with `env` over this process's; resolves with its exit code and output. */
async function start(server: string, env: Record<string, string>) {
  const err = await exec(process.execPath, [...nodeArgsFor(server)], {
    env: { ...process.env, PORT: '0', OPS_PORT: '0', GRPC_PORT: '0', ...env },
    timeout: 30_000,
  }).catch((e: { code: number; stdout: string; stderr: string }) => e);
  const e = err as { code: number; stdout: string; stderr: string };
  return { code: e.code, output: `${e.stdout}${e.stderr}` };
}

// The variables issue 49 and 50 added: a value out of range stops the process at start-up, naming it.
describe('lease and settlement variables', () => {
  it.each([
    ['services/quota-ledger/src/server.ts', 'LEASE_MS', '-1'],
    ['services/quota-ledger/src/server.ts', 'LEASE_MS', 'soon'],
    ['services/gateway/src/server.ts', 'SETTLE_ATTEMPT_TIMEOUT_MS', '5'],
    ['services/gateway/src/server.ts', 'SETTLE_LINGER_MS', '51'],
    ['services/gateway/src/server.ts', 'SETTLE_LINGER_MS', '-1'],
  ])('%s refuses %s=%s with exit code 78, naming it', async (server, name, value) => {
    const { code, output } = await start(server, { [name]: value });
    expect(code).toBe(78);
    expect(output).toContain(name);
  });
});
