import type { Pool } from '@mdp/db';
import type { BarSource } from '../service/impl.ts';
import { readBars, readPreviousBarDay } from './read-dataset.ts';

export function pgBarSource(pool: Pool): BarSource {
  return {
    bars: (stockId, from, to) => readBars(pool, stockId, from, to),
    previousBarDay: (stockId, before) => readPreviousBarDay(pool, stockId, before),
  };
}
