import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SLOW_FILES, slowFirst } from './sequencer.ts';

describe('the slow-first order of test files', () => {
  it('starts the known slow files first, slowest first, and keeps the order of the rest', () => {
    const files = [
      'a.test.ts',
      'test/shards.int.test.ts',
      'b.test.ts',
      'test/reshard.int.test.ts',
      'c.test.ts',
    ];
    expect(slowFirst(files, (f) => f)).toEqual([
      'test/reshard.int.test.ts',
      'test/shards.int.test.ts',
      'a.test.ts',
      'b.test.ts',
      'c.test.ts',
    ]);
  });

  it('names only files that exist', () => {
    expect(Object.keys(SLOW_FILES).filter((f) => !existsSync(f))).toEqual([]);
  });
});
