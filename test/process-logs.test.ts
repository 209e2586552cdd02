import { describe, expect, it } from 'vitest';
import { logsBetween } from './process-logs.ts';

/** A process's JSON log line at `ms` since the epoch, as pino writes it. */
const line = (ms: number, msg: string, fields: Record<string, unknown> = {}) =>
  `${JSON.stringify({ level: 'info', time: new Date(ms).toISOString(), pid: 1, msg, ...fields })}\n`;

describe('logsBetween', () => {
  it("tells each process's lines in the window from the mark, and counts per-request failures by code", () => {
    const gateway = [
      line(900, 'before the window'),
      line(1_000, 'request failed: dependency unavailable', { code: 'service_unavailable', reqId: 'a' }),
      line(1_010, 'admission stream to the ledger closed', { why: 'ended by the ledger' }),
      line(1_020, 'request failed: dependency unavailable', { code: 'service_unavailable', reqId: 'b' }),
      line(2_500, 'after the window'),
    ];
    const told = logsBetween(
      [
        { name: 'the gateway', output: gateway },
        { name: 'a shard', output: [] },
      ],
      1_000,
      2_000,
      1_005,
    );
    expect(told).toBe(
      [
        `the gateway (and 'request failed' by code: {"service_unavailable":2}):`,
        '  5 ms info admission stream to the ledger closed {"why":"ended by the ledger"}',
        'a shard: nothing',
      ].join('\n'),
    );
  });

  it('keeps the last 30 lines of a busy process, and says how many there were', () => {
    // Written in chunks that split lines, as a child's output arrives.
    const text = Array.from({ length: 40 }, (_, i) => line(1_000 + i, `step ${i}`)).join('');
    const output = [text.slice(0, 100), text.slice(100)];
    const told = logsBetween([{ name: 'a shard', output }], 0, 5_000, 1_000).split('\n');
    expect(told[0]).toBe('a shard (the last 30 of 40):');
    expect(told.slice(1)).toEqual(Array.from({ length: 30 }, (_, i) => `  ${i + 10} ms info step ${i + 10}`));
  });
});
