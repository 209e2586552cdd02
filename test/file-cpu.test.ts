import { describe, expect, it } from 'vitest';
import { cpuSeconds, summary } from './file-cpu-log.ts';

describe('the CPU of each integration test file', () => {
  it('reads utime, stime, cutime and cstime from a stat line whose command name has spaces and parentheses', () => {
    const stat = '4242 (node (vitest 1)) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 56 7890 120 20 0 11 0';
    expect(cpuSeconds(stat)).toEqual({ self: 12.9, children: 80.1 });
  });

  it('lists the costliest files by CPU, their processes included, with the total', () => {
    const lines = [
      JSON.stringify({ file: 'a.int.test.ts', self: 5, children: 1, wall: 20 }),
      JSON.stringify({ file: 'b.int.test.ts', self: 1, children: 30, wall: 60 }),
      JSON.stringify({ file: 'c.int.test.ts', self: 2, children: 2, wall: 9 }),
      '',
    ];
    const out = summary(lines, 2);
    expect(out[0]).toBe('CPU of the 3 integration test files: 41 s; the costliest:');
    expect(out).toHaveLength(3);
    expect(out[1]).toMatch(/^ +31 s CPU \( +30 s in its processes\) +60 s wall {2}b\.int\.test\.ts$/);
    expect(out[2]).toContain('a.int.test.ts');
  });
});
