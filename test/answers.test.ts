import { describe, expect, it } from 'vitest';
import { type Answer, longestRefusals, longestStretch } from './answers.ts';

/** An answer to a request sent at `sent` that took `ms` to come. */
const answer = (status: number, sent: number, ms: number): Answer => ({
  status,
  retryAfter: status === 503 ? '1' : null,
  remaining: null,
  burstRemaining: null,
  at: sent + ms,
  ms,
});

describe('longestRefusals', () => {
  it('spans a run of 503s from its first sending to its last arrival', () => {
    const answers = [
      answer(200, 0, 10),
      answer(503, 100, 5),
      answer(503, 400, 20),
      answer(503, 700, 50),
      answer(200, 1_000, 10),
      answer(503, 1_100, 10),
      answer(200, 1_200, 10),
    ];
    const r = longestRefusals(answers);
    expect(r).toMatchObject({ ms: 650, from: 100, to: 750 });
    expect(r.answers.map((a) => a.at)).toEqual([105, 420, 750]);
  });

  it('is not lengthened by a 200 slow to come, where the stretch between 200s is', () => {
    const answers = [answer(200, 0, 10), answer(503, 100, 10), answer(503, 400, 10), answer(200, 700, 1_500)];
    expect(longestRefusals(answers).ms).toBe(310);
    expect(longestStretch(answers).ms).toBe(2_190);
  });

  it('orders answers by their sending, so 200s sent between refusals split them', () => {
    // Two callers at once: the 200 sent at 300 arrives after the 503 sent at 400, and still ends the run
    // begun at 0; the run from 400 is the longest.
    const answers = [answer(503, 0, 10), answer(503, 400, 10), answer(200, 300, 500), answer(503, 900, 10)];
    expect(longestRefusals(answers)).toMatchObject({ ms: 510, from: 400, to: 910 });
  });

  it('counts a run that the load ended in, and nothing when every answer is a 200', () => {
    expect(longestRefusals([answer(200, 0, 10), answer(503, 50, 10), answer(503, 3_000, 10)]).ms).toBe(2_960);
    expect(longestRefusals([answer(200, 0, 10), answer(200, 50, 10)])).toMatchObject({ ms: 0, answers: [] });
  });
});
