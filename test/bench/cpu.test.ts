import { describe, expect, it } from 'vitest';
import { cpuBetween, type GroupReading } from '../../bench/cpu.ts';

const reading = (byPid: [number, number][], reaped: number): GroupReading => ({
  byPid: new Map(byPid),
  reaped,
});

describe('CPU of a process group between two readings (make bench)', () => {
  it('sums what each live process used in between, new ones from zero', () => {
    expect(
      cpuBetween(
        reading(
          [
            [1, 10],
            [2, 5],
          ],
          0,
        ),
        reading(
          [
            [1, 12],
            [2, 5.5],
            [3, 0.25],
          ],
          0,
        ),
      ),
    ).toBeCloseTo(2.75);
  });

  it('counts a child that ended in between only for what it used after the first reading', () => {
    // Backend 7 had used 60 s before the window and 0.5 s in it; its parent reaps all 60.5.
    const before = reading(
      [
        [1, 1],
        [7, 60],
      ],
      100,
    );
    const after = reading([[1, 1.25]], 160.5);
    expect(cpuBetween(before, after)).toBeCloseTo(0.75);
  });

  it('counts a child that started and ended inside the window in full', () => {
    expect(cpuBetween(reading([[1, 1]], 100), reading([[1, 1]], 100.4))).toBeCloseTo(0.4);
  });
});
