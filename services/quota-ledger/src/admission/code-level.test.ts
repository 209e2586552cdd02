import { readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CODE_LEVEL } from './registry-tables.ts';

// A ledger run's code level is what a contract migration trusts to know that no ledger of an earlier
// release is running: a level left behind by a new migration would let it drop what this code uses.
it('is the newest migration this code ships with', () => {
  const migrations = readdirSync(new URL('../../migrations/', import.meta.url)).filter((f) =>
    f.endsWith('.sql'),
  );
  const newest = migrations.sort().at(-1)!;
  expect(newest.slice(0, 4)).toBe(CODE_LEVEL);
});
