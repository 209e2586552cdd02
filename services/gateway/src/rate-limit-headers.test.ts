import { ledger } from '@mdp/proto';
import { describe, expect, it } from 'vitest';
import { type PolicyHolder, quotaHeaders, rateLimitHeaders } from './rate-limit-headers.ts';

const D = ledger.AdmitDecision;
const now = Date.parse('2026-02-10T12:00:00Z'); // 17:30 IST; the IST month of February 2026 has 28 days
const resetDay = Date.parse('2026-02-10T18:30:00Z') / 1000;
/** A paid plan's caps: a daily and a monthly window (the free plan has no monthly cap, SPEC 8). */
const paid = { dailyCap: 50, monthlyCap: 1_000 };
const burst = { limit: 60, remaining: 57, reset_seconds: 41 };

describe('rate-limit headers', () => {
  it('an admitted request: the SPEC headers and the IETF policy list and binding window agree', () => {
    const h = rateLimitHeaders(
      {
        decision: D.ADMIT_DECISION_ADMITTED,
        rate_limit: { limit: 50, remaining: 48, reset_unix: resetDay, policy: 'daily' },
        burst,
      },
      paid,
      false,
      now,
    );
    expect(h).toEqual({
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '48',
      'x-ratelimit-reset': String(resetDay),
      'ratelimit-policy': `"daily";q=50;w=86400, "monthly";q=1000;w=${28 * 86_400}, "burst";q=60;w=60`,
      ratelimit: `"daily";r=48;t=${6.5 * 3600}`,
    });
  });

  it('a burst refusal names the burst window with nothing left until a slot frees', () => {
    const h = rateLimitHeaders(
      {
        decision: D.ADMIT_DECISION_RATE_LIMITED,
        rate_limit: { limit: 50, remaining: 10, reset_unix: resetDay, policy: 'daily' },
        burst: { limit: 60, remaining: 0, reset_seconds: 12 },
      },
      paid,
      true,
      now,
    );
    expect(h.ratelimit).toBe('"burst";r=0;t=12');
    expect(h['x-ratelimit-remaining']).toBe('10');
  });

  it('a plan without quota caps binds on the burst window; one without any cap sends no IETF fields', () => {
    const unlimited = { dailyCap: null, monthlyCap: null };
    const admitted = {
      decision: D.ADMIT_DECISION_ADMITTED,
      rate_limit: { reset_unix: resetDay, policy: '' },
    };
    expect(rateLimitHeaders({ ...admitted, burst }, unlimited, false, now)).toEqual({
      'x-ratelimit-reset': String(resetDay),
      'ratelimit-policy': '"burst";q=60;w=60',
      ratelimit: '"burst";r=57;t=41',
    });
    expect(rateLimitHeaders({ ...admitted, burst: undefined }, unlimited, false, now)).toEqual({
      'x-ratelimit-reset': String(resetDay),
    });
  });
  it('one caller’s policy list follows the IST month and the burst cap the ledger applied', () => {
    // The same object for every request of a token, as the auth cache hands it out, and where its list is kept.
    const caller = { dailyCap: 50, monthlyCap: 1_000 };
    const kept: PolicyHolder = {};
    const admitted = (burstLimit: number | undefined) => ({
      decision: D.ADMIT_DECISION_ADMITTED,
      rate_limit: { limit: 50, remaining: 48, reset_unix: resetDay, policy: 'daily' },
      burst: burstLimit === undefined ? undefined : { ...burst, limit: burstLimit },
    });
    const policy = (at: number, burstLimit: number | undefined) =>
      rateLimitHeaders(admitted(burstLimit), caller, false, at, kept)['ratelimit-policy'];
    const february = `"daily";q=50;w=86400, "monthly";q=1000;w=${28 * 86_400}`;
    expect(policy(now, 60)).toBe(`${february}, "burst";q=60;w=60`);
    expect(kept.policy?.text).toBe(`${february}, "burst";q=60;w=60`);
    // 23:59:59.999 IST on 28 February, then 00:00 IST on 1 March (31 days).
    const lastInstant = Date.parse('2026-02-28T18:29:59.999Z');
    expect(policy(lastInstant, 60)).toBe(`${february}, "burst";q=60;w=60`);
    expect(policy(lastInstant + 1, 60)).toBe(
      `"daily";q=50;w=86400, "monthly";q=1000;w=${31 * 86_400}, "burst";q=60;w=60`,
    );
    expect(policy(now, 120)).toBe(`${february}, "burst";q=120;w=60`);
    expect(policy(now, undefined)).toBe(february);
    // Back in a month already seen: made again, not the last one's.
    expect(policy(now, 60)).toBe(`${february}, "burst";q=60;w=60`);
  });
});

describe('the usage read: rate-limit headers without an admission', () => {
  const resetMonth = Date.parse('2026-02-28T18:30:00Z') / 1000;
  const withBurst = { ...paid, burstPerMinute: 60 };

  it('names the binding window at the units used, taking nothing for itself, and the plan’s policies', () => {
    expect(quotaHeaders(withBurst, { day: 12, month: 300, within: now }, now)).toEqual({
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '38',
      'x-ratelimit-reset': String(resetDay),
      'ratelimit-policy': `"daily";q=50;w=86400, "monthly";q=1000;w=${28 * 86_400}, "burst";q=60;w=60`,
      ratelimit: `"daily";r=38;t=${6.5 * 3600}`,
    });
    expect(quotaHeaders(withBurst, { day: 12, month: 980, within: now }, now)).toMatchObject({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '20',
      'x-ratelimit-reset': String(resetMonth),
      ratelimit: `"monthly";r=20;t=${18 * 86_400 + 6.5 * 3600}`,
    });
  });

  it('a used-up day says 0 and when it resets; the free plan binds on its day; an unlimited plan only resets', () => {
    const free = { dailyCap: 50, monthlyCap: null, burstPerMinute: 60 };
    expect(quotaHeaders(free, { day: 50, month: 400, within: now }, now)).toEqual({
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(resetDay),
      'ratelimit-policy': '"daily";q=50;w=86400, "burst";q=60;w=60',
      ratelimit: `"daily";r=0;t=${6.5 * 3600}`,
    });
    // The burst window's state is its shard's: the policy names the cap, RateLimit nothing.
    const unlimited = { dailyCap: null, monthlyCap: null, burstPerMinute: 60 };
    expect(quotaHeaders(unlimited, { day: 9, month: 9, within: now }, now)).toEqual({
      'x-ratelimit-reset': String(resetDay),
      'ratelimit-policy': '"burst";q=60;w=60',
    });
    const uncapped = { ...unlimited, burstPerMinute: null };
    expect(quotaHeaders(uncapped, { day: 9, month: 9, within: now }, now)).toEqual({
      'x-ratelimit-reset': String(resetDay),
    });
  });
});
