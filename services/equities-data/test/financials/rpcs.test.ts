import { status } from '@mdp/grpc';
import { type FinancialStatementRow, financialsByCompany, STOCK_TYPES } from '@mdp/market';
import { day } from '@mdp/nse-calendar';
import type { common } from '@mdp/proto';
import { describe, expect, it } from 'vitest';
import { financialsRpcs } from '../../src/areas/financials/rpcs.ts';
import type { FinancialsSource } from '../../src/areas/financials/store.ts';
import { clockAt, ctx, readDocument, rpcError, smallDataset } from '../support.ts';

const mem = smallDataset(400, day('2026-11-20'), 9, 100);
const held = new Map<number, FinancialStatementRow[]>();
for (const rows of financialsByCompany(mem.generated)) held.set(rows[0]!.stockId, rows);
const source: FinancialsSource = { periods: async (id) => held.get(id) ?? [] };
const rpcAt = (isoDay: string) =>
  financialsRpcs({
    dataset: () => mem.dataset,
    bars: mem.source,
    clock: clockAt(isoDay),
    data: () => source,
  });
const rpc = rpcAt('2026-11-22');
const dataOf = (doc: common.Document) => readDocument(doc).data;

const equity = mem.generated.stocks.find((s) => s.stockType === 'equity' && held.has(s.id))!;

describe('GetFinancials', () => {
  it('answers 404 for every stock type but equity (ETFs, index funds, bonds, funds, REITs, InvITs ...)', async () => {
    const types = new Set<string>();
    for (const s of mem.generated.stocks) {
      if (s.stockType === 'equity' || types.has(s.stockType)) continue;
      types.add(s.stockType);
      const err = await rpcError(rpc.getFinancials({ symbol: s.symbol }, ctx));
      expect(err.code).toBe(status.NOT_FOUND);
      expect(err.message).toMatch(/no financial statements/);
    }
    expect([...types]).toEqual(expect.arrayContaining(['etf', 'index_fund', 'bond']));
    expect(STOCK_TYPES.length).toBeGreaterThan(types.size);
  });

  it('answers 404 for an unknown symbol and for an equity with no statements (a delisted company)', async () => {
    expect((await rpcError(rpc.getFinancials({ symbol: 'NOPE' }, ctx))).code).toBe(status.NOT_FOUND);
    const delisted = mem.generated.stocks.find((s) => s.stockType === 'equity' && s.status === 'delisted')!;
    expect((await rpcError(rpc.getFinancials({ symbol: delisted.symbol }, ctx))).code).toBe(status.NOT_FOUND);
  });

  it('serves the document as of the clock: earlier clocks see fewer periods', async () => {
    const now = dataOf(await rpc.getFinancials({ symbol: equity.symbol }, ctx));
    const before = dataOf(await rpcAt('2025-06-01').getFinancials({ symbol: equity.symbol }, ctx));
    expect(before.profit_loss.periods.at(-1)).toBe('FY2025');
    expect(now.profit_loss.periods.at(-1)).toBe('FY2026');
    expect(
      before.quarterly.availability.every(
        (a: { available_from: string }) => a.available_from <= '2025-06-01',
      ),
    ).toBe(true);
    expect(now.unit).toBe('INR crore (EPS in INR)');
  });

  it('rejects a section that is not canonical and periods outside 1..40', async () => {
    for (const section of ['pnl', 'quarters', 'all']) {
      const err = await rpcError(rpc.getFinancials({ symbol: equity.symbol, section }, ctx));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'section']);
    }
    for (const periods of [0, 41, -3]) {
      const err = await rpcError(rpc.getFinancials({ symbol: equity.symbol, periods }, ctx));
      expect([err.code, err.param]).toEqual([status.INVALID_ARGUMENT, 'periods']);
    }
    const one = dataOf(
      await rpc.getFinancials({ symbol: equity.symbol, section: 'cash_flow', periods: 40 }, ctx),
    );
    expect(one.cash_flow.periods).toHaveLength(10);
    expect(one.quarterly).toBeUndefined();
  });
});
