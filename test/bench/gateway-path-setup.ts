// What test/bench/gateway-path.ts asks of the gateway's own HTTP path (test/bench/gateway-path-server.ts),
// the status each answer must have, and how its servers start and stop (bench/answer-body.ts starts
// its server the same way): shared with test/bench/gateway-path.int.test.ts, which asks each once so
// that a change of the gateway that breaks the bench's stand-ins fails the suite, not `make bench`.
import { type ChildProcess, spawn } from 'node:child_process';
import { DEV_TAG_KEYS, generateToken, parseTagKeys } from '@mdp/tokens';
import { ROOT } from '../../scripts/lib/services.ts';
import { atProcessEnd } from '../process-end.ts';

export interface Scenario {
  key: string;
  name: string;
  path: string;
  headers: Record<string, string>;
  /** The status every answer must have; anything else fails the run. */
  status: number;
  /** Requests a run (and at most before the first round) when not `BENCH_PATH_REQUESTS`: a costly answer. */
  requests?: number;
}

const token = generateToken(parseTagKeys(DEV_TAG_KEYS));
const bearer = { authorization: `Bearer ${token}` };
/** What a browser or an HTTP library sends: the answer is under the compression threshold. */
const acceptEncoding = { 'accept-encoding': 'gzip, deflate, br' };
export const SCENARIOS: Scenario[] = [
  {
    key: 'usage',
    name: 'GET /v1/me/usage, 200 (token, envelope)',
    path: '/v1/me/usage',
    headers: bearer,
    status: 200,
  },
  {
    key: 'usage-ae',
    name: 'the same with Accept-Encoding',
    path: '/v1/me/usage',
    headers: { ...bearer, ...acceptEncoding },
    status: 200,
  },
  {
    key: 'no-token',
    name: 'GET /v1/stocks/X/quote, 401 (no token)',
    path: '/v1/stocks/ARAVALIHOU/quote',
    headers: {},
    status: 401,
  },
  { key: 'not-found', name: 'GET /v1/nope, 404', path: '/v1/nope', headers: {}, status: 404 },
  {
    key: 'openapi-br',
    name: 'GET /v1/openapi.json, brotli (no token)',
    path: '/v1/openapi.json',
    headers: { 'accept-encoding': 'br' },
    status: 200,
    // Each answer was compressed afresh (milliseconds of brotli) before issue 49: fewer of them.
    requests: 2_000,
  },
];

/** Starts `node <args>` answering HTTP on `port`; resolves once it answers. Killed when this process ends. */
export async function start(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  atProcessEnd(() => child.kill('SIGKILL'));
  const until = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return child;
    if (child.exitCode !== null || Date.now() > until)
      throw new Error(`${args.join(' ')} did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}
