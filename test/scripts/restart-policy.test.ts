import { describe, expect, it } from 'vitest';
import { RestartTracker } from '../../scripts/lib/restart-policy.ts';

const policy = {
  initialDelayMs: 250,
  maxDelayMs: 2_000,
  stableAfterMs: 30_000,
  crashLoop: { exits: 5, withinMs: 120_000 },
};

describe('make run restart policy', () => {
  it('restarts quick exits after doubling delays, capped', () => {
    let now = 0;
    const t = new RestartTracker({ ...policy, crashLoop: { exits: 100, withinMs: 1 } }, () => now);
    const delays = [];
    for (let i = 0; i < 6; i++) {
      now += 1_000;
      const d = t.exited(now - 500);
      expect(d.restart).toBe(true);
      if (d.restart) delays.push(d.delayMs);
    }
    expect(delays).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000]);
  });

  it('starts again from the first delay after a process stayed up', () => {
    let now = 0;
    const t = new RestartTracker(policy, () => now);
    now = 1_000;
    t.exited(900);
    now = 2_000;
    expect(t.exited(1_900)).toMatchObject({ delayMs: 500 });
    now = 100_000;
    expect(t.exited(40_000)).toMatchObject({ restart: true, delayMs: 250 });
  });

  it('gives up on a crash loop: the fifth exit within two minutes', () => {
    let now = 0;
    const t = new RestartTracker(policy, () => now);
    for (let i = 0; i < 4; i++) {
      now += 10_000;
      expect(t.exited(now - 100).restart).toBe(true);
    }
    now += 10_000;
    expect(t.exited(now - 100)).toEqual({ restart: false, why: '5 exits within 120 s' });
  });

  it('exits spread beyond the window are not a loop', () => {
    let now = 0;
    const t = new RestartTracker(policy, () => now);
    for (let i = 0; i < 10; i++) {
      now += 40_000;
      expect(t.exited(now - 100).restart).toBe(true);
    }
  });
});
