import { RpcError } from '@mdp/grpc';
import type { BarRow } from '@mdp/market';
import type { common } from '@mdp/proto';
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

export const read = (doc: common.Document) => ({
  data: JSON.parse(doc.data_json.toString()),
  meta: doc.meta_json.length ? JSON.parse(doc.meta_json.toString()) : {},
});

export async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(err)}`);
  return err;
}
