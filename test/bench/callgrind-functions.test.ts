import { describe, expect, it } from 'vitest';
import {
  callerInstructions,
  largestDifferences,
  parsePerfMap,
  selfInstructions,
} from '../../bench/callgrind-functions.ts';

const MAP = [
  '1000 100 JS:*admit file:///srv/gateway.js:10:1',
  '2000 20 Builtin:StringAdd_CheckNone',
  // Compiled again at the same address: the later line names it.
  '1000 80 JS:*admit file:///srv/gateway.js:10:1 (optimized again)',
].join('\n');

describe('instructions by function', () => {
  it('names V8 code by the latest map line that holds its address, and nothing outside every line', () => {
    const code = parsePerfMap(MAP);
    expect(code.lookup(0x1010)).toBe('JS:*admit file:///srv/gateway.js:10:1 (optimized again)');
    expect(code.lookup(0x1090)).toBe('JS:*admit file:///srv/gateway.js:10:1');
    expect(code.lookup(0x2013)).toBe('Builtin:StringAdd_CheckNone');
    expect(code.lookup(0x2020)).toBeUndefined(); // sizes are hex too: 0x2000 to 0x201f
    expect(code.lookup(0x10)).toBeUndefined();
  });

  it("sums each function's own instructions, not what its calls cost, with names compressed as callgrind writes them", () => {
    const dump = [
      'events: Ir',
      'fn=(1) main',
      '0 10',
      'cfn=(2) 0x0000000000001010',
      'calls=3 0',
      '0 500',
      '+2 5',
      'fn=(2)',
      '0 300',
      'fn=(3) 0x0000000000002004',
      '0 7',
      'fn=(4) 0x0000000000009999',
      '0 4',
      'fn=(2)',
      '* 200',
    ].join('\n');
    expect(Object.fromEntries(selfInstructions(dump, parsePerfMap(MAP)))).toEqual({
      main: 15,
      'JS:*admit file:///srv/gateway.js:10:1 (optimized again)': 500,
      'Builtin:StringAdd_CheckNone': 7,
      '(JIT code not in the map)': 4,
    });
  });

  it("sums what each function's calls to the matching functions cost, inclusive, and not their calls among themselves", () => {
    const dump = [
      'events: Ir',
      'fn=(1) main',
      '0 10',
      'cfn=(2) Builtins_LoadIC_Megamorphic',
      'calls=3 0',
      '0 90',
      'cfn=(3) 0x0000000000001010',
      'calls=1 0',
      '0 400',
      'fn=(3)',
      '0 100',
      'cfn=(2)',
      'calls=2 0',
      '0 60',
      'cfn=(4) Builtins_KeyedStoreIC_Megamorphic',
      'calls=1 0',
      '0 40',
      'fn=(2)',
      '0 150',
      'cfn=(4)',
      'calls=1 0',
      '0 25',
      'fn=(4)',
      '0 65',
    ].join('\n');
    expect(Object.fromEntries(callerInstructions(dump, parsePerfMap(MAP), /IC_Megamorphic$/))).toEqual({
      main: 90,
      'JS:*admit file:///srv/gateway.js:10:1 (optimized again)': 100,
    });
    // The same dump's own instructions: a call's cost is never its caller's.
    expect(selfInstructions(dump, parsePerfMap(MAP)).get('Builtins_LoadIC_Megamorphic')).toBe(150);
  });

  it('lists the functions that moved most a request, either way', () => {
    const base = new Map([
      ['a', 4_000],
      ['b', 1_000],
      ['c', 500],
    ]);
    const tree = new Map([
      ['a', 1_000],
      ['b', 1_100],
      ['d', 2_000],
    ]);
    expect(largestDifferences(base, tree, 10, 3)).toEqual([
      { name: 'a', base: 400, tree: 100 },
      { name: 'd', base: 0, tree: 200 },
      { name: 'c', base: 50, tree: 0 },
    ]);
  });
});
