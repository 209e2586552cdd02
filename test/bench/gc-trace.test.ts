import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CollectionLog, parseCollection, summarise, youngLine } from '../../bench/gc-trace.ts';

/** A Node process that keeps every tenth of its allocations alive, run with `--trace-gc-nvp`. */
function allocating(): Promise<{ collections: ReturnType<CollectionLog['take']>; other: string[] }> {
  const program = `
    const kept = [];
    for (let i = 0; i < 400000; i++) { const o = { i, s: 'x' + i }; if (i % 10 === 0) kept.push(o); }
    console.log('kept', kept.length);
    globalThis.gc();
  `;
  const child = spawn(process.execPath, ['--trace-gc-nvp', '--expose-gc', '-e', program], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const other: string[] = [];
  const log = new CollectionLog(child.stdout, (line) => other.push(line));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve({ collections: log.take(), other }));
  });
}

describe("the garbage collector's lines (--trace-gc-nvp)", () => {
  it("reads Node's own: scavenges with what outlived them, a forced mark-compact, and passes other lines on", async () => {
    const { collections, other } = await allocating();
    expect(other).toEqual(['kept 40000']);
    const young = summarise(collections, 400_000);
    expect(young.scavenges).toBeGreaterThan(0);
    expect(young.majors).toBeGreaterThanOrEqual(1); // gc() forces one
    expect(young.pauseMs).toBeGreaterThan(0);
    // 40,000 objects outlived their allocation: their bytes were copied or promoted by the scavenges.
    expect(young.survivedPerRequest + young.promotedPerRequest).toBeGreaterThan(0);
  });

  it('takes the fields it needs from a line, and no other line', () => {
    const line =
      '[15922:0x1f568000:0]   107664 ms: pause=3.4 mutator=255.1 gc=s scavenge=3.33 allocated=54447416 promoted=313216 new_space_survived=239872 nodes_promoted=1';
    expect(parseCollection(line)).toEqual({
      kind: 's',
      pauseMs: 3.4,
      survivedBytes: 239_872,
      promotedBytes: 313_216,
    });
    expect(parseCollection('{"level":"warn","msg":"x ms: pause=3 gc=s, in a log line"}')).toBeNull();
    expect(parseCollection('[15922:0x1f568000]  12 ms: Scavenge 7.1 (8.2) -> 6.5 (11.2) MB')).toBeNull();
  });

  it('sums what outlived the scavenges over the requests, and takes the median pause', () => {
    const s = (pauseMs: number, survivedBytes: number, promotedBytes: number) => ({
      kind: 's',
      pauseMs,
      survivedBytes,
      promotedBytes,
    });
    const young = summarise(
      [s(2, 1_000, 500), s(4, 3_000, 1_500), s(9, 2_000, 1_000), { ...s(12, 0, 0), kind: 'mc' }],
      100,
    );
    expect(young).toEqual({
      scavenges: 3,
      pauseMs: 4,
      survivedPerRequest: 60,
      promotedPerRequest: 30,
      majors: 1,
    });
  });

  it("says several runs in one line: each figure's median run, the mark-compacts of all", () => {
    const run = (pauseMs: number, survivedPerRequest: number, majors: number) => ({
      scavenges: 10,
      pauseMs,
      survivedPerRequest,
      promotedPerRequest: survivedPerRequest / 2,
      majors,
    });
    expect(youngLine([run(2.4, 130, 0), run(3.0, 170, 2), run(2.6, 150, 1)])).toBe(
      '10 scavenges a run, each pausing 2.6 ms, 150 B a request survived and 75 B promoted (medians of 3 runs), 3 mark-compacts in all',
    );
  });
});
