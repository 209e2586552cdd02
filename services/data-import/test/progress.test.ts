import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { KindResult } from '../src/import-folder.ts';
import { progressEvents } from '../src/progress.ts';

const result = (kind: string, files: number, error?: string): KindResult => ({
  kind,
  service: 'equities-data',
  files: Array.from({ length: files }, (_, i) => `${kind}-${i}.csv`),
  read: 5,
  loaded: 4,
  rejected: 1,
  changed: 4,
  reasons: {},
  reasonKinds: [],
  seconds: 0.2,
  error,
});

function stream(tty: boolean) {
  const s = Object.assign(new PassThrough(), {
    isTTY: tty,
    columns: 120,
  }) as unknown as NodeJS.WriteStream & {
    read(): Buffer | null;
  };
  return s;
}

function drive(events: ReturnType<typeof progressEvents>) {
  events.planned(3);
  events.kindStarted('bhavcopy', 2);
  events.fileDone();
  events.fileDone();
  events.kindFinished(result('bhavcopy', 2));
  events.kindStarted('index-close', 1);
  events.kindFinished(result('index-close', 1, 'x.csv:6: bad'));
  events.stop();
}

describe('import progress', () => {
  it('on a terminal: a bar over the files that ends full, naming the kind at work', () => {
    const s = stream(true);
    drive(progressEvents(s));
    const text = String(s.read());
    // cli-progress redraws at most ten times a second: the first and the last state are drawn.
    expect(text).toContain('0/3 files | reading');
    // A failed kind's files count as read, so the bar ends at 3/3.
    expect(text).toContain('3/3 files | index-close');
    expect(text).not.toContain('import:');
  });

  it('elsewhere (a CronJob log, CI): one line per kind, failures with their file:line', () => {
    const s = stream(false);
    drive(progressEvents(s));
    expect(String(s.read()).split('\n')).toEqual([
      'import: 3 file(s) to read',
      'import: bhavcopy: 2 file(s)...',
      'import: bhavcopy: loaded 4, rejected 1, changed 4 (0.2 s)',
      'import: index-close: 1 file(s)...',
      'import: index-close: FAILED: x.csv:6: bad (0.2 s)',
      '',
    ]);
  });
});
