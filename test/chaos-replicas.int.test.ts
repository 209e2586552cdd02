// `make chaos`'s SIGSTOP faults in small (test/chaos/replicas.ts): equities-data stopped under a paced
// load of uncached quotes, with private Postgres, NATS and platform processes. Asserted here is what
// holds on a machine however busy: 200s seen = units charged; with two replicas every request answered
// 200; with one, only 502s; either way, once the gateway has ejected the stopped address, no call sent
// to it (its per-address call counter flat until SIGCONT); only 200s again after SIGCONT. The latency
// limits (100 ms after the first miss, 502s within 50 ms, only 200s within 2 s of SIGCONT) are
// benchmark figures: printed here, enforced by `make chaos` on a quiet machine. A CI run on 2 December
// saw an answer begun after the first miss take 1.8 s, which a latency bound read as a wait on the
// stopped replica; the counter tells the two apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLICA_FAULTS, type ReplicaFaultResult } from './chaos/replicas.ts';
import { type ChaosReport, formatReport, HANG_MS, runChaos } from './chaos/runner.ts';

let report: ChaosReport | undefined;
let failure: unknown;

beforeAll(async () => {
  try {
    report = await runChaos({
      clients: 8,
      ratePerSecond: 80,
      warmupMs: 1_500,
      downMs: 2_000,
      stableMs: 1_000,
      recoveryTimeoutMs: 30_000,
      settleTimeoutMs: 60_000,
      requestTimeoutMs: HANG_MS,
      faults: [],
      replicaFaults: REPLICA_FAULTS,
      log: (line) => console.log(line),
    });
  } catch (err) {
    failure = err;
  }
}, 600_000);

afterAll(() => {
  if (report) console.log(formatReport(report));
});

function result(fault: string): ReplicaFaultResult {
  if (failure) throw failure;
  const r = report?.replicaResults.find((x) => x.fault === fault);
  if (!r) throw new Error(`no result for ${fault}`);
  return r;
}

describe.each(REPLICA_FAULTS)('SIGSTOP: %s under load', (fault) => {
  it('charges exactly the 200s the clients saw', () => {
    const r = result(fault);
    expect(r.settled, 'the ledger settled every event').toBe(true);
    expect(r.seen, 'the load saw 200s').toBeGreaterThan(0);
    expect(r.charged, 'units charged').toBe(r.seen);
    expect(r.chargedInLog, 'the event log agrees').toBe(r.charged);
  });

  it('ejects the stopped address, sends it no call until SIGCONT, and no process dies', () => {
    const r = result(fault);
    expect(r.ejectedS, 'the gateway metrics showed it ejected').not.toBeNull();
    expect(r.sentWhileEjected, 'calls sent to the stopped address while ejected').toBe(0);
    expect(r.deaths).toEqual([]);
  });

  it('serves only 200s again after SIGCONT', () => {
    expect(result(fault).recoveryS).not.toBeNull();
  });
});

describe('two replicas, one stopped', () => {
  it('answers every request 200 (or 503 when admission is refused), with requests begun after the first deadline miss', () => {
    const r = result('equities-data-paused-1-of-2');
    // A 503 is the admission refused on a starved machine (uncharged, with Retry-After), not the data path.
    expect(r.unexpected, 'answers other than 200 and 503, with what the gateway logged of each').toEqual([]);
    expect(r.firstMissS, 'a request waited out a deadline').not.toBeNull();
    expect(r.after.count).toBeGreaterThan(20);
  });
});

describe('the only replica stopped', () => {
  it('answers 502 upstream_unavailable, many of them once the breaker is open', () => {
    const r = result('equities-data-paused-only');
    expect(r.unexpected, 'answers other than 200, 502 and 503, with what the gateway logged of each').toEqual(
      [],
    );
    expect(r.outcomes['502 upstream_unavailable']).toBeGreaterThan(0);
    expect(r.after.count).toBeGreaterThan(20);
  });
});
