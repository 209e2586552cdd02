import type { TSchema } from '@sinclair/typebox';

export const STOCK_DOCUMENTS: readonly TSchema[] = [];
