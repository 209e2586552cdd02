// `make chaos` in small: the platform on a private Postgres and NATS under a paced load, each process
// killed with SIGKILL and brought back in turn (test/chaos/runner.ts). The numbers asserted are the
// issue's acceptance criteria: 503 p99 within 300 ms, 200s again within 5 s of the dependency's return.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChaosReport,
  FAULTS,
  type FaultResult,
  formatReport,
  LIMITS,
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
      recoveryTimeoutMs: 12_000,
      settleTimeoutMs: 20_000,
      requestTimeoutMs: 5_000,
    });
  } catch (err) {
    failure = err;
  }
}, 280_000);

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

  it(`serves only 200s again within ${LIMITS.recoveryS} s of the return, without intervention`, () => {
    const r = result(fault);
    expect(r.restartError).toBeUndefined();
    expect(r.recoveryS, JSON.stringify(r.afterBack)).not.toBeNull();
    expect(r.recoveryS!, JSON.stringify(r.afterBack)).toBeLessThanOrEqual(LIMITS.recoveryS);
  });

  it(`answers 503 service_unavailable with Retry-After, p99 within ${LIMITS.refusalP99Ms} ms, and nothing an outage must not produce`, () => {
    const r = result(fault);
    expect(r.refusals503.missingRetryAfter, '503s without Retry-After').toBe(0);
    expect(r.refusals503.wrongCode, '503s with another error.code').toBe(0);
    expect(r.refusals503.p99Ms ?? 0, '503 p99 ms').toBeLessThanOrEqual(LIMITS.refusalP99Ms);
    expect(r.unexpected).toEqual({});
  });
});
