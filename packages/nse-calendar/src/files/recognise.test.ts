import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recogniseHolidayFile } from './index.ts';

const REALDATA = new URL('../../../../../shared/realdata/', import.meta.url).pathname;

function headOf(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(4096);
    return buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

const entry = (tradingDate: string, weekDay: string, description: string, Sr_no: number) => ({
  tradingDate,
  weekDay,
  description,
  morning_session: '',
  evening_session: '',
  Sr_no,
});
const SEGMENT = Array.from({ length: 15 }, (_, i) => entry('26-Jan-2027', 'Tuesday', 'Republic Day', i + 1));
// Segments in NSE's order: CM starts past the first few kilobytes.
const MASTER = JSON.stringify({ CBM: SEGMENT, CD: SEGMENT, CM: SEGMENT, FO: SEGMENT });

describe('recognising a holiday list by content', () => {
  it("knows NSE's holiday master, whatever the file is called", () => {
    for (const name of ['holiday-master.json', 'download', 'x.csv'])
      expect(recogniseHolidayFile({ name, head: MASTER.slice(0, 4096) }), name).toBe('nse-holiday-master');
    const pretty = JSON.stringify({ data: { CM: SEGMENT } }, null, 2);
    expect(recogniseHolidayFile({ name: 'h.json', head: pretty.slice(0, 4096) })).toBe('nse-holiday-master');
    expect(recogniseHolidayFile({ name: 'h.json', head: JSON.stringify(SEGMENT) })).toBe(
      'nse-holiday-master',
    );
  });

  it('knows a holiday CSV and BSE list by their headers, renamed or not', () => {
    const real = headOf(join(REALDATA, 'nse_trading_holidays_weekday_1990-2025.csv'));
    expect(recogniseHolidayFile({ name: 'x.csv', head: real })).toBe('holiday-csv');
    expect(recogniseHolidayFile({ name: 'x.txt', head: '\uFEFFTrading Date,Holiday,Segment\r\n' })).toBe(
      'holiday-csv',
    );
    expect(
      recogniseHolidayFile({
        name: 'x.csv',
        head: 'Sr. No.,Holidays,Date,Day\n1,Republic Day,26-Jan-2027,Tuesday\n',
      }),
    ).toBe('bse-holidays');
  });

  it('claims no other exchange file, dated or not', () => {
    const others = [
      'SYMBOL,NAME OF COMPANY, SERIES, DATE OF LISTING, PAID UP VALUE, MARKET LOT, ISIN NUMBER, FACE VALUE',
      '"","SYMBOL","SERIES","OPEN","HIGH","LOW","CLOSE","LAST","PREVCLOSE","TOTTRDQTY","TOTTRDVAL","TIMESTAMP","TOTALTRADES","ISIN","X"',
      'TradDt,BizDt,Sgmt,Src,FinInstrmTp,FinInstrmId,ISIN,TckrSymb,SctySrs,XpryDt,FininstrmActlXpryDt,StrkPric',
      'Date,Symbol,Security Name,Client Name,Buy/Sell,Quantity Traded,Trade Price / Wght. Avg. Price,Remarks',
      'Date,Index Name,PE,PB,DivYield',
      'Date,Close',
      'Date,Date',
      'Holiday,Description',
      '[{"symbol":"PAVNAIND","exDate":"01-Sep-2025","subject":"Face Value Split"}]',
      '{"CM": [{"tradingDate": "2027-01-26"}]}',
      '',
    ];
    for (const head of others) expect(recogniseHolidayFile({ name: 'x.csv', head }), head).toBeUndefined();
  });

  it('of all the project’s real exchange files, claims the holiday list alone', () => {
    const claimed: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (
          /\.(csv|json|txt|lst)$/i.test(e.name) &&
          recogniseHolidayFile({ name: e.name, head: headOf(path) })
        )
          claimed.push(e.name);
      }
    };
    walk(REALDATA);
    expect(claimed).toEqual(['nse_trading_holidays_weekday_1990-2025.csv']);
  });
});
