import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What a request costs is one rule, "a charge and no void", written once: migration 0009's
// usage_charged. A statement that tests event kinds for charges or voids itself is a second copy.

const SRC = new URL('.', import.meta.url).pathname;
const MIGRATIONS = new URL('../migrations/', import.meta.url).pathname;
const COPY = /kind\s*=\s*'[cv]'|'[cv]'\s*=\s*ANY|kind\s*=\s*'(charged|voided)'/;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );

describe('the charged rule', () => {
  it('is defined once, by usage_charged, and no statement of the ledger tests kinds itself', () => {
    const copies = sources(SRC).filter((f) => COPY.test(readFileSync(f, 'utf8')));
    expect(copies.map((f) => f.slice(SRC.length))).toEqual([]);
    const defining = readdirSync(MIGRATIONS).filter((f) =>
      /CREATE FUNCTION usage_charged\(/.test(readFileSync(join(MIGRATIONS, f), 'utf8')),
    );
    expect(defining).toEqual(['0009_usage_charged_rule.sql']);
  });

  it('would see a copy (the check can fail)', () => {
    expect(COPY.test("HAVING bool_or(e.kind = 'c') AND NOT bool_or(e.kind = 'v')")).toBe(true);
    expect(COPY.test("FILTER (WHERE t.kind = 'charged')")).toBe(true);
    expect(COPY.test('usage_charged(array_agg(e.kind))')).toBe(false);
  });
});
