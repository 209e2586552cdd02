import type { Pool } from '@mdp/db';
import { readBars, readPreviousBarDay } from './read.ts';
import type { BarSource } from './rpcs.ts';

export function pgBarSource(pool: Pool): BarSource {
  return {
    bars: (stockId, from, to) => readBars(pool, stockId, from, to),
    previousBarDay: (stockId, before) => readPreviousBarDay(pool, stockId, before),
  };
}
