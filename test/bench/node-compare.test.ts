import { expect, it } from 'vitest';
import { nodeVersion } from '../../bench/node-compare.ts';

it('BENCH_COMPARE_NODE: a binary that does not run is refused, naming the variable', () => {
  expect(() => nodeVersion('/nonexistent/bin/node')).toThrow(
    /^BENCH_COMPARE_NODE: "\/nonexistent\/bin\/node" is not a node binary that runs/,
  );
  expect(() => nodeVersion('/bin/false')).toThrow(/BENCH_COMPARE_NODE/);
});

it('BENCH_COMPARE_NODE: a node binary answers with its version', () => {
  expect(nodeVersion(process.execPath)).toBe(process.version);
});
