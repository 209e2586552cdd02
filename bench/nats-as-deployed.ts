// The nats-server `make bench` measures: a private one, run as deploy/nats-jetstream-values.yaml runs it
// in Kubernetes, so its CPU a message is that of the deployment the platform ships with (and no other test
// run's traffic shares it).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type PrivateServer, startPrivateNats } from '../test/private-infra.ts';
import { envChoice } from './env.ts';

const VALUES = new URL('../deploy/nats-jetstream-values.yaml', import.meta.url);

/** A Kubernetes CPU quantity ("500m", "2", "1.5") in cores. */
export function cores(quantity: string | number): number {
  const text = String(quantity).trim();
  const value = text.endsWith('m') ? Number(text.slice(0, -1)) / 1000 : Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`not a CPU quantity: ${text}`);
  return value;
}

/**
 * The Go runtime settings the NATS values give the server: GOMAXPROCS from the container's CPU request,
 * rounded up to whole cores as Kubernetes' resourceFieldRef does (divisor 1).
 */
export function deployedNatsEnv(valuesYaml = readFileSync(VALUES, 'utf8')): Record<string, string> {
  const values = parse(valuesYaml) as {
    container?: {
      env?: Record<string, unknown>;
      merge?: { resources?: { requests?: { cpu?: string | number } } };
    };
  };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(values.container?.env ?? {}))
    if (typeof value === 'string' || typeof value === 'number') env[key] = String(value);
  const request = values.container?.merge?.resources?.requests?.cpu;
  const fromRequest = (values.container?.env?.GOMAXPROCS as { valueFrom?: unknown } | undefined)?.valueFrom;
  if (fromRequest !== undefined) {
    if (request === undefined) throw new Error('GOMAXPROCS comes from the CPU request, and none is set');
    env.GOMAXPROCS = String(Math.ceil(cores(request)));
  }
  return env;
}

/**
 * The NATS a bench's stacks use: a private nats-server with the deployment's Go settings, or with
 * `BENCH_NATS=machine` the machine's own (`NATS_URL`, the stack's default), for a comparison.
 */
export async function benchNats(): Promise<{
  url: string | undefined;
  said: string;
  cleanup: () => Promise<void>;
}> {
  if (envChoice('BENCH_NATS', ['deployed', 'machine'], 'deployed') === 'machine')
    return { url: undefined, said: "NATS: the machine's (BENCH_NATS=machine)", cleanup: async () => {} };
  const env = deployedNatsEnv();
  const server: PrivateServer = await startPrivateNats(undefined, env);
  const settings = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return {
    url: server.url,
    said: `NATS: a private nats-server as deploy/nats-jetstream-values.yaml runs it (${settings}), on ${server.url}`,
    cleanup: () => server.cleanup(),
  };
}
