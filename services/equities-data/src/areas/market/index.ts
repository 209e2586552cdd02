import { defineArea } from '../area.ts';

/** Market-wide flows: FII/DII cash and F&O positioning, FPI sectors. */
export const marketArea = defineArea<undefined>({
  name: 'market',
  tables: [],
  importKinds: {},
  writeGenerated: async () => 'no market flows yet',
  read: async () => undefined,
  rpcs: () => ({}),
});
