import type { Pool } from '@mdp/db';
import type { Logger } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import type { AccountBook } from './account-book.ts';
import { handOver } from './handover.ts';
import type { Shard } from './shard.ts';
import type { ShardRegistry } from './shard-registry.ts';

/**
 * A stopping shard with its waits played on a clock of its own: `recall` and `record` say how long each
 * wait takes (ms of the clock), or that recording never ends within what it is given.
 */
function stopping(o: { recall: number; record: number | 'never'; leasesOut?: number }) {
  let now = 1_000_000;
  const waits: { recall?: number; record?: number } = {};
  const lines: { level: 'info' | 'warn'; fields: Record<string, unknown>; msg: string }[] = [];
  const statements: string[] = [];
  const shard = {
    stopAdmitting: () => {},
    recallAll: async (ms: number) => {
      waits.recall = ms;
      now += Math.min(o.recall, ms);
    },
  } as unknown as Shard;
  const registry = {
    stopRefreshing: async () => {},
    runs: () => ({ subject: 0, own: [], reliefs: [] }),
  } as unknown as ShardRegistry;
  const book = { leasesOut: o.leasesOut ?? 0, heldRequests: () => [] } as unknown as AccountBook;
  const pool = {
    query: async () => ({ rows: [{ now }] }),
    connect: async () => ({
      query: async (sql: string) => {
        statements.push(sql);
        return { rows: [] };
      },
      release: () => {},
    }),
  } as unknown as Pool;
  const recordedPast = async (ms: number) => {
    waits.record = ms;
    if (o.record === 'never' || o.record > ms) {
      now += ms;
      throw new Error('the usage stream is not recorded up to the read yet');
    }
    now += o.record;
  };
  const log =
    (level: 'info' | 'warn') =>
    (fields: Record<string, unknown>, msg: string): void => {
      lines.push({ level, fields, msg });
    };
  const logger = { info: log('info'), warn: log('warn') } as unknown as Logger;
  return {
    run: (budget: number) =>
      handOver({ shard, book, registry, pool, recordedPast, clock: () => now, logger }, budget),
    waits,
    lines,
    handedOver: () => statements.includes('COMMIT'),
  };
}

describe('a graceful stop hands over within one budget', () => {
  it('gives the recording what the recall left of the budget, and says how long it took and each step', async () => {
    const s = stopping({ recall: 300, record: 4_000 });
    await s.run(5_000);
    expect(s.waits).toEqual({ recall: 2_000, record: 4_700 });
    expect(s.handedOver()).toBe(true);
    expect(s.lines).toEqual([
      {
        level: 'info',
        fields: { holds: 0, ms: 4_300, steps: { recalled: 300, registryStopped: 300, recorded: 4_300 } },
        msg: 'handed over: accounts moving elsewhere move now',
      },
    ]);
  });

  it('waits at most 2 s for leases, so a holder that never answers leaves the recording its time', async () => {
    const s = stopping({ recall: Number.POSITIVE_INFINITY, record: 2_500 });
    await s.run(5_000);
    expect(s.waits).toEqual({ recall: 2_000, record: 3_000 });
    // Its lease came back after the recall's wait, before the recording ended: the hand-over is complete.
    expect(s.handedOver()).toBe(true);
  });

  it('hands nothing over once the budget is spent, and logs why, after how long, of what budget, and the steps done', async () => {
    const s = stopping({ recall: 0, record: 'never' });
    await s.run(1_500);
    expect(s.waits).toEqual({ recall: 1_500, record: 1_500 });
    expect(s.handedOver()).toBe(false);
    expect(s.lines).toEqual([
      {
        level: 'warn',
        fields: {
          err: 'the usage stream is not recorded up to the read yet',
          ms: 1_500,
          budgetMs: 1_500,
          steps: { recalled: 0, registryStopped: 0 },
        },
        msg: 'no hand-over: accounts moving elsewhere move a hold TTL after this run ends',
      },
    ]);
  });

  it('hands nothing over while a lease is out, however soon everything is recorded', async () => {
    const s = stopping({ recall: 2_000, record: 0, leasesOut: 1 });
    await s.run(5_000);
    expect(s.handedOver()).toBe(false);
    expect(s.lines[0]).toMatchObject({ level: 'warn', fields: { err: '1 leases are not back' } });
  });
});
