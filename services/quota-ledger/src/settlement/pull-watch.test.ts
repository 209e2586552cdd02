import { describe, expect, it } from 'vitest';
import { HELD_LOOKS_MS, type HeldLooks, lookUntilHeld, PullWatch, pullHeld } from './pull-watch.ts';

const MAX = 100;

describe('PullWatch', () => {
  it('says a pull is lost when messages wait through a whole interval and none came', () => {
    const watch = new PullWatch(MAX);
    expect(watch.lost({ pending: 5, ackPending: 0, received: 0 })).toBe(false);
    expect(watch.lost({ pending: 9, ackPending: 0, received: 0 })).toBe(true);
  });

  it('does not while messages come, however many wait', () => {
    const watch = new PullWatch(MAX);
    for (let i = 0; i < 5; i++) expect(watch.lost({ pending: 500, ackPending: 10, received: 1 })).toBe(false);
  });

  it('does not for a message published just before a look after a quiet interval', () => {
    const watch = new PullWatch(MAX);
    expect(watch.lost({ pending: 0, ackPending: 0, received: 0 })).toBe(false);
    expect(watch.lost({ pending: 1, ackPending: 0, received: 0 })).toBe(false);
  });

  it('does not when JetStream may deliver no more (max_ack_pending reached: recording is what waits)', () => {
    const watch = new PullWatch(MAX);
    watch.lost({ pending: 50, ackPending: MAX, received: 0 });
    expect(watch.lost({ pending: 50, ackPending: MAX, received: 0 })).toBe(false);
  });

  it('gives a new pull a whole interval before saying it is lost too', () => {
    const watch = new PullWatch(MAX);
    watch.lost({ pending: 5, ackPending: 0, received: 0 });
    expect(watch.lost({ pending: 5, ackPending: 0, received: 0 })).toBe(true);
    expect(watch.lost({ pending: 5, ackPending: 0, received: 0 })).toBe(false);
    expect(watch.lost({ pending: 5, ackPending: 0, received: 0 })).toBe(true);
  });
});

describe('pullHeld', () => {
  it('is held while the leader has a pull waiting, or delivered since the pull', () => {
    expect(pullHeld({ waiting: 1, received: 0 })).toBe(true);
    expect(pullHeld({ waiting: 0, received: 3 })).toBe(true);
  });

  it('is not when the leader has no pull waiting and nothing came', () => {
    expect(pullHeld({ waiting: 0, received: 0 })).toBe(false);
  });
});

/**
 * A consumer as the looks see it: `seen[i]` is what JetStream says at look i (null: no answer, as in an
 * election); `arriving[i]` messages come during the wait before it; `newerMoveAt` ends the move's looks
 * at that look.
 */
function consumerOf(opts: {
  seen: ({ waiting: number } | null)[];
  arriving?: number[];
  newerMoveAt?: number;
  /** What the process had received before the move. */
  receivedBefore?: number;
}) {
  let at = -1;
  let received = opts.receivedBefore ?? 0;
  const waits: number[] = [];
  const pulledAgain: (string | undefined)[] = [];
  const looks: HeldLooks = {
    sleep: async (ms) => {
      waits.push(ms);
      at++;
      received += opts.arriving?.[at] ?? 0;
    },
    look: async () => {
      const seen = opts.seen[at];
      return seen === undefined || seen === null ? null : { ...seen, leader: `n${at}` };
    },
    received: () => received,
    current: () => opts.newerMoveAt === undefined || at < opts.newerMoveAt,
    pullAgain: async (leader) => {
      pulledAgain.push(leader);
    },
  };
  return { looks, waits, pulledAgain };
}

describe('lookUntilHeld', () => {
  it('pulls again at each look while the leader holds no pull and nothing came, until one is held', async () => {
    const c = consumerOf({ seen: [{ waiting: 0 }, { waiting: 0 }, { waiting: 1 }] });
    expect(await lookUntilHeld(c.looks)).toBe('held');
    expect(c.pulledAgain).toEqual(['n0', 'n1']);
    expect(c.waits).toEqual(HELD_LOOKS_MS.slice(0, 3));
  });

  it('takes messages received since the look before as a held pull, whatever the leader says', async () => {
    const c = consumerOf({ seen: [{ waiting: 0 }, { waiting: 0 }], arriving: [0, 4] });
    expect(await lookUntilHeld(c.looks)).toBe('held');
    expect(c.pulledAgain).toEqual(['n0']);
  });

  it("reads the process's running total from where it stood at each look, not from nothing", async () => {
    const c = consumerOf({ seen: [{ waiting: 0 }, { waiting: 0 }, { waiting: 1 }], receivedBefore: 250 });
    expect(await lookUntilHeld(c.looks)).toBe('held');
    expect(c.pulledAgain).toEqual(['n0', 'n1']);
  });

  it('skips a look JetStream does not answer (an election) and looks again', async () => {
    const c = consumerOf({ seen: [null, { waiting: 0 }, { waiting: 2 }] });
    expect(await lookUntilHeld(c.looks)).toBe('held');
    expect(c.pulledAgain).toEqual(['n1']);
  });

  it('stops without pulling once a newer move (or a reopening, or a stop) replaces its looks', async () => {
    const c = consumerOf({ seen: [{ waiting: 0 }, { waiting: 0 }, { waiting: 0 }], newerMoveAt: 1 });
    expect(await lookUntilHeld(c.looks)).toBe('replaced');
    expect(c.pulledAgain).toEqual(['n0']);
    expect(c.waits).toHaveLength(2);
  });

  it('gives up after its last look when no pull was ever held, having pulled again at each', async () => {
    const c = consumerOf({ seen: HELD_LOOKS_MS.map(() => ({ waiting: 0 })) });
    expect(await lookUntilHeld(c.looks)).toBe('unconfirmed');
    expect(c.pulledAgain).toHaveLength(HELD_LOOKS_MS.length);
    expect(c.waits).toEqual([...HELD_LOOKS_MS]);
  });
});
