// What the platform's folder import (services/data-import) uses of this service's importers.

export { lastPriceDay } from '../areas/stocks/last-price-day.ts';
export { type CalendarImportReport, importHolidayFiles } from '../calendar/import.ts';
export { loadCalendar } from '../calendar/store.ts';
export { sessionsBehind } from '../freshness.ts';
export { sourceFromBytes } from './csv.ts';
export { IMPORT_KINDS, ImportFileError, importSources } from './index.ts';
export { type FileHead, RECOGNISED_KINDS, recogniseEquitiesFile } from './recognise.ts';
export type { ImportReport } from './report.ts';
