// The metered load the multi-process tests put on an account (shards, leases, re-sharding, reliefs), and
// what they read off its answers: one client for all of them, so each asserts on the same fields.

/** The stack's data schemas are empty: a search is a metered 200 (no match), cheap on every service. */
export const SEARCH = '/v1/stocks?q=zz&limit=1';

export interface Answer {
  status: number;
  /** The SPEC's error code of a refusal. */
  code?: string;
  retryAfter: string | null;
  /** `X-RateLimit-Remaining`: what is left in the binding daily or monthly window. */
  remaining: number | null;
  /** What is left in the burst window, from the `RateLimit` header. */
  burstRemaining: number | null;
  /** When the answer arrived (ms since the epoch). */
  at: number;
  /** How long it took to come (ms). */
  ms: number;
}

export async function call(base: string, token: string, path = SEARCH): Promise<Answer> {
  const sent = Date.now();
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { error?: { code: string } };
  const remaining = res.headers.get('x-ratelimit-remaining');
  const burst = /"burst";r=(\d+)/.exec(res.headers.get('ratelimit') ?? '');
  return {
    status: res.status,
    code: body.error?.code,
    retryAfter: res.headers.get('retry-after'),
    remaining: remaining === null ? null : Number(remaining),
    burstRemaining: burst ? Number(burst[1]) : null,
    at: Date.now(),
    ms: Date.now() - sent,
  };
}

/** A call whose connection failed (a gateway killed under it) is an answer of status 0, for the test's checks to see. */
export async function attempt(base: string, token: string): Promise<Answer> {
  const sent = Date.now();
  return call(base, token).catch(() => ({
    status: 0,
    retryAfter: null,
    remaining: null,
    burstRemaining: null,
    at: Date.now(),
    ms: Date.now() - sent,
  }));
}

/** `n` calls (`attempt`), `concurrency` at a time, the i-th to `bases[i % bases.length]`. */
export async function hammer(
  bases: string[],
  token: string,
  n: number,
  concurrency: number,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        answers.push(await attempt(bases[i % bases.length]!, token));
      }
    }),
  );
  return answers;
}

/** 200s seen in all, and every outcome counted by `key` (status and code unless told), for a failure's message. */
export function tally<A extends Answer>(
  answers: A[],
  key: (a: A) => string = (a) => `${a.status} ${a.code ?? ''}`.trim(),
): { ok: number; by: Record<string, number> } {
  const by: Record<string, number> = {};
  for (const a of answers) by[key(a)] = (by[key(a)] ?? 0) + 1;
  return { ok: answers.filter((a) => a.status === 200).length, by };
}

/** Every outcome counted, as a failure's message says it. */
export function outcomes<A extends Answer>(answers: A[], key?: (a: A) => string): string {
  return JSON.stringify(tally(answers, key).by);
}

/**
 * The longest stretch of `answers` without a 200, and when it began and ended (ms since the epoch): from
 * the first answer to the first 200, between 200s, and from the last 200 to the last answer.
 */
export function longestStretch(answers: Answer[]): { ms: number; from: number; to: number } {
  const times = answers.map((a) => a.at);
  const start = Math.min(...times);
  const marks = [
    start,
    ...answers
      .filter((a) => a.status === 200)
      .map((a) => a.at)
      .sort((a, b) => a - b),
    Math.max(...times),
  ];
  let longest = { ms: 0, from: start, to: start };
  for (let i = 1; i < marks.length; i++)
    if (marks[i]! - marks[i - 1]! > longest.ms)
      longest = { ms: marks[i]! - marks[i - 1]!, from: marks[i - 1]!, to: marks[i]! };
  return longest;
}

export function longestWithout200(answers: Answer[]): number {
  return longestStretch(answers).ms;
}

/** A run of refusals: its answers, from the first one's sending to the last one's arrival (ms since the epoch). */
export interface Refusals<A extends Answer = Answer> {
  ms: number;
  from: number;
  to: number;
  answers: A[];
}

/**
 * The longest time `answers` were refused without a 200 between them: the answers in the order they were
 * sent, each run of ones that are not 200 from its first's sending to its last's arrival. Unlike the
 * stretch between 200s (`longestStretch`), a 200 that was slow to come does not lengthen it: how long an
 * account's requests got 503s, not how long an answer took on a loaded machine.
 */
export function longestRefusals<A extends Answer>(answers: A[]): Refusals<A> {
  const bySending = [...answers].sort((a, b) => a.at - a.ms - (b.at - b.ms));
  let longest: Refusals<A> = { ms: 0, from: 0, to: 0, answers: [] };
  let run: A[] = [];
  const close = () => {
    if (run.length === 0) return;
    const from = run[0]!.at - run[0]!.ms;
    const to = Math.max(...run.map((a) => a.at));
    if (to - from > longest.ms) longest = { ms: to - from, from, to, answers: run };
    run = [];
  };
  for (const a of bySending) {
    if (a.status === 200) close();
    else run.push(a);
  }
  close();
  return longest;
}
