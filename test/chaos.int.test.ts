// `make chaos` in small: the platform on a private Postgres and NATS under a paced load, each process
// killed with SIGKILL and brought back in turn (test/chaos/runner.ts). Asserted here is what holds on a
// machine however busy (this file runs beside the whole suite, and 20 times in a row beside it in
// `make test-stress`): exact accounting, only the outcomes a fault allows, Retry-After on every 503, no
// other process dying, and a return to only 200s without intervention. The latency limits (503 p99
// within 300 ms, only 200s within 5 s of the return) are benchmark figures: printed here, enforced by
// `make chaos` and `make bench` on a quiet machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChaosReport,
  FAULTS,
  type FaultResult,
  formatReport,
  HANG_MS,
  runChaos,
  unseenAllowance,
} from './chaos/runner.ts';

let report: ChaosReport | undefined;
let failure: unknown;

beforeAll(async () => {
  try {
    report = await runChaos({
      clients: 8,
      ratePerSecond: 40,
      warmupMs: 1_000,
      downMs: 2_000,
      stableMs: 1_000,
      recoveryTimeoutMs: 30_000,
      settleTimeoutMs: 60_000,
      requestTimeoutMs: HANG_MS,
      // The int-cluster project runs this file again on a three-server JetStream cluster.
      nats: process.env.MDP_TEST_NATS === 'cluster' ? 'cluster' : 'server',
    });
  } catch (err) {
    failure = err;
  }
}, 600_000);

afterAll(() => {
  if (report) console.log(formatReport(report));
});

function result(fault: string): FaultResult {
  if (failure) throw failure;
  const r = report?.results.find((x) => x.fault === fault);
  if (!r) throw new Error(`no result for ${fault}`);
  return r;
}

describe.each(FAULTS)('SIGKILL of %s under load', (fault) => {
  it('charges exactly the 200s the clients saw (a killed gateway may have charged requests it cut off)', () => {
    const r = result(fault);
    expect(r.settled, 'the ledger settled every event').toBe(true);
    expect(r.charged, 'projection equals the event log').toBe(r.chargedInLog);
    expect(r.seen, 'the load saw 200s').toBeGreaterThan(0);
    expect(r.charged!, 'every 200 seen is charged').toBeGreaterThanOrEqual(r.seen);
    expect(r.charged! - r.seen, 'charged without a 200 seen').toBeLessThanOrEqual(unseenAllowance(r));
  });

  it('no other process exits', () => {
    const r = result(fault);
    expect(r.deaths.map((d) => `${d.name} code ${d.code} signal ${d.signal}: ${d.tail.slice(-300)}`)).toEqual(
      [],
    );
  });

  it('serves only 200s again after the return, without intervention', () => {
    const r = result(fault);
    expect(r.restartError).toBeUndefined();
    expect(r.recoveryS, JSON.stringify(r.afterBack)).not.toBeNull();
  });

  it('answers 503 service_unavailable with Retry-After, and nothing an outage must not produce', () => {
    const r = result(fault);
    expect(r.refusals503.missingRetryAfter, '503s without Retry-After').toBe(0);
    expect(r.refusals503.wrongCode, '503s with another error.code').toBe(0);
    expect(r.unexpected).toEqual({});
  });
});
