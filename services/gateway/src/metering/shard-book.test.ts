import { ledger } from '@mdp/proto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiringByRequest, REDIAL_PAUSE_MS, RESTORE_BATCH, ShardBook, type Turn } from './shard-book.ts';

const D = ledger.AdmitDecision;
const TTL = 30_000;

const account = (id: string) => ({ account_id: id, plan: 'free', daily_cap: 40, burst_per_minute: 60 });
const hold = (id: string, at = 1_000) => ({
  request_id: id,
  account: account('a'),
  admitted_at_ms: at,
  interface: 'rest',
});

/** A waiter as the book sees it: its request, and nothing else. */
interface Waiter {
  request: ledger.Admission;
}
const waiter = (id: string, accountId = `acct-${id}`): Waiter => ({
  request: {
    request_id: id,
    account: account(accountId),
    traceparent: '',
    interface: 'rest',
    want_lease: false,
    relief: false,
  },
});
const result = (id: string, decision = D.ADMIT_DECISION_ADMITTED, at = 5_000): ledger.AdmissionResult => ({
  request_id: id,
  decision,
  rate_limit: undefined,
  retry_after_seconds: 0,
  admitted_at_ms: at,
  burst: undefined,
  lease: undefined,
});
const key = (id: string, accountId = `acct-${id}`) => ({ request_id: id, account_id: accountId });
const ids = (m: ledger.AdmitRequest) => m.admissions.map((a) => a.request_id);

/** A book with a stream up, and the turn that carried `sent` (already flushed). */
function connected(now = 0, ...sent: Waiter[]) {
  const book = new ShardBook<Waiter, string>(TTL);
  const first = waiter('first');
  expect(book.admit(first, now)).toBe('dial');
  expect(book.opened(now)).toEqual([]);
  for (const w of sent) expect(book.admit(w, now)).toBe('queued');
  const turn = book.flush()!;
  expect(book.answered(result('first'), now)).toBe(first);
  return { book, turn };
}

describe('ExpiringByRequest', () => {
  it('lists entries oldest first until they are taken', () => {
    const o = new ExpiringByRequest<ReturnType<typeof hold>>(30_000);
    o.add('r1', hold('r1'), 0);
    o.add('r2', hold('r2'), 10);
    o.add('r3', hold('r3'), 20);
    expect(o.take('r2', 25)).toEqual(hold('r2'));
    expect(o.take('unknown', 25)).toBeUndefined();
    expect(o.values(30).map((h) => h.request_id)).toEqual(['r1', 'r3']);
    expect(o.values(30)[0]).toEqual(hold('r1'));
  });

  it('forgets an entry after the hold TTL, so the set stays bounded', () => {
    const o = new ExpiringByRequest<ReturnType<typeof hold>>(30_000);
    o.add('r1', hold('r1'), 0);
    o.add('r2', hold('r2'), 5_000);
    expect(o.values(29_999)).toHaveLength(2);
    expect(o.values(30_000).map((h) => h.request_id)).toEqual(['r2']);
    o.add('r3', hold('r3'), 40_000);
    expect(o.size).toBe(1);
  });

  it('takes nothing once its TTL has passed, even before a prune', () => {
    const o = new ExpiringByRequest<string>(1_000);
    o.add('late', 'account-1', 0);
    expect(o.take('late', 1_000)).toBeUndefined();
    o.add('late', 'account-1', 2_000);
    expect(o.take('late', 2_999)).toBe('account-1');
    expect(o.take('late', 2_999)).toBeUndefined();
  });

  it('an entry added again goes to the end; takeAll empties it, live values only', () => {
    const o = new ExpiringByRequest<string>(1_000);
    o.add('r1', 'a', 0);
    o.add('r2', 'b', 500);
    o.add('r1', 'c', 600);
    expect(o.values(600)).toEqual(['b', 'c']);
    o.delete('r2');
    o.add('r3', 'd', 1_000);
    expect(o.takeAll(1_500)).toEqual(['c', 'd']);
    expect(o.size).toBe(0);
  });
});

describe('ShardBook: admissions', () => {
  it("sends a turn's admissions as one message, in order, and answers each with its own result", () => {
    const [a, b, c] = [waiter('a'), waiter('b'), waiter('c')];
    const { book, turn } = connected(0, a, b, c);
    expect(ids(turn.message)).toEqual(['first', 'a', 'b', 'c']);
    expect(turn.waiting.slice(1)).toEqual([a, b, c]);
    expect(book.flush()).toBeUndefined();
    expect(book.answered(result('b', D.ADMIT_DECISION_QUOTA_EXHAUSTED), 10)).toBe(b);
    expect(book.answered(result('a'), 10)).toBe(a);
    // Answered once: a second result for the same request is nobody's.
    expect(book.answered(result('a'), 10)).toBeUndefined();
    expect(book.due).toBe(false);
  });

  it('at the deadline, answers 503 only the requests the shard has not answered', () => {
    const [a, b, c] = [waiter('a'), waiter('b'), waiter('c')];
    const { book, turn } = connected(0, a, b, c);
    book.answered(result('a'), 10);
    book.answered(result('c', D.ADMIT_DECISION_RATE_LIMITED), 10);
    expect(book.expire(turn, 300)).toEqual({ unavailable: [b], withdrawn: [] });
    // A second timer over the same turn finds nothing (and a result now is a late one).
    expect(book.expire(turn, 400)).toEqual({ unavailable: [], withdrawn: [] });
    expect(book.answered(result('b', D.ADMIT_DECISION_QUOTA_EXHAUSTED), 500)).toBeUndefined();
  });

  it('an answered request is not refused later by its turn’s timer', () => {
    const a = waiter('a');
    const { book, turn } = connected(0, a);
    expect(book.answered(result('a'), 5)).toBe(a);
    expect(book.expire(turn, 300).unavailable).toEqual([]);
  });
});

describe('ShardBook: requests answered 503 before the shard decided', () => {
  it('releases at once one the shard admits after the deadline, in the next message', () => {
    const a = waiter('a', 'acct-late');
    const { book, turn } = connected(0, a);
    book.expire(turn, 300);
    expect(book.answered(result('a'), 500)).toBeUndefined();
    expect(book.due).toBe(true);
    expect(book.flush()!.message).toEqual({
      admissions: [],
      restored: [],
      releases: [key('a', 'acct-late')],
      voids: [],
      lease_returns: [],
      lease_extensions: [],
    });
    // Once.
    expect(book.answered(result('a'), 600)).toBeUndefined();
    expect(book.due).toBe(false);
  });

  it('releases none the shard refused, none answered in time, and none after the hold TTL', () => {
    const [refused, inTime, old] = [waiter('refused'), waiter('in-time'), waiter('old')];
    const { book, turn } = connected(0, refused, inTime, old);
    book.answered(result('in-time'), 10);
    book.expire(turn, 300);
    book.answered(result('refused', D.ADMIT_DECISION_QUOTA_EXHAUSTED), 400);
    book.answered(result('in-time'), 400);
    // Past the TTL the shard has dropped the hold itself.
    book.answered(result('old'), 300 + TTL);
    expect(book.due).toBe(false);
  });

  it('releases them on the next stream if this one breaks before the shard answers', () => {
    const a = waiter('a');
    const { book, turn } = connected(0, a);
    book.expire(turn, 300);
    book.broken(400);
    expect(book.admit(waiter('next'), 400 + REDIAL_PAUSE_MS)).toBe('dial');
    expect(book.opened(400 + REDIAL_PAUSE_MS).flatMap((m) => m.releases)).toEqual([key('a')]);
  });
});

describe('ShardBook: a broken stream', () => {
  it('answers 503 every unanswered request, releases on the next stream those it sent, and pauses', () => {
    const [sent, answered] = [waiter('sent', 'acct-drop'), waiter('answered')];
    const { book } = connected(0, sent, answered);
    book.answered(result('answered'), 5);
    const unsent = waiter('unsent');
    book.admit(unsent, 10);
    const ended = book.broken(20);
    expect(new Set(ended.unavailable)).toEqual(new Set([sent, unsent]));
    // Refused at once for a moment, rather than re-dialled on every request.
    expect(book.admit(waiter('too-soon'), 20 + REDIAL_PAUSE_MS - 1)).toBe('refused');
    const next = waiter('after');
    expect(book.admit(next, 20 + REDIAL_PAUSE_MS)).toBe('dial');
    const opening = book.opened(20 + REDIAL_PAUSE_MS);
    // The admitted one is restored; the one sent and unanswered released; the unsent one never reached it.
    expect(opening).toEqual([
      {
        admissions: [],
        restored: [
          expect.objectContaining({ request_id: 'first' }),
          expect.objectContaining({ request_id: 'answered' }),
        ],
        releases: [],
        voids: [],
        lease_returns: [],
        lease_extensions: [],
      },
      {
        admissions: [],
        restored: [],
        releases: [key('sent', 'acct-drop')],
        voids: [],
        lease_returns: [],
        lease_extensions: [],
      },
    ]);
    // Then the new admission, in the turn's message.
    expect(ids(book.flush()!.message)).toEqual(['after']);
    book.answered(result('after'), 30 + REDIAL_PAUSE_MS);
    // Released once: a later stream does not release it again.
    book.broken(1_000);
    book.admit(waiter('later'), 2_000);
    expect(book.opened(2_000).flatMap((m) => m.releases)).toEqual([]);
  });

  it('a result from the old stream is nobody’s after the break (the transport drops it)', () => {
    const a = waiter('a');
    const { book, turn } = connected(0, a);
    book.broken(10);
    expect(book.answered(result('a'), 20)).toBeUndefined();
    expect(book.expire(turn, 300).unavailable).toEqual([]);
  });
});

describe('ShardBook: outstanding holds', () => {
  it('hands the holds a restarted shard lost to a new stream, oldest first, in messages of RESTORE_BATCH', () => {
    const n = RESTORE_BATCH * 2 + 5;
    const waiters = Array.from({ length: n }, (_, i) => waiter(`r${i}`, 'acct'));
    const { book } = connected(0, ...waiters);
    for (const w of waiters) book.answered(result(w.request.request_id, D.ADMIT_DECISION_ADMITTED, 42), 10);
    book.broken(20);
    book.admit(waiter('next'), 1_000);
    const restored = book.opened(1_000).map((m) => m.restored);
    expect(restored.map((r) => r.length)).toEqual([RESTORE_BATCH, RESTORE_BATCH, 6]);
    expect(restored.flat()[1]).toEqual({
      request_id: 'r0',
      account: account('acct'),
      admitted_at_ms: 42,
      interface: 'rest',
    });
    expect(restored.flat().map((h) => h.request_id)).toEqual([
      'first',
      ...waiters.map((w) => w.request.request_id),
    ]);
  });

  it('forgets a hold once its charge is acknowledged, but keeps one settled while no stream is up', () => {
    const [settledUp, settledDown] = [waiter('settled-up'), waiter('settled-down')];
    const { book } = connected(0, settledUp, settledDown);
    book.answered(result('settled-up'), 1);
    book.answered(result('settled-down'), 1);
    book.settled('settled-up');
    book.settled('first');
    book.broken(2);
    // The restarted shard may not have consumed this settlement yet: it drops the hold if it has.
    book.settled('settled-down');
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => m.restored.map((h) => h.request_id))).toEqual(['settled-down']);
  });

  it('restores requests a lease admitted and did not settle before it ended, until each is settled on a stream that is up', () => {
    const { book } = connected(0);
    book.outlivedLease([hold('leased-1', 500), hold('leased-2', 600), hold('leased-3', 700)], 800);
    book.settled('leased-1');
    book.broken(900);
    // Settled while no stream is up: the restarted shard may not have consumed it yet.
    book.settled('leased-2');
    book.admit(waiter('next'), 1_000);
    const restored = book.opened(1_000).flatMap((m) => m.restored);
    expect(restored.map((h) => h.request_id)).toEqual(['first', 'leased-2', 'leased-3']);
    expect(restored.slice(1)).toEqual([hold('leased-2', 600), hold('leased-3', 700)]);
  });

  it('restores none past the hold TTL (the shard has let it go)', () => {
    const a = waiter('a');
    const { book } = connected(0, a);
    book.answered(result('a'), 1_000);
    book.broken(2_000);
    book.admit(waiter('next'), TTL + 999);
    expect(book.opened(TTL + 999).flatMap((m) => m.restored.map((h) => h.request_id))).toEqual(['a']);
    book.broken(TTL + 1_000);
    book.admit(waiter('next-2'), TTL + 2_000);
    expect(book.opened(TTL + 2_000)).toEqual([]);
  });
});

describe('ShardBook: releases and voids', () => {
  it("sends a release in the turn's message and says who waits when the shard acknowledges it", () => {
    const a = waiter('a');
    const { book } = connected(0, a);
    book.answered(result('a'), 1);
    expect(book.release(key('a'), 'done-a')).toBe(true);
    expect(book.flush()!.message).toEqual({
      admissions: [],
      restored: [],
      releases: [key('a')],
      voids: [],
      lease_returns: [],
      lease_extensions: [],
    });
    expect(book.acknowledged('a')).toBe('done-a');
    expect(book.acknowledged('a')).toBeUndefined();
    // Never charged: never restored either.
    book.broken(2);
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => m.restored.map((h) => h.request_id))).toEqual(['first']);
  });

  it("voids a charge in the turn's message, acknowledged as a release is, and does not restore it", () => {
    const a = waiter('a');
    const { book } = connected(0, a);
    book.answered(result('a', D.ADMIT_DECISION_ADMITTED, 77), 1);
    const v = { request_id: 'a', account_id: 'acct-a', admitted_at_ms: 77, interface: 'rest' };
    expect(book.voidCharge(v, 'void-a')).toBe(true);
    const turn = book.flush()!;
    expect(turn.message).toEqual({
      admissions: [],
      restored: [],
      releases: [],
      voids: [v],
      lease_returns: [],
      lease_extensions: [],
    });
    expect(book.acknowledged('a')).toBe('void-a');
    expect(book.expire(turn, 300).withdrawn).toEqual([]);
    book.broken(400);
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => m.restored.map((h) => h.request_id))).toEqual(['first']);
  });

  it('stops waiting at the deadline of the message that carried it', () => {
    const { book } = connected(0);
    book.release(key('a'), 'done-a');
    book.voidCharge({ request_id: 'b', account_id: 'acct-b', admitted_at_ms: 1, interface: 'mcp' }, 'done-b');
    const turn = book.flush()!;
    expect(book.expire(turn, 300)).toEqual({ unavailable: [], withdrawn: ['done-a', 'done-b'] });
  });

  it('waits for nothing while no stream is up: the settlement event releases it', () => {
    const a = waiter('a');
    const { book } = connected(0, a);
    book.answered(result('a'), 1);
    book.broken(2);
    expect(book.release(key('a'), 'done-a')).toBe(false);
    expect(book.due).toBe(false);
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => m.restored.map((h) => h.request_id))).toEqual(['first']);
  });

  it('a broken stream ends every wait; unsent releases go on the next stream, unsent voids with their event', () => {
    const { book } = connected(0);
    book.release(key('sent'), 'done-sent');
    book.flush();
    book.release(key('unsent'), 'done-unsent');
    book.voidCharge(
      { request_id: 'v', account_id: 'acct-v', admitted_at_ms: 1, interface: 'rest' },
      'done-v',
    );
    const ended = book.broken(10);
    expect(new Set(ended.withdrawn)).toEqual(new Set(['done-sent', 'done-unsent', 'done-v']));
    expect(book.flush()).toBeUndefined();
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => [...m.releases, ...m.voids])).toEqual([key('unsent')]);
  });
});

describe('ShardBook: lease returns and extensions', () => {
  it("asks for an extension in the turn's message, beside a return; none while no stream is up, and none left for the next stream", () => {
    const { book } = connected(0);
    const asked = { lease_id: '1.1.0', account_id: 'acct-x', used: 30, reported_from: 0, reported: [] };
    const back = { lease_id: '1.2.0', account_id: 'acct-y', admitted: [], admitted_from: 0 };
    expect(book.extendLease(asked)).toBe(true);
    expect(book.returnLease(back)).toBe(true);
    expect(book.due).toBe(true);
    const turn = book.flush()!;
    expect(turn.message).toMatchObject({ admissions: [], lease_extensions: [asked], lease_returns: [back] });
    expect(book.due).toBe(false);
    // Asked and not sent when the stream breaks: its lease went with the stream.
    book.extendLease(asked);
    book.broken(10);
    expect(book.extendLease(asked)).toBe(false);
    book.admit(waiter('next'), 1_000);
    expect(book.opened(1_000).flatMap((m) => m.lease_extensions)).toEqual([]);
    expect(book.flush()!.message.lease_extensions).toEqual([]);
  });
});

/**
 * A shard and its streams around the book: messages written are received at once; the shard decides
 * each admission when the run says (or at the end), and its answer reaches the book only over the
 * stream that carried the request, if that stream is still up.
 */
type Step =
  | { kind: 'admit' }
  | { kind: 'flush' }
  | { kind: 'decide'; pick: number; admitted: boolean }
  | { kind: 'deadline'; pick: number }
  | { kind: 'break' }
  | { kind: 'tick'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'admit' as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'flush' as const }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('decide' as const), pick: fc.nat(), admitted: fc.boolean() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deadline' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'break' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.nat(400) }) },
);

interface Run {
  answers: Map<string, string[]>;
  releases: Map<string, number>;
  sentOn: Map<string, number>;
  admittedByShard: Set<string>;
  /** Decisions that reached the book. */
  delivered: Set<string>;
}

function play(steps: Step[]): Run {
  const book = new ShardBook<Waiter, string>(10 * 60_000);
  const run: Run = {
    answers: new Map(),
    releases: new Map(),
    sentOn: new Map(),
    admittedByShard: new Set(),
    delivered: new Set(),
  };
  let now = 0;
  let stream = 0;
  let up = false;
  let next = 0;
  const turns: Turn<Waiter>[] = [];
  const undecided: string[] = [];
  const answer = (w: Waiter, how: string) => run.answers.get(w.request.request_id)!.push(how);
  const write = (m: ledger.AdmitRequest) => {
    for (const a of m.admissions) {
      run.sentOn.set(a.request_id, stream);
      undecided.push(a.request_id);
    }
    for (const r of m.releases) run.releases.set(r.request_id, (run.releases.get(r.request_id) ?? 0) + 1);
  };
  const flush = () => {
    const turn = book.flush();
    if (!turn) return;
    if (up) write(turn.message);
    turns.push(turn);
  };
  const decide = (id: string, admitted: boolean) => {
    undecided.splice(undecided.indexOf(id), 1);
    if (admitted) run.admittedByShard.add(id);
    if (!up || run.sentOn.get(id) !== stream) return;
    run.delivered.add(id);
    const res = result(id, admitted ? D.ADMIT_DECISION_ADMITTED : D.ADMIT_DECISION_QUOTA_EXHAUSTED);
    const w = book.answered(res, now);
    if (w) answer(w, admitted ? 'admitted' : 'refused');
  };
  const admit = (id = `r${next++}`) => {
    const w = waiter(id);
    run.answers.set(id, []);
    const admitting = book.admit(w, now);
    if (admitting === 'refused') return answer(w, '503');
    if (admitting === 'dial') {
      up = true;
      stream++;
      for (const m of book.opened(now)) write(m);
    }
  };
  const end = (ended: { unavailable: readonly Waiter[] }) => {
    for (const w of ended.unavailable) answer(w, '503');
  };
  for (const s of steps) {
    if (s.kind === 'admit') admit();
    else if (s.kind === 'flush') flush();
    else if (s.kind === 'decide' && undecided.length > 0)
      decide(undecided[s.pick % undecided.length]!, s.admitted);
    else if (s.kind === 'deadline' && turns.length > 0) end(book.expire(turns[s.pick % turns.length]!, now));
    else if (s.kind === 'break' && up) {
      up = false;
      end(book.broken(now));
    } else if (s.kind === 'tick') now += s.ms;
  }
  // The end: a flush, every deadline, every decision; a new stream (and its first turn) if none is up.
  flush();
  for (const t of turns) end(book.expire(t, now));
  while (undecided.length > 0) decide(undecided[0]!, true);
  flush();
  if (!up) {
    now += REDIAL_PAUSE_MS;
    admit('filler');
    run.answers.delete('filler');
  }
  return run;
}

describe('ShardBook: whatever the order of results, deadlines and breaks', () => {
  it('answers each request once; releases one given up on once if the shard admitted it (or may have)', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const run = play(steps);
        for (const [id, answers] of run.answers) {
          const released = run.releases.get(id) ?? 0;
          expect(answers, id).toHaveLength(1);
          if (answers[0] !== '503' || !run.sentOn.has(id)) {
            // Answered with the shard's decision (its route settles it), or never sent.
            expect(released, id).toBe(0);
          } else {
            // Refused by the shard: released only when the gateway cannot know (the stream broke first).
            expect(released, id).toBe(run.admittedByShard.has(id) || !run.delivered.has(id) ? 1 : 0);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
