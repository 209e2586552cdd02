import { defineArea } from '../area.ts';

/** Financial statements (SPEC 2.3): generated for every company, imported from NSE XBRL results. */
export const financialsArea = defineArea<undefined>({
  name: 'financials',
  tables: [],
  importKinds: {},
  writeGenerated: async () => 'no financials yet',
  read: async () => undefined,
  rpcs: () => ({}),
});
