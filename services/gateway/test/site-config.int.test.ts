import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';

const exec = promisify(execFile);

describe('the gateway configuration of the account site', () => {
  it('refuses a SITE_CSRF_KEY shorter than 32 characters at start-up, naming it, with exit code 78', async () => {
    const err = await exec(process.execPath, [...nodeArgsFor('services/gateway/src/server.ts')], {
      env: { ...process.env, SITE_CSRF_KEY: 'too-short', PORT: '0', OPS_PORT: '0' },
      timeout: 30_000,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(78);
    const output = `${(err as { stdout: string }).stdout}${(err as { stderr: string }).stderr}`;
    expect(output).toContain('SITE_CSRF_KEY');
    expect(output).not.toContain('too-short');
  });
});
