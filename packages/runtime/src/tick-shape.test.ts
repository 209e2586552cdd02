import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keepTickShape } from './tick-shape.ts';

const MODULE = fileURLToPath(new URL('./tick-shape.ts', import.meta.url));

/**
 * A process that queues ticks between eight full collections, with or without a tick object kept: the
 * lines of V8's `--trace-deopt` saying it threw away compiled `nextTick` for a map the collector freed.
 */
function nextTickDropped(keep: boolean): string[] {
  const script = `
    if (${keep}) (await import(${JSON.stringify(MODULE)})).keepTickShape();
    const ticks = (n) => new Promise((done) => {
      let k = 0;
      const step = () => (++k < n ? process.nextTick(step) : done());
      process.nextTick(step);
    });
    for (let i = 0; i < 8; i++) {
      await ticks(200_000);
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 5));
    }`;
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--trace-deopt', '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .split('\n')
    .filter(
      (l) => l.includes('<SharedFunctionInfo nextTick>') && l.includes('embedded weak objects cleared'),
    );
}

describe('a tick object kept for the life of the process', () => {
  it('is one of the objects process.nextTick queues, the same one every call', () => {
    const kept = keepTickShape();
    expect(kept).toBeDefined();
    expect(typeof (kept as { callback?: unknown }).callback).toBe('function');
    expect(Object.getOwnPropertySymbols(kept).length).toBeGreaterThanOrEqual(2);
    expect(keepTickShape()).toBe(kept);
  });

  it("keeps V8's compiled nextTick through full collections, which throw it away otherwise", () => {
    expect(nextTickDropped(false).length, 'without one kept (Node 24)').toBeGreaterThan(0);
    expect(nextTickDropped(true)).toEqual([]);
  });
});
