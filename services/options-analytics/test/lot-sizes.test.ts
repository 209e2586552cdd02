import { describe, expect, it } from 'vitest';
import { LotFileFormatError, parseLotSizes } from '../src/import/lot-sizes.ts';
import { LOT_FILE, readReal } from './realdata.ts';

describe("NSE's market-lot file (fo_mktlots, August 2026)", () => {
  const rows = parseLotSizes(readReal(LOT_FILE));

  it('lists the underlyings with derivatives: 5 indices and 208 stocks', () => {
    expect(rows.filter((r) => r.kind === 'index').map((r) => r.symbol)).toEqual([
      'NIFTY',
      'BANKNIFTY',
      'FINNIFTY',
      'MIDCPNIFTY',
      'NIFTYNXT50',
    ]);
    expect(rows.filter((r) => r.kind === 'stock')).toHaveLength(208);
    expect(new Set(rows.map((r) => r.symbol)).size).toBe(213);
  });

  it('reads lot sizes by expiry month, skipping months without contracts', () => {
    const nifty = rows.find((r) => r.symbol === 'NIFTY')!;
    expect(nifty.name).toBe('NIFTY 50');
    expect(nifty.lots[0]).toEqual({ month: '2026-08', lotSize: 65 });
    expect(nifty.lots.at(-1)).toEqual({ month: '2031-06', lotSize: 65 });
    const bank = rows.find((r) => r.symbol === 'BANKNIFTY')!;
    expect(bank.lots.map((l) => l.month)).toEqual([
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-12',
      '2027-03',
      '2027-06',
    ]);
    expect(rows.find((r) => r.symbol === 'M&M')!.lots).toHaveLength(3);
    expect(rows.find((r) => r.symbol === 'ADANIENSOL')).toMatchObject({
      kind: 'stock',
      lots: [{ month: '2026-08', lotSize: 675 }, expect.anything(), expect.anything()],
    });
  });

  it('refuses other files', () => {
    expect(() => parseLotSizes('SYMBOL,LOT\nX,1\n')).toThrow(LotFileFormatError);
  });
});
