import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';

const exec = promisify(execFile);
// Each case starts a gateway process, which loads its whole bundle before refusing its settings: a few
// seconds each beside the rest of the suite, so the cases of a test start together and the test waits
// longer than the default.
const SPAWNS_MS = 120_000;

/** Starts the gateway with `env`; resolves to its exit code and output (it must exit at start-up). */
async function start(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const err = (await exec(process.execPath, [...nodeArgsFor('services/gateway/src/server.ts')], {
    env: { ...process.env, PORT: '0', OPS_PORT: '0', ...env },
    timeout: SPAWNS_MS,
  }).catch((e: unknown) => e)) as { code: number; stdout: string; stderr: string };
  return { code: err.code, output: `${err.stdout}${err.stderr}` };
}

describe("the gateway's token settings (issue 41)", () => {
  it(
    'refuses a malformed TOKEN_TAG_KEYS with exit code 78, naming it and never echoing a key',
    async () => {
      const malformed = [
        'a1:too-short-a-key',
        'abc:0123456789012345678901234567890123',
        'a1:has a space in it 0123456789012345',
      ];
      const [twice, ...refused] = await Promise.all([
        start({
          TOKEN_TAG_KEYS: 'a1:0123456789012345678901234567890123,a1:abcdefghijabcdefghijabcdefghijabcdef',
        }),
        ...malformed.map((keys) => start({ TOKEN_TAG_KEYS: keys })),
      ]);
      malformed.forEach((keys, i) => {
        const { code, output } = refused[i]!;
        expect(code, keys).toBe(78);
        expect(output).toContain('TOKEN_TAG_KEYS');
        expect(output).not.toContain(keys.slice(3));
      });
      expect(twice!.code).toBe(78);
      expect(twice!.output).toMatch(/TOKEN_TAG_KEYS names key "a1" twice/);
      expect(twice!.output).not.toContain('abcdefghij');
    },
    SPAWNS_MS,
  );

  it(
    'refuses a LEGACY_TOKENS_UNTIL that is no date and a TRUSTED_PROXY_CIDRS entry that is no address',
    async () => {
      const [date, shape, cidr] = await Promise.all([
        start({ LEGACY_TOKENS_UNTIL: '2026-13-45' }),
        start({ LEGACY_TOKENS_UNTIL: 'next friday' }),
        start({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8,ingress.local' }),
      ]);
      expect(date!.code).toBe(78);
      expect(date!.output).toContain('LEGACY_TOKENS_UNTIL');
      expect(shape!.code).toBe(78);
      expect(shape!.output).toContain('LEGACY_TOKENS_UNTIL');
      expect(cidr!.code).toBe(78);
      expect(cidr!.output).toMatch(/TRUSTED_PROXY_CIDRS: "ingress.local"/);
    },
    SPAWNS_MS,
  );
});
