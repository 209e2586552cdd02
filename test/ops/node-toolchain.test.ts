/**
 * The supported Node line, stated once in package.json's engines.node (">=24.11.0 <25"): the runtime
 * guard's version check against it, and the pin (.node-version) and the image's Node agreeing with it.
 * scripts/node.sh, which reads the same range, is run for real in node-toolchain.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, unsupportedNode } from '../../packages/runtime/src/node-version.ts';
import { read } from './lib.ts';

const engines = JSON.parse(read('package.json')).engines.node as string;

describe('the supported Node range', () => {
  it('is package.json engines.node, Node 24 LTS from 24.11.0', () => {
    expect(SUPPORTED_NODE).toBe(engines);
    expect(engines).toBe('>=24.11.0 <25');
  });

  it.each(['24.11.0', 'v24.11.0', '24.11.1', '24.12.0', '24.21.0', 'v24.99.99'])('accepts %s', (version) => {
    expect(unsupportedNode(version)).toBeUndefined();
  });

  it.each(['20.20.2', 'v22.22.0', '23.99.0', '24.0.0', '24.10.9', 'v25.0.0', '26.12.1'])(
    'refuses %s, naming it and the range',
    (version) => {
      const why = unsupportedNode(version);
      expect(why).toBe(`Node v${version.replace(/^v/, '')} is not supported (supported: Node >=24.11.0 <25)`);
    },
  );

  it('refuses what is not a version', () => {
    expect(unsupportedNode('24')).toMatch(/^Node v24 is not a version .*>=24\.11\.0 <25/);
    expect(unsupportedNode('')).toMatch(/not a version/);
  });

  it('checks against another range of the same form', () => {
    expect(unsupportedNode('22.12.0', '>=22.12.0 <23')).toBeUndefined();
    expect(unsupportedNode('22.11.9', '>=22.12.0 <23')).toBeDefined();
  });

  it('throws on a range of another form than scripts/node.sh reads', () => {
    for (const range of ['>=24.11', '^24.11.0', '>=24.11.0', '24.x', '>=24.11.0 <25.1'])
      expect(() => unsupportedNode('24.21.0', range), range).toThrow(/engines\.node is/);
  });

  it('holds the pinned Node (.node-version)', () => {
    const pinned = read('.node-version').trim();
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(unsupportedNode(pinned)).toBeUndefined();
  });

  it("holds the container image's Node: the official image of the range's major", () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-bookworm-slim$/m.exec(read('deploy/docker/Dockerfile'));
    expect(image?.[1]).toBe(/^>=(\d+)\./.exec(engines)?.[1]);
  });
});
