import { describe, expect, it } from 'vitest';
import { burstCapError } from '../../bench/burst-budget.ts';

const business = { cap: 60, plan: 'business', warmup: 10_000 };

describe('burstCapError (pool scenarios within their plan’s burst cap)', () => {
  it('lets the default pools run', () => {
    // capped: 1 + (10,000 + 20,000) / 1,000 = 31; steady: 1 + 10,000 / 2,000 + 60 s / 1.5 s = 46.
    expect(
      burstCapError({
        ...business,
        scenario: 'capped',
        accounts: 1_000,
        run: { requests: 20_000 },
        settings: 's',
      }),
    ).toBeNull();
    expect(
      burstCapError({
        ...business,
        scenario: 'steady',
        accounts: 2_000,
        run: { periodMs: 1_500 },
        settings: 's',
      }),
    ).toBeNull();
    // Exactly the cap is within it.
    expect(
      burstCapError({
        ...business,
        scenario: 'capped',
        accounts: 1_000,
        run: { requests: 49_000 },
        settings: 's',
      }),
    ).toBeNull();
  });

  it('refuses a pool over the cap, naming the scenario, the count, the settings and the plan', () => {
    expect(
      burstCapError({
        ...business,
        scenario: 'capped',
        accounts: 1_000,
        run: { requests: 49_001 },
        settings: 'BENCH_WARMUP, BENCH_REQUESTS, BENCH_ACCOUNTS',
      }),
    ).toBe(
      "capped: 61 requests an account within a minute (BENCH_WARMUP, BENCH_REQUESTS, BENCH_ACCOUNTS), over the business plan's burst cap of 60 a minute: every request past it would be a 429",
    );
    // Called every 900 ms: 67 a minute of the run alone.
    expect(
      burstCapError({
        ...business,
        scenario: 'steady',
        accounts: 2_000,
        run: { periodMs: 900 },
        settings: 'BENCH_WARMUP, BENCH_STEADY_ACCOUNTS, BENCH_STEADY_PERIOD_MS',
      }),
    ).toMatch(/^steady: 73 requests an account within a minute \(BENCH_WARMUP, BENCH_STEADY_ACCOUNTS, /);
    // A small pool takes a large share of the warm-up.
    expect(
      burstCapError({
        ...business,
        scenario: 'steady',
        accounts: 200,
        run: { periodMs: 1_500 },
        settings: 's',
      }),
    ).toMatch(/^steady: 91 requests/);
  });
});
