// The `node-compare` scenario's second gateway: the same bundle as the stack's own gateway (bench/bundled.ts),
// under another Node binary (`BENCH_COMPARE_NODE`), beside it and sharing its auth, ledger, data
// services, NATS stream and Postgres, on ports of its own. The services refuse a Node outside
// package.json's engines.node (exit 78, since commit 4351997): from then on the other binary must be a
// Node 24 release, or the run is made from a checkout before that commit (docs/contributors.md,
// "Benchmarks"), where both gateways ran the TypeScript source through tsx.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { nodeArgsFor } from '../test/bundles.ts';
import { release } from '../test/ports.ts';
import type { Stack } from '../test/stack.ts';
import { freePort } from '../test/stack.ts';
import { supervise } from './child.ts';

/** `node --version` of a binary ("v20.20.2"); throws naming the variable when it does not run. */
export function nodeVersion(bin: string, variable = 'BENCH_COMPARE_NODE'): string {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const version = out.stdout?.trim() ?? '';
  if (out.status !== 0 || !/^v\d+\.\d+\.\d+/.test(version))
    throw new Error(
      `${variable}: "${bin}" is not a node binary that runs (${out.error?.message ?? out.stderr})`,
    );
  return version;
}

export interface ComparedGateway {
  baseUrl: string;
  opsPort: number;
  pid: number;
  version: string;
  /** What the process printed (its warnings: the bench runs it at LOG_LEVEL=warn). */
  output: string[];
  stop(): Promise<void>;
}

/**
 * Starts the gateway under `nodeBin`, wired as the stack's gateway is (test/stack.ts), with `env` over
 * it (the bench's LOG_LEVEL) and `nodeArgs` (the bench's --cpu-prof, when asked for).
 */
export async function startComparedGateway(
  stack: Stack,
  nodeBin: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ComparedGateway> {
  const version = nodeVersion(nodeBin);
  const port = await freePort();
  const opsPort = await freePort();
  const addr = (name: Parameters<Stack['procs']['get']>[0]) => `127.0.0.1:${stack.procs.get(name)!.port}`;
  const child: ChildProcess = spawn(
    nodeBin,
    [...nodeArgs, ...nodeArgsFor('services/gateway/src/server.ts')],
    {
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: '3000',
        ...stack.usage,
        PORT: String(port),
        OPS_PORT: String(opsPort),
        NATS_URL: stack.natsUrl,
        AUTH_ADDR: addr('auth'),
        EQUITIES_ADDR: addr('equities-data'),
        FILINGS_ADDR: addr('filings-reader'),
        OPTIONS_ADDR: addr('options-analytics'),
        LEDGER_ADDR: addr('quota-ledger'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const proc = supervise(child);
  const stop = async () => {
    await proc.stop();
    release(port);
    release(opsPort);
  };
  const until = Date.now() + 120_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${opsPort}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (proc.exited() || Date.now() > until) {
      await stop();
      const code = proc.exitCode();
      throw new Error(
        `the gateway under ${nodeBin} (${version}) ${proc.exited() ? `exited (code ${code})` : 'was not ready'}` +
          `${code === 78 ? ', refusing a Node outside package.json engines.node' : ''} ` +
          `(output: ${proc.output.join('').slice(-2000)})`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    opsPort,
    pid: child.pid!,
    version,
    output: proc.output,
    stop,
  };
}
