import { describe, expect, it } from 'vitest';
import { PullWatch, pullHeld } from './pull-watch.ts';

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
