import { defineArea } from '../area.ts';
import { nseXbrl } from './import-kind.ts';
import { financialsRpcs } from './rpcs.ts';
import { type FinancialsSource, pgFinancialsSource, TABLE, writeGeneratedFinancials } from './store.ts';

/** Financial statements (SPEC 2.3): generated for every company, imported from NSE XBRL results. */
export const financialsArea = defineArea<FinancialsSource>({
  name: 'financials',
  tables: [TABLE],
  importKinds: { 'nse-xbrl': nseXbrl },
  writeGenerated: writeGeneratedFinancials,
  // Statements are read per request (one indexed query), not held in memory.
  read: async (pool) => pgFinancialsSource(pool),
  rpcs: financialsRpcs,
});
