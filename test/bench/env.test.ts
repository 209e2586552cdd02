import { describe, expect, it } from 'vitest';
import { envChoice, envChoices, envInt, envPattern, envScenarios } from '../../bench/env.ts';

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

describe('envChoices (bench scenario lists)', () => {
  const known = ['quote', 'search', 'price', 'accounts'] as const;

  it('takes a comma-separated subset, spaces allowed, and nothing when unset or empty', () => {
    expect(envChoices('BENCH_SCENARIOS', known, { BENCH_SCENARIOS: 'quote, accounts' })).toEqual([
      'quote',
      'accounts',
    ]);
    expect(envChoices('BENCH_SCENARIOS', known, {})).toEqual([]);
    expect(envChoices('BENCH_SCENARIOS', known, { BENCH_SCENARIOS: ' , ' })).toEqual([]);
  });

  it('refuses an unknown entry, naming the variable and the choices', () => {
    expect(() => envChoices('BENCH_SCENARIOS', known, { BENCH_SCENARIOS: 'quote,prices' })).toThrow(
      'BENCH_SCENARIOS: unknown choice "prices" (known: quote, search, price, accounts)',
    );
  });
});

describe('envScenarios (default and opt-in bench scenarios)', () => {
  const defaults = ['quote', 'search', 'price', 'accounts'] as const;
  const optIn = ['burst'] as const;

  it('runs the defaults when none is named, never an opt-in one', () => {
    expect(envScenarios('BENCH_SCENARIOS', defaults, optIn, {})).toEqual([...defaults]);
    expect(envScenarios('BENCH_SCENARIOS', defaults, optIn, { BENCH_SCENARIOS: ' ' })).toEqual([...defaults]);
  });

  it('runs exactly those named, opt-in ones included', () => {
    expect(envScenarios('BENCH_SCENARIOS', defaults, optIn, { BENCH_SCENARIOS: 'burst' })).toEqual(['burst']);
    expect(envScenarios('BENCH_SCENARIOS', defaults, optIn, { BENCH_SCENARIOS: 'quote,burst' })).toEqual([
      'quote',
      'burst',
    ]);
  });

  it('refuses an unknown entry, listing opt-in choices too', () => {
    expect(() => envScenarios('BENCH_SCENARIOS', defaults, optIn, { BENCH_SCENARIOS: 'bursts' })).toThrow(
      'BENCH_SCENARIOS: unknown choice "bursts" (known: quote, search, price, accounts, burst)',
    );
  });
});

describe('envChoice', () => {
  const known = ['deployed', 'machine'] as const;
  it('is the fallback when unset or empty, and the choice when it is one of the known', () => {
    expect(envChoice('BENCH_NATS', known, 'deployed', {})).toBe('deployed');
    expect(envChoice('BENCH_NATS', known, 'deployed', { BENCH_NATS: ' ' })).toBe('deployed');
    expect(envChoice('BENCH_NATS', known, 'deployed', { BENCH_NATS: 'machine' })).toBe('machine');
  });

  it('refuses an unknown value or more than one, naming the variable and the choices', () => {
    expect(() => envChoice('BENCH_NATS', known, 'deployed', { BENCH_NATS: 'cluster' })).toThrow(
      'BENCH_NATS: unknown choice "cluster" (known: deployed, machine)',
    );
    expect(() => envChoice('BENCH_NATS', known, 'deployed', { BENCH_NATS: 'machine,deployed' })).toThrow(
      'BENCH_NATS: one of deployed, machine (got "machine,deployed")',
    );
  });
});

describe('envPattern (bench settings)', () => {
  it('takes a regular expression, or none when unset or empty', () => {
    expect(
      envPattern('BENCH_AB_CALLERS', { BENCH_AB_CALLERS: 'IC_Megamorphic$' })?.test(
        'Builtins_LoadIC_Megamorphic',
      ),
    ).toBe(true);
    expect(envPattern('BENCH_AB_CALLERS', {})).toBeUndefined();
    expect(envPattern('BENCH_AB_CALLERS', { BENCH_AB_CALLERS: '' })).toBeUndefined();
  });

  it('refuses one that does not parse, naming the variable', () => {
    expect(() => envPattern('BENCH_AB_CALLERS', { BENCH_AB_CALLERS: 'Megamorphic(' })).toThrow(
      /BENCH_AB_CALLERS must be a regular expression \(got "Megamorphic\("/,
    );
  });
});
