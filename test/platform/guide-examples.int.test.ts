import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { curlExamples, GUIDES } from '../docs/examples.ts';
import { platform } from './client.ts';

// Every curl line of the guides (the README, docs/*.md and the folders' READMEs), run as written by bash
// and curl against the platform loaded with the default data: a renamed symbol, a missing token or a route
// that moved fails here, not for a new user.

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
    const status = await bash(`${curl} -o /dev/null -w '%{http_code}'`);
    expect(Number(status), example.command).toBe(example.expectedStatus);
    expect((await bash(here(example.command))).length, example.command).toBeGreaterThan(0);
  });
});
