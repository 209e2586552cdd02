// What the platform's folder import (services/data-import) uses of this service's importers.
export { optionsConfig } from '../config.ts';
export { type ExpiryMove, moveExpiriesOffClosedDays } from '../store/move-expiries.ts';
export { importFoTexts, OptionsFileError } from './import-fo.ts';
export { importLotText } from './import-lots.ts';
export { type OptionsFileKind, recogniseOptionsFile } from './recognise.ts';
