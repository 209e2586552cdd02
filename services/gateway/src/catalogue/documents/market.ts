import type { TSchema } from '@sinclair/typebox';

export const MARKET_DOCUMENTS: readonly TSchema[] = [];
