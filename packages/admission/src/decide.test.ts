import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BurstWindow } from './burst-window.ts';
import { BURST_LIMIT, BURST_WINDOW_MS, type Caps, decide, quotaFigures } from './decide.ts';

const at = (iso: string) => Date.parse(iso);
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const FREE = { daily: 50, monthly: null };
const PRO = { daily: 5000, monthly: 100000 };
const UNLIMITED = { daily: null, monthly: null };
const none = { burst: [], day: 0, month: 0 };

describe('quota', () => {
  const now = at('2026-03-14T10:00:00Z');

  it('admits the 50th request of a free day and counts it in Remaining', () => {
    expect(decide(FREE, { ...none, day: 49 }, now)).toEqual({
      kind: 'admitted',
      rateLimit: { limit: 50, remaining: 0, resetUnix: unix('2026-03-14T18:30:00Z'), policy: 'daily' },
      burst: { limit: 60, remaining: 59, resetSeconds: 60 },
    });
  });

  it('refuses the 51st until the IST day resets, consuming nothing', () => {
    const d = decide(FREE, { ...none, day: 50 }, now);
    expect(d).toEqual({
      kind: 'quota_exhausted',
      retryAfterSeconds: 8.5 * 3600,
      rateLimit: { limit: 50, remaining: 0, resetUnix: unix('2026-03-14T18:30:00Z'), policy: 'daily' },
      burst: { limit: 60, remaining: 60, resetSeconds: 0 },
    });
  });

  it('the daily window resets at 18:30:00Z exactly', () => {
    expect(decide(FREE, { ...none, day: 50 }, at('2026-03-14T18:29:59Z'))).toMatchObject({
      kind: 'quota_exhausted',
      retryAfterSeconds: 1,
    });
    // At 18:30:00Z the caller's day count is that of the new day (zero).
    expect(decide(FREE, { ...none, day: 0 }, at('2026-03-14T18:30:00Z'))).toEqual({
      kind: 'admitted',
      rateLimit: { limit: 50, remaining: 49, resetUnix: unix('2026-03-15T18:30:00Z'), policy: 'daily' },
      burst: { limit: 60, remaining: 59, resetSeconds: 60 },
    });
  });

  it('a monthly cap that is used up wins even when the day has room, until the IST month turns', () => {
    const d = decide(PRO, { ...none, day: 10, month: 100000 }, at('2026-01-31T18:29:59Z'));
    expect(d).toEqual({
      kind: 'quota_exhausted',
      retryAfterSeconds: 1,
      rateLimit: { limit: 100000, remaining: 0, resetUnix: unix('2026-01-31T18:30:00Z'), policy: 'monthly' },
      burst: { limit: 60, remaining: 60, resetSeconds: 0 },
    });
  });

  it('when both are used up, Retry-After waits for the later reset', () => {
    const d = decide(PRO, { ...none, day: 5000, month: 100000 }, at('2026-01-10T00:00:00Z'));
    expect(d).toMatchObject({
      kind: 'quota_exhausted',
      rateLimit: { resetUnix: unix('2026-01-31T18:30:00Z') },
    });
  });
});

describe('binding window for the headers', () => {
  const now = at('2026-03-20T06:00:00Z');

  it('is the daily window while it leaves less or equal headroom', () => {
    expect(decide(PRO, { ...none, day: 100, month: 1000 }, now)).toMatchObject({
      rateLimit: { limit: 5000, remaining: 4899, resetUnix: unix('2026-03-20T18:30:00Z') },
    });
  });

  it('switches to the monthly window when that leaves less headroom', () => {
    // Day headroom 4900; month headroom 100000 - 96000 = 4000 < 4900.
    expect(decide(PRO, { ...none, day: 100, month: 96000 }, now)).toMatchObject({
      rateLimit: { limit: 100000, remaining: 3999, resetUnix: unix('2026-03-31T18:30:00Z') },
    });
  });

  it('unlimited plans omit limit and remaining but still say when the day resets', () => {
    expect(decide(UNLIMITED, { ...none, day: 1e6, month: 1e7 }, now)).toEqual({
      kind: 'admitted',
      rateLimit: { limit: null, remaining: null, resetUnix: unix('2026-03-20T18:30:00Z'), policy: null },
      burst: { limit: 60, remaining: 59, resetSeconds: 60 },
    });
  });

  it('a monthly-only plan binds on the month', () => {
    expect(decide({ daily: null, monthly: 300 }, { ...none, month: 10 }, now)).toMatchObject({
      rateLimit: { limit: 300, remaining: 289 },
    });
  });

  it('a read that admits nothing (the usage document) names the same window, taking nothing for itself', () => {
    expect(quotaFigures(PRO, { day: 100, month: 1000 }, now)).toEqual({
      limit: 5000,
      remaining: 4900,
      resetUnix: unix('2026-03-20T18:30:00Z'),
      policy: 'daily',
    });
    expect(quotaFigures(PRO, { day: 100, month: 96000 }, now)).toEqual({
      limit: 100000,
      remaining: 4000,
      resetUnix: unix('2026-03-31T18:30:00Z'),
      policy: 'monthly',
    });
    expect(quotaFigures(FREE, { day: 50, month: 700 }, now)).toMatchObject({ limit: 50, remaining: 0 });
    expect(quotaFigures(UNLIMITED, { day: 7, month: 7 }, now)).toEqual({
      limit: null,
      remaining: null,
      resetUnix: unix('2026-03-20T18:30:00Z'),
      policy: null,
    });
    // Whatever the counts (either window used up, or both), what an admission at the same counts says,
    // but for the unit an admitted request takes.
    fc.assert(
      fc.property(fc.nat(6000), fc.nat(120_000), (day, month) => {
        const read = quotaFigures(PRO, { day, month }, now);
        const asked = decide(PRO, { ...none, day, month }, now);
        const taken = asked.kind === 'admitted' ? 1 : 0;
        expect(read).toEqual({ ...asked.rateLimit, remaining: asked.rateLimit.remaining! + taken });
      }),
    );
  });
});

describe('burst cap', () => {
  const t0 = at('2026-03-20T06:00:00Z');
  const full = Array.from({ length: BURST_LIMIT }, (_, i) => t0 + i * 100);

  it('refuses the 61st request within 60 s, saying when the oldest leaves the window', () => {
    const now = t0 + 10_000;
    expect(decide(PRO, { burst: full, day: 60, month: 60 }, now)).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 50,
      rateLimit: { limit: 5000, remaining: 4940 },
      burst: { limit: 60, remaining: 0, resetSeconds: 50 },
    });
  });

  it('says what is left of the burst window after each admission and when its oldest leaves', () => {
    const ten = full.slice(0, 10);
    expect(decide(PRO, { burst: ten, day: 10, month: 10 }, t0 + 20_000).burst).toEqual({
      limit: 60,
      remaining: 49,
      resetSeconds: 40,
    });
  });

  it('admits it once the first admission is 60 s old', () => {
    expect(decide(PRO, { burst: full, day: 60, month: 60 }, t0 + 60_000).kind).toBe('admitted');
    expect(decide(PRO, { burst: full, day: 60, month: 60 }, t0 + 59_999).kind).toBe('rate_limited');
  });

  it('a plan without a burst cap (the load-test plan) is never rate limited, and still quota capped', () => {
    const noBurst = { daily: 5000, monthly: null, burst: null };
    const d = decide(noBurst, { burst: full, day: 60, month: 60 }, t0 + 1000);
    expect(d).toMatchObject({ kind: 'admitted', burst: null, rateLimit: { remaining: 4939 } });
    expect(decide(noBurst, { burst: [], day: 5000, month: 5000 }, t0).kind).toBe('quota_exhausted');
  });

  it('applies to unlimited plans too', () => {
    expect(decide(UNLIMITED, { burst: full, day: 0, month: 0 }, t0 + 1000).kind).toBe('rate_limited');
  });

  it('reports quota before burst when both refuse', () => {
    expect(decide(FREE, { burst: full, day: 50, month: 50 }, t0 + 1000).kind).toBe('quota_exhausted');
  });
});

/**
 * The burst part of a decision as `decide` computed it when the window was an array it filtered and
 * copied: the reference the ring buffer must match exactly.
 */
function naiveBurst(caps: Caps, times: readonly number[], quotaExhausted: boolean, now: number) {
  const recent = times.filter((t) => t > now - BURST_WINDOW_MS);
  const burst = caps.burst === undefined ? BURST_LIMIT : caps.burst;
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const figures = (limit: number, admissions: number[]) => ({
    limit,
    remaining: Math.max(0, limit - admissions.length),
    resetSeconds: admissions.length > 0 ? seconds(admissions[0]! + BURST_WINDOW_MS - now) : 0,
  });
  if (quotaExhausted)
    return { kind: 'quota_exhausted', burst: burst === null ? null : figures(burst, recent) };
  if (burst !== null && recent.length >= burst) {
    const retryAfterSeconds = seconds(recent[recent.length - burst]! + BURST_WINDOW_MS - now);
    return {
      kind: 'rate_limited',
      retryAfterSeconds,
      burst: { limit: burst, remaining: 0, resetSeconds: retryAfterSeconds },
    };
  }
  return { kind: 'admitted', burst: burst === null ? null : figures(burst, [...recent, now]) };
}

describe('burst window read through BurstWindow', () => {
  const t0 = at('2026-03-20T06:00:00Z');

  it('decides exactly as the filtered array did, and the same from a BurstWindow as from an array (property)', () => {
    const input = fc.record({
      // Offsets from t0, sorted below: some older than the minute before `now`, some within it.
      offsets: fc.array(fc.integer({ min: 0, max: 150_000 }), { maxLength: 300 }),
      nowOffset: fc.integer({ min: 0, max: 200_000 }),
      burst: fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer({ min: 1, max: 320 })),
      daily: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 100 })),
      used: fc.nat(120),
      // Evict (as the book does before deciding) or hand over the stale times too.
      evicted: fc.boolean(),
    });
    fc.assert(
      fc.property(input, ({ offsets, nowOffset, burst, daily, used, evicted }) => {
        const times = offsets.map((o) => t0 + o).sort((a, b) => a - b);
        const now = t0 + nowOffset;
        const window = new BurstWindow();
        for (const t of times) window.push(t);
        if (evicted) window.evictThrough(now - BURST_WINDOW_MS);
        const caps: Caps = { daily, monthly: null, ...(burst === undefined ? {} : { burst }) };
        const usage = { day: used, month: used };
        const fromWindow = decide(caps, { ...usage, burst: window }, now);
        expect(fromWindow).toEqual(decide(caps, { ...usage, burst: times }, now));
        expect(fromWindow).toMatchObject(naiveBurst(caps, times, daily !== null && used >= daily, now));
      }),
      { numRuns: 1_000 },
    );
  });
});
