import { describe, expect, it } from 'vitest';
import { Mutex } from './mutex.ts';

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
}

describe('Mutex.gathering', () => {
  it('runs the keys asked for while the mutex is busy together, once each, and the later ones in the next run', async () => {
    const mutex = new Mutex();
    const runs: string[][] = [];
    const started = gate();
    const finish = gate();
    const load = mutex.gathering<string>(async (keys) => {
      runs.push(keys);
      started.open();
      await finish.opened;
    });
    const busy = gate();
    const holding = mutex.run(() => busy.opened);

    const first = ['a', 'b', 'a', 'c'].map(load);
    busy.open();
    await holding;
    await started.opened;
    // The run has started with a, b and c: d waits for the next one.
    const later = load('d');
    finish.open();
    await Promise.all(first);
    await later;
    expect(runs).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('rejects every key of a run that fails, and the next ask starts a new run', async () => {
    const mutex = new Mutex();
    let fail = true;
    const load = mutex.gathering<number>(async () => {
      if (fail) throw new Error('the database is away');
    });
    const asked = [load(1), load(2)];
    for (const p of asked) await expect(p).rejects.toThrow('the database is away');
    fail = false;
    await expect(load(1)).resolves.toBeUndefined();
  });
});
