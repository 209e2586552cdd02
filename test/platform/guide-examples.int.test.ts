import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { curlExamples, GUIDES, mdpExamples, pythonExamples } from '../docs/examples.ts';
import { platform } from './client.ts';

// Every curl line of the guides (the README, docs/*.md and the folders' READMEs), run as written by bash
// and curl against the platform loaded with the default data, and every `npx mdp` line as written through
// npx and the workspace's bin: a renamed symbol, a missing token, a route that moved or a bin that does
// not run fails here, not for a new user.

const exec = promisify(execFile);
const examples = GUIDES.flatMap(curlExamples);
const host = new URL(platform.baseUrl).host;

/** The guides address a local `make run` (or a port-forward) on localhost:8080. */
const here = (command: string) => command.replaceAll('localhost:8080', host);

/** Without pipefail: `| head` closing the pipe early is how a reader runs it, not a failure. */
async function bash(script: string): Promise<string> {
  const { stdout } = await exec('bash', ['-c', script], {
    env: { ...process.env, TOKEN: platform.token },
    timeout: 30_000,
  });
  return stdout;
}

describe('the curl examples of the guides answer as written on the default data', () => {
  it('finds the examples', () => {
    expect(examples.filter((e) => e.guide === 'README.md').length).toBeGreaterThanOrEqual(8);
    // The MCP tool calls by hand live with the subscribers' page, which this test must read too.
    expect(examples.filter((e) => e.guide === 'docs/subscribers.md').length).toBeGreaterThanOrEqual(2);
  });

  it.each(examples.map((e) => [`${e.guide}:${e.line}`, e] as const))('%s', async (_, example) => {
    // The status of the curl itself (before any pipe), then the whole line with its pipes.
    const curl = here(example.command.split(' | ')[0]!);
    // As SPEC 7 tells a reader: a 503 is asked again after its Retry-After (twice at most), where a usage
    // read of a leased account waits for recording that lags on a starved machine.
    let status = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [code, retryAfter] = (
        await bash(`${curl} -o /dev/null -w '%{http_code} %header{retry-after}'`)
      ).split(' ');
      status = Number(code);
      if (status !== 503 || example.expectedStatus === 503 || !retryAfter) break;
      await new Promise((r) => setTimeout(r, Number(retryAfter) * 1_000));
    }
    expect(status, example.command).toBe(example.expectedStatus);
    expect((await bash(here(example.command))).length, example.command).toBeGreaterThan(0);
  });
});

describe('the `npx mdp` lines of the guides run as written on the default data', () => {
  const lines = GUIDES.flatMap(mdpExamples);
  // A folder of its own, so a line's `> file.csv` lands there, whose node_modules is the repository's:
  // npx finds the workspace's `mdp` bin there as it does in the checkout after `make run`.
  const cwd = mkdtempSync(join(tmpdir(), 'mdp-guide-'));
  symlinkSync(join(process.cwd(), 'node_modules'), join(cwd, 'node_modules'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('finds the README’s', () => {
    expect(lines.filter((e) => e.guide === 'README.md').length).toBeGreaterThanOrEqual(2);
  });

  it.each(lines.map((e) => [`${e.guide}:${e.line}`, e] as const))(
    '%s',
    async (_, example) => {
      // The guides set MDP_TOKEN from the token and address `make run` on localhost:8080, this platform
      // is elsewhere: MDP_BASE_URL says where, as a reader's port-forward would.
      const { stdout } = await exec('bash', ['-c', example.command], {
        cwd,
        env: {
          ...process.env,
          TOKEN: platform.token,
          MDP_TOKEN: platform.token,
          MDP_BASE_URL: platform.baseUrl,
        },
        timeout: 60_000,
        maxBuffer: 32 * 1024 * 1024,
      });
      const file = / > (\S+)$/.exec(example.command)?.[1];
      expect((file ? readFileSync(join(cwd, file), 'utf8') : stdout).length, example.command).toBeGreaterThan(
        0,
      );
    },
    90_000,
  );
});

describe('the Python examples of the guides run as written on the default data', () => {
  const examples = GUIDES.flatMap(pythonExamples);
  // Debian's Python with pandas (scripts/test-tools.sh makes sure of it), the package from the checkout.
  const python = process.env.MDP_PYTHON || '/usr/bin/python3';
  const cwd = mkdtempSync(join(tmpdir(), 'mdp-guide-python-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('finds the README’s and the subscribers’ page’s', () => {
    expect(examples.filter((e) => e.guide === 'README.md' && e.kind === 'program')).toHaveLength(1);
    expect(
      examples.filter((e) => e.guide === 'docs/subscribers.md' && e.kind === 'program').length,
    ).toBeGreaterThanOrEqual(2);
    expect(
      examples.filter((e) => e.guide === 'docs/subscribers.md' && e.kind === 'command').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it.each(examples.map((e) => [`${e.guide}:${e.line}`, e] as const))(
    '%s',
    async (_, example) => {
      const env = {
        ...process.env,
        PYTHONPATH: join(process.cwd(), 'clients/python/src'),
        PYTHONDONTWRITEBYTECODE: '1',
        MDP_TOKEN: platform.token,
        MDP_BASE_URL: platform.baseUrl,
      };
      const run =
        example.kind === 'program'
          ? exec(python, ['-c', here(example.source)], {
              cwd,
              env,
              timeout: 60_000,
              maxBuffer: 32 * 1024 * 1024,
            })
          : exec('bash', ['-c', example.source.replace(/^python3 /, `${python} `)], {
              cwd,
              env,
              timeout: 60_000,
              maxBuffer: 32 * 1024 * 1024,
            });
      const { stdout, stderr } = await run;
      const file = / > (\S+)$/.exec(example.source)?.[1];
      expect((file ? readFileSync(join(cwd, file), 'utf8') : stdout).length, example.source).toBeGreaterThan(
        0,
      );
      expect(stderr, example.source).toBe('');
    },
    90_000,
  );
});
