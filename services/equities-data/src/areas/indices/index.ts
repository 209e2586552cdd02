import { defineArea } from '../area.ts';
import type { IndicesData } from './data.ts';
import { indexClose } from './import-close.ts';
import { indexValuations } from './import-valuations.ts';
import { indicesRpcs } from './rpcs.ts';
import { INDEX_TABLES, readIndices, writeGeneratedIndices } from './store.ts';

/** Index ranking, index history and valuations. */
export const indicesArea = defineArea<IndicesData>({
  name: 'indices',
  tables: INDEX_TABLES,
  importKinds: { 'index-close': indexClose, 'index-valuations': indexValuations },
  writeGenerated: writeGeneratedIndices,
  read: readIndices,
  rpcs: indicesRpcs,
});
