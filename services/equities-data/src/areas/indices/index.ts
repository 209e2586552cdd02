import { defineArea } from '../area.ts';

/** Index ranking, index history and valuations. */
export const indicesArea = defineArea<undefined>({
  name: 'indices',
  tables: [],
  importKinds: {},
  writeGenerated: async () => 'no indices yet',
  read: async () => undefined,
  rpcs: () => ({}),
});
