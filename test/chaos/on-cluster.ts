// What the chaos tests on a private three-server JetStream cluster share: the stack started on it, the
// summary of a fault's answers, and asking JetStream to move a leader.
import type { NatsConnection } from 'nats';
import type { PrivateNatsCluster } from '../private-infra.ts';
import { type Stack, startStack } from '../stack.ts';
import { until } from '../until.ts';
import type { Sample } from './load.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value, for at most `ms`; a check that throws has not returned one. */
export const within = <T>(ms: number, what: string, check: () => Promise<T | undefined>) =>
  until(what, () => check().catch(() => undefined), ms);

/**
 * The platform on `cluster`, its usage streams in three replicas. The services are given the first
 * server's address only (they learn the others from it), so a test that keeps leaders off that server
 * loses a leader with the services' connections still up: charges then wait for acknowledgements that
 * do not come, a publish attempt for `attemptTimeoutMs`, a 200 for `ackTimeoutMs` at most.
 */
export function startStackOnCluster(
  cluster: PrivateNatsCluster,
  o: { ackTimeoutMs: number; attemptTimeoutMs: number; shards?: number },
): Promise<Stack> {
  return startStack(
    {
      USAGE_STREAM_REPLICAS: '3',
      AUTH_DEADLINE_MS: '5000',
      ADMISSION_DEADLINE_MS: '5000',
      SETTLE_ACK_TIMEOUT_MS: String(o.ackTimeoutMs),
      SETTLE_ATTEMPT_TIMEOUT_MS: String(o.attemptTimeoutMs),
    },
    { natsUrl: cluster.servers[0]!.url, shards: o.shards ?? 1 },
  );
}

/** Asks JetStream to elect another leader (`api`: `STREAM.LEADER.STEPDOWN.<stream>` and the like). */
export async function stepDown(nc: NatsConnection, api: string): Promise<void> {
  await nc.request(`$JS.API.${api}`, '', { timeout: 2_000 });
  await sleep(500);
}

/** A fault's answers: how many of each outcome, the slowest, and how many took over 250 ms. */
export function summary(samples: Sample[]): string {
  const by = new Map<string, number>();
  for (const s of samples) by.set(String(s.outcome), (by.get(String(s.outcome)) ?? 0) + 1);
  const slowest = Math.max(0, ...samples.map((s) => s.end - s.start));
  const over = samples.filter((s) => s.end - s.start > 250).length;
  return `${samples.length} answers (${[...by].map(([k, n]) => `${k}: ${n}`).join(', ')}), slowest ${slowest.toFixed(0)} ms, ${over} over 250 ms`;
}
