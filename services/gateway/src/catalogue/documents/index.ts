import type { TSchema } from '@sinclair/typebox';
import { FILING_DOCUMENTS } from './filings.ts';
import { MARKET_DOCUMENTS } from './market.ts';
import { OPTION_DOCUMENTS } from './options.ts';
import { STOCK_DOCUMENTS } from './stocks.ts';

/**
 * The named schemas of response documents (`data` of a 200), each with a `$id`: OpenAPI lists them
 * under components and routes refer to them with `Type.Ref(id)`; the contract tests validate the real
 * services' documents against them.
 */
export const DOCUMENT_SCHEMAS: readonly TSchema[] = [
  ...STOCK_DOCUMENTS,
  ...MARKET_DOCUMENTS,
  ...OPTION_DOCUMENTS,
  ...FILING_DOCUMENTS,
];
