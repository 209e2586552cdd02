import {
  type BarRow,
  type FinancialStatementRow,
  financialsByCompany,
  type GeneratedDataset,
} from '@mdp/market';
import { type CorporateData, corporateData } from '../../src/areas/corporate/data.ts';
import { type CorporateRows, generateCorporate } from '../../src/areas/corporate/generated.ts';
import type { FinancialsSource } from '../../src/areas/financials/store.ts';
import type { MemoryDataset } from '../support.ts';

/** The generated financial statements of a market, as the financials table would give them. */
export function memoryFinancials(
  market: Pick<GeneratedDataset, 'stocks' | 'annual' | 'options'>,
): FinancialsSource {
  const held = new Map<number, FinancialStatementRow[]>();
  for (const rows of financialsByCompany(market)) if (rows[0]) held.set(rows[0].stockId, rows);
  return { periods: async (id) => held.get(id) ?? [] };
}

/** The corporate rows of an in-memory dataset, deals priced from its bars, filings dated by its financials. */
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
  return { rows, data: corporateData(rows, memoryFinancials(mem.generated)) };
}
