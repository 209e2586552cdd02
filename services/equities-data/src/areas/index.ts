import type { Pool } from '@mdp/db';
import type { Area } from './area.ts';
import { corporateArea } from './corporate/index.ts';
import { financialsArea } from './financials/index.ts';
import { indicesArea } from './indices/index.ts';
import { marketArea } from './market/index.ts';

// biome-ignore lint/suspicious/noExplicitAny: each area's data type is known only to the area itself.
export const AREAS: readonly Area<any>[] = [financialsArea, corporateArea, indicesArea, marketArea];

/** Each area's in-memory data, read together so a reload swaps all of them at once. */
export class AreaData {
  private constructor(private readonly data: Map<Area<unknown>, unknown>) {}

  static async read(pool: Pool, areas: readonly Area<unknown>[] = AREAS): Promise<AreaData> {
    const values = await Promise.all(areas.map((a) => a.read(pool)));
    return new AreaData(new Map(areas.map((a, i) => [a, values[i]])));
  }

  static of(entries: [Area<unknown>, unknown][]): AreaData {
    return new AreaData(new Map(entries));
  }

  get<T>(area: Area<T>): T {
    if (!this.data.has(area as Area<unknown>)) throw new Error(`area ${area.name} was not read`);
    return this.data.get(area as Area<unknown>) as T;
  }
}
