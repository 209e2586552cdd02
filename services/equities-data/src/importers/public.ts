// What the platform's folder import (services/data-import) uses of this service's importers.
export { sessionsBehind } from '../freshness.ts';
export { lastPriceDay } from '../store/last-price-day.ts';
export { sourceFromBytes } from './csv.ts';
export { IMPORT_KINDS, ImportFileError, importSources } from './index.ts';
export { type FileHead, RECOGNISED_KINDS, recogniseEquitiesFile } from './recognise.ts';
export type { ImportReport } from './report.ts';
