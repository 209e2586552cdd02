import { describe, expect, it } from 'vitest';
import { parseUdiff, UdiffFormatError } from '../src/import/udiff.ts';
import { FULL_DAY_FILE, readReal } from './realdata.ts';

describe('UDiFF F&O bhavcopy parser, on the real full day (2026-03-27, every F&O symbol)', () => {
  const snapshots = parseUdiff(readReal(FULL_DAY_FILE));
  const by = (symbol: string) => snapshots.find((s) => s.underlying === symbol)!;

  it('builds one end-of-day snapshot per underlying: 5 indices and 206 stocks', () => {
    expect(snapshots).toHaveLength(211);
    expect(
      snapshots
        .filter((s) => s.kind === 'index')
        .map((s) => s.underlying)
        .sort(),
    ).toEqual(['BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY', 'NIFTY', 'NIFTYNXT50']);
    const total = snapshots.reduce((n, s) => n + s.options.length + s.futures.length, 0);
    expect(total).toBe(53_590);
  });

  it('stamps each snapshot at the close (15:30 IST) with the underlying price of the file', () => {
    const nifty = by('NIFTY');
    expect(new Date(nifty.snapshotMs).toISOString()).toBe('2026-03-27T10:00:00.000Z');
    expect(nifty.underlyingPrice).toBe(22819.6);
    expect(by('RELIANCE').underlyingPrice).toBe(1348.1);
    expect(by('M&M').kind).toBe('stock');
  });

  it('takes the actual expiry dates, holiday shifts included: 31 March 2026 (a holiday) expires on the 30th', () => {
    const expiries = [...new Set(by('NIFTY').options.map((o) => o.expiry))].sort();
    expect(expiries.slice(0, 7)).toEqual([
      '2026-03-30',
      '2026-04-07',
      '2026-04-13', // Tuesday 14 April (Ambedkar Jayanti) moved to Monday
      '2026-04-21',
      '2026-04-28',
      '2026-05-05',
      '2026-05-26',
    ]);
    expect([...new Set(by('RELIANCE').options.map((o) => o.expiry))].sort()).toEqual([
      '2026-03-30',
      '2026-04-28',
      '2026-05-26',
    ]);
    expect(
      by('NIFTY')
        .futures.map((f) => f.expiry)
        .sort(),
    ).toEqual(['2026-03-30', '2026-04-28', '2026-05-26']);
  });

  it('keeps lot sizes, OI in units and volume in contracts; drops the stale price of an untraded contract', () => {
    const nifty = by('NIFTY');
    expect(new Set(nifty.options.map((o) => o.lotSize))).toEqual(new Set([65]));
    const c23000 = nifty.options.find(
      (o) => o.expiry === '2026-04-07' && o.strike === 23000 && o.type === 'call',
    )!;
    expect(c23000).toMatchObject({
      close: 390.1,
      last: 383,
      oi: 1_606_345,
      oiChange: 1_039_545,
      volume: 102_305,
    });
    expect(c23000.oi % 65).toBe(0);
    // 22050 CE (7 April) did not trade: its close is the previous day's, so it has none here.
    const untraded = nifty.options.find(
      (o) => o.expiry === '2026-04-07' && o.strike === 22050 && o.type === 'call',
    )!;
    expect(untraded).toMatchObject({ close: null, last: null, volume: 0, oi: 195 });
  });

  it('filters by symbol', () => {
    const two = parseUdiff(readReal(FULL_DAY_FILE), new Set(['NIFTY', 'SBIN']));
    expect(two.map((s) => s.underlying)).toEqual(['NIFTY', 'SBIN']);
  });

  it('refuses a file that is not a UDiFF F&O bhavcopy, and says where a row is bad', () => {
    expect(() => parseUdiff('SYMBOL,OPEN,CLOSE\nX,1,2\n')).toThrow(UdiffFormatError);
    expect(() => parseUdiff('SYMBOL,OPEN,CLOSE\nX,1,2\n')).toThrow(/missing column\(s\) TradDt/);
    const [header, row] = readReal(FULL_DAY_FILE).split('\n');
    const bad = row!.replace(',CE,', ',XX,').replace(',PE,', ',XX,');
    expect(() => parseUdiff(`${header}\n${bad}\n`)).toThrow(/line 2: OptnTp must be CE or PE/);
    const noPrice = row!.split(',');
    noPrice[20] = 'abc';
    expect(() => parseUdiff(`${header}\n${noPrice.join(',')}\n`)).toThrow(
      /line 2: UndrlygPric is not a number/,
    );
  });
});
