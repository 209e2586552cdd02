import { describe, expect, it } from 'vitest';
import { envInt } from '../../bench/env.ts';

describe('envInt (bench settings)', () => {
  it('takes a whole number, or the default when unset or empty', () => {
    expect(envInt('BENCH_REQUESTS', 20_000, 1, { BENCH_REQUESTS: '5000' })).toBe(5_000);
    expect(envInt('BENCH_REQUESTS', 20_000, 1, {})).toBe(20_000);
    expect(envInt('BENCH_REQUESTS', 20_000, 1, { BENCH_REQUESTS: ' ' })).toBe(20_000);
    expect(envInt('BENCH_WARMUP', 10_000, 0, { BENCH_WARMUP: '0' })).toBe(0);
  });

  it.each(['abc', '1.5', '-3', '0', '1e400'])('refuses %s, naming the variable', (raw) => {
    expect(() => envInt('BENCH_CONNECTIONS', 50, 1, { BENCH_CONNECTIONS: raw })).toThrow(
      /^BENCH_CONNECTIONS must be a whole number of at least 1 \(got /,
    );
  });
});
