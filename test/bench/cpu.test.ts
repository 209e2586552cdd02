import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  contextSwitches,
  contextSwitchesOf,
  cpuBetween,
  cpuOverIdle,
  type GroupReading,
  switchesPer,
} from '../../bench/cpu.ts';

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

describe("a process's context switches (make bench's waits and preemptions)", () => {
  it('counts a wait each time the event loop sleeps', async () => {
    const before = contextSwitches(process.pid);
    for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 5));
    const after = contextSwitches(process.pid);
    expect(after.voluntary - before.voluntary).toBeGreaterThanOrEqual(10);
    expect(after.involuntary).toBeGreaterThanOrEqual(before.involuntary);
  });

  it('sums processes, and reads a process that is gone as none', () => {
    const own = contextSwitches(process.pid);
    // Beyond the kernel's largest pid (2^22): never a process.
    expect(contextSwitches(4_194_305)).toEqual({ voluntary: 0, involuntary: 0 });
    const both = contextSwitchesOf([process.pid, 4_194_305, process.pid]);
    expect(both.voluntary).toBeGreaterThanOrEqual(2 * own.voluntary);
    expect(both.involuntary).toBeGreaterThanOrEqual(2 * own.involuntary);
  });

  it("reads a request's share between two readings", () => {
    const before = { voluntary: 1_000, involuntary: 40 };
    const after = { voluntary: 1_250, involuntary: 140 };
    expect(switchesPer(before, after, 1_000)).toEqual({ voluntary: 0.25, involuntary: 0.1 });
  });
});

describe("a platform's CPU while nothing is asked of it (make bench's idle line)", () => {
  it('reads each group in ms a second over the spell: a busy process some, a sleeping one none', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      const spinMs = 300;
      const idle = await cpuOverIdle(
        [
          { name: 'busy', pids: () => [process.pid] },
          { name: 'sleeping', pids: () => [sleeper.pid!] },
        ],
        async () => {
          const until = performance.now() + spinMs;
          while (performance.now() < until);
        },
      );
      expect(idle.seconds).toBeGreaterThanOrEqual(spinMs / 1000);
      expect(idle.msPerSecond.get('busy')).toBeGreaterThan(0);
      expect(idle.msPerSecond.get('sleeping')).toBe(0);
    } finally {
      sleeper.kill();
    }
  });
});
