import { describe, expect, it } from 'vitest';
import { testWorkers } from './workers.ts';

describe('test workers', () => {
  it('follow the cores on a quiet machine and the load on a busy one, never below two', () => {
    expect(testWorkers(2, 0.3)).toBe(4);
    expect(testWorkers(2, 2.4)).toBe(4);
    expect(testWorkers(2, 4)).toBe(2);
    expect(testWorkers(2, 11.6)).toBe(2);
    expect(testWorkers(8, 0)).toBe(16);
    expect(testWorkers(8, 12)).toBe(12);
  });
});
