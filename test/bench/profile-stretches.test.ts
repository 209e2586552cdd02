import { describe, expect, it } from 'vitest';
import {
  busyStretches,
  type CpuProfile,
  parseCpuProfile,
  stretchesByWhat,
} from '../../bench/profile-stretches.ts';

/**
 * A profile of a bundled service: root > run loop > the project's `recordedBatch` > a builtin; root >
 * the garbage collector; root > idle. Samples 1 ms apart unless given.
 */
function profile(samples: number[], deltasUs?: number[]): CpuProfile {
  const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5, 6] },
      {
        id: 2,
        callFrame: frame('processTicksAndRejections', 'node:internal/process/task_queues'),
        children: [3],
      },
      {
        id: 3,
        callFrame: frame('recordedBatch', 'file:///srv/services/quota-ledger/dist/server.js'),
        children: [4],
      },
      { id: 4, callFrame: frame('MapPrototypeSet') },
      { id: 5, callFrame: frame('(garbage collector)') },
      { id: 6, callFrame: frame('(idle)') },
    ],
    startTime: 1_000_000,
    samples,
    timeDeltas: deltasUs ?? samples.map(() => 1_000),
  };
}

describe('busy stretches of a CPU profile (bench/profile-top.ts)', () => {
  it('names each stretch by the project function most of its samples were in, longest first', () => {
    // idle, 5 ms mostly in recordedBatch (a builtin under it counts as it), idle, 3 ms of GC, idle, 6 ms of GC.
    const p = profile([6, 4, 3, 4, 5, 4, 6, 5, 5, 5, 6, 5, 5, 5, 5, 5, 5, 6]);
    const all = busyStretches(p, 0);
    expect(all.map((s) => [s.what, s.ms])).toEqual([
      ['GC', 6],
      ['recordedBatch', 5],
      ['GC', 3],
    ]);
    expect(all[1]!.startUs).toBe(1_000);
    expect(busyStretches(p, 4).map((s) => s.what)).toEqual(['GC', 'recordedBatch']);
    expect(stretchesByWhat(all)).toEqual([
      { what: 'GC', count: 2, longestMs: 6 },
      { what: 'recordedBatch', count: 1, longestMs: 5 },
    ]);
  });

  it('measures a stretch by the time its samples stand for, not by their number', () => {
    const p = profile([6, 3, 3, 6], [1_000, 1_000, 9_000, 1_000]);
    expect(busyStretches(p, 0)).toEqual([{ startUs: 1_000, ms: 10, what: 'recordedBatch' }]);
  });

  it('reads a profile file, and names a file that is not one', () => {
    const p = profile([6, 3]);
    expect(parseCpuProfile(JSON.stringify(p), 'a.cpuprofile')).toEqual(p);
    for (const text of ['{"nodes":[]}', 'not json', 'null', '[]'])
      expect(() => parseCpuProfile(text, 'heap.heapsnapshot')).toThrow(
        'heap.heapsnapshot is not a V8 CPU profile (node --cpu-prof writes them)',
      );
  });
});
