import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';

const exec = promisify(execFile);

/** Starts the gateway with `env`; resolves to its exit code and output (it must exit at start-up). */
async function start(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const err = (await exec(process.execPath, [...nodeArgsFor('services/gateway/src/server.ts')], {
    env: { ...process.env, PORT: '0', OPS_PORT: '0', ...env },
    timeout: 30_000,
  }).catch((e: unknown) => e)) as { code: number; stdout: string; stderr: string };
  return { code: err.code, output: `${err.stdout}${err.stderr}` };
}

describe("the gateway's token settings (issue 41)", () => {
  it('refuses a malformed TOKEN_TAG_KEYS with exit code 78, naming it and never echoing a key', async () => {
    for (const keys of [
      'a1:too-short-a-key',
      'abc:0123456789012345678901234567890123',
      'a1:has a space in it 0123456789012345',
    ]) {
      const { code, output } = await start({ TOKEN_TAG_KEYS: keys });
      expect(code, keys).toBe(78);
      expect(output).toContain('TOKEN_TAG_KEYS');
      expect(output).not.toContain(keys.slice(3));
    }
    const twice = await start({
      TOKEN_TAG_KEYS: 'a1:0123456789012345678901234567890123,a1:abcdefghijabcdefghijabcdefghijabcdef',
    });
    expect(twice.code).toBe(78);
    expect(twice.output).toMatch(/TOKEN_TAG_KEYS names key "a1" twice/);
    expect(twice.output).not.toContain('abcdefghij');
  });

  it('refuses a LEGACY_TOKENS_UNTIL that is no date and a TRUSTED_PROXY_CIDRS entry that is no address', async () => {
    const date = await start({ LEGACY_TOKENS_UNTIL: '2026-13-45' });
    expect(date.code).toBe(78);
    expect(date.output).toContain('LEGACY_TOKENS_UNTIL');
    const shape = await start({ LEGACY_TOKENS_UNTIL: 'next friday' });
    expect(shape.code).toBe(78);
    expect(shape.output).toContain('LEGACY_TOKENS_UNTIL');
    const cidr = await start({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8,ingress.local' });
    expect(cidr.code).toBe(78);
    expect(cidr.output).toMatch(/TRUSTED_PROXY_CIDRS: "ingress.local"/);
  });
});
