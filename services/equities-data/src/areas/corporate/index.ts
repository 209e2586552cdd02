import { defineArea } from '../area.ts';

/** Shareholding, forecasts, pledge, ratings, deals, events and news. */
export const corporateArea = defineArea<undefined>({
  name: 'corporate',
  tables: [],
  importKinds: {},
  writeGenerated: async () => 'no corporate data yet',
  read: async () => undefined,
  rpcs: () => ({}),
});
