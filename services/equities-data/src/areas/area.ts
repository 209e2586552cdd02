import type { Pool } from '@mdp/db';
import type { GeneratedDataset } from '@mdp/market';
import type pg from 'pg';
import type { ImportKind } from '../importers/kind.ts';
import type { EquitiesDataImpl, ServiceDeps } from './stocks/rpcs.ts';

/** What an area's RPCs get: the stock dataset (symbol resolution, bars) and the area's own data. */
export interface AreaDeps<T> extends ServiceDeps {
  data: () => T;
  /** The area's own queries, for data too large to keep in memory. */
  pool?: Pool;
}

/**
 * One part of the equities service beyond the stock master and prices (financials, corporate data,
 * indices, market flows): its tables, how the generated market fills them, the real files it imports,
 * what it keeps in memory and the RPCs it answers. The stock master and bars (`stocks/`) are loaded
 * first, so an area may refer to stocks by id and read generated bars.
 */
export interface Area<T> {
  readonly name: string;
  /** Tables the area owns (its migration creates them); a generated load empties them first. */
  readonly tables: readonly string[];
  readonly importKinds: Readonly<Record<string, ImportKind>>;
  /** Fills the area's tables from the generated market, inside the load transaction; returns a summary. */
  writeGenerated(
    client: pg.PoolClient,
    market: GeneratedDataset,
    log: (line: string) => void,
  ): Promise<string>;
  /** Reads what the area serves from memory (at start-up and after every import). */
  read(pool: Pool): Promise<T>;
  rpcs(deps: AreaDeps<T>): Partial<EquitiesDataImpl>;
}

export function defineArea<T>(area: Area<T>): Area<T> {
  return area;
}
