import type { BarRow } from '@mdp/market';
import { type CorporateData, corporateData } from '../../src/areas/corporate/data.ts';
import { type CorporateRows, generateCorporate } from '../../src/areas/corporate/generated.ts';
import type { MemoryDataset } from '../support.ts';

/** The corporate rows of an in-memory dataset, deals priced from its bars. */
export async function memoryCorporate(
  mem: MemoryDataset,
): Promise<{ rows: CorporateRows; data: CorporateData }> {
  const byKey = new Map<string, BarRow>();
  const rows = await generateCorporate(mem.generated, async (wanted) => {
    for (const w of wanted) {
      const bar = mem.bars.get(w.stockId)?.find((b) => b.d === w.d);
      if (bar) byKey.set(`${w.stockId}:${w.d}`, bar);
    }
    return byKey;
  });
  return { rows, data: corporateData(rows) };
}
