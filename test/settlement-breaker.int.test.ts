import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH } from './answers.ts';
import { metric } from './metrics.ts';
import { type PrivateServer, startPrivateNats } from './private-infra.ts';
import { pauseProcess } from './process-pause.ts';
import { STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';
import { usedToday } from './usage-read.ts';

// Issue 50's "no stall when a stream has no leader", on a NATS server of its own: while JetStream does
// not acknowledge charges (here the server is stopped with SIGSTOP: connections stay up, nothing answers,
// as when a clustered stream has lost its leader), metered requests get a fast 503 with Retry-After from
// the gateway's settlement breaker instead of each waiting out SETTLE_ACK_TIMEOUT_MS; once acknowledgements
// return, a probe closes the breaker and 200s come back; every 200 seen is charged once. Usage reads get
// the same 503 meanwhile, and probe for themselves when a probe is due.

const ACK_TIMEOUT_MS = 1_500;
let nats: PrivateServer;
let stack: Stack;

beforeAll(async () => {
  nats = await startPrivateNats();
  stack = await startStack(
    {
      AUTH_DEADLINE_MS: '5000',
      ADMISSION_DEADLINE_MS: '5000',
      SETTLE_ACK_TIMEOUT_MS: String(ACK_TIMEOUT_MS),
      SETTLE_ATTEMPT_TIMEOUT_MS: '200',
    },
    { natsUrl: nats.url },
  );
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
  await nats?.cleanup();
}, STACK_SHUTDOWN_MS);

interface Answer {
  status: number;
  retryAfter: string | null;
  requestId: string | null;
  /** When it was sent and answered, in ms since the test file started. */
  sentAt: number;
  answeredAt: number;
}

const t0 = Date.now();

async function call(token: string): Promise<Answer> {
  const sentAt = Date.now() - t0;
  const res = await fetch(`${stack.baseUrl}${SEARCH}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    requestId: res.headers.get('request-id'),
    sentAt,
    answeredAt: Date.now() - t0,
  };
}

/** What a failure report needs about an answer that should not have come: when, and the gateway's log of it. */
function explain(a: Answer, stoppedAt: number, resumedAt: number): string {
  const log = stack.procs
    .get('gateway')!
    .output.join('')
    .split('\n')
    .filter((line) => a.requestId !== null && line.includes(a.requestId));
  return `${a.status} for ${a.requestId}, sent ${a.sentAt - stoppedAt} ms after SIGSTOP, answered ${a.answeredAt - stoppedAt} ms after (SIGCONT at ${resumedAt - stoppedAt} ms); gateway log: ${log.join('\n') || 'nothing'}`;
}

async function calls(token: string, n: number, concurrency: number) {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) answers.push(await call(token));
    }),
  );
  return answers;
}

const usage = (token: string) => usedToday(stack.baseUrl, token);

interface UsageRead {
  status: number;
  retryAfter: string | null;
}

async function readUsage(token: string): Promise<UsageRead> {
  const read = await fetch(`${stack.baseUrl}/v1/me/usage`, { headers: { authorization: `Bearer ${token}` } });
  await read.arrayBuffer();
  return { status: read.status, retryAfter: read.headers.get('retry-after') };
}

describe('the settlement breaker', () => {
  it('while charges are not acknowledged, metered requests get fast 503s with Retry-After; then 200s again, each charged once', async () => {
    const account = await stack.admin('account', 'create', '--plan', 'load-test');
    const token = await stack.admin('token', 'issue', account);
    const before = await calls(token, 20, 4);
    expect(before.every((a) => a.status === 200)).toBe(true);
    const gatewayOps = stack.procs.get('gateway')!.opsPort;

    await pauseProcess(nats.pid()!);
    const stoppedAt = Date.now() - t0;
    let resumedAt = stoppedAt;
    let stalled: Awaited<ReturnType<typeof calls>>;
    let elapsed: number;
    let open: number;
    let usageReads: UsageRead[];
    try {
      const started = Date.now();
      stalled = await calls(token, 100, 5);
      elapsed = Date.now() - started;
      // Open, or for a moment half-open (the gauge reads 0 while a probe waits its attempt out, once a
      // second): looked at until it reads open, for 2 s at most.
      const lookUntil = Date.now() + 2_000;
      open = await metric(gatewayOps, 'gateway_settlement_breaker_open');
      while (open !== 1 && Date.now() < lookUntil) {
        await new Promise((r) => setTimeout(r, 50));
        open = await metric(gatewayOps, 'gateway_settlement_breaker_open');
      }
      // Usage reads say the same: at once, and once a probe is due (over a second after the breaker last
      // opened), after their own probe finds JetStream still silent.
      const atOnce = await readUsage(token);
      await new Promise((r) => setTimeout(r, 1_500));
      usageReads = [atOnce, await readUsage(token)];
    } finally {
      process.kill(nats.pid()!, 'SIGCONT');
      resumedAt = Date.now() - t0;
    }
    console.log(`100 requests while JetStream did not answer: ${elapsed} ms in all`);
    expect(open).toBe(1);
    expect(usageReads).toEqual([
      { status: 503, retryAfter: '5' },
      { status: 503, retryAfter: '5' },
    ]);
    const unexpected = stalled.filter((a) => a.status !== 503 || a.retryAfter !== '5');
    expect(unexpected.map((a) => explain(a, stoppedAt, resumedAt))).toEqual([]);
    // Each waiting out its acknowledgement, 5 at a time, would take 20 × 1.5 s: the breaker answers at once.
    expect(elapsed).toBeLessThan((100 / 5) * ACK_TIMEOUT_MS * 0.25);

    // Acknowledgements are back: a usage read's own probe closes the breaker (no metered request needed),
    // and 200s follow.
    const until = Date.now() + 30_000;
    let read = await readUsage(token);
    while (read.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      read = await readUsage(token);
    }
    expect(read.status).toBe(200);
    expect(await metric(gatewayOps, 'gateway_settlement_breaker_open')).toBe(0);
    let after = await call(token);
    while (after.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      after = await call(token);
    }
    expect(after.status).toBe(200);
    const more = await calls(token, 20, 4);
    expect(more.every((a) => a.status === 200)).toBe(true);
    const seen = before.length + 1 + more.length;
    // Every 200 seen is charged, and nothing answered 503 is (its charge, if stored, is voided).
    const settleBy = Date.now() + 30_000;
    let used = await usage(token);
    while (used !== seen && Date.now() < settleBy) {
      await new Promise((r) => setTimeout(r, 250));
      used = await usage(token);
    }
    expect(used).toBe(seen);
  }, 120_000);
});
