import type { DealKind, DealRow } from '@mdp/market';
import { readCsv, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { ImportFileError } from '../../../importers/report.ts';
import { resolveRows } from '../../../importers/symbol-resolver.ts';

/** A deal as the file gives it: the stock by its symbol, the price in paise. */
export interface DealFileRow extends Omit<DealRow, 'stockId'> {
  symbol: string;
}

/** Header spellings of the NSE files, compared without spaces, dots and slashes. */
const squash = (h: string) => h.replace(/[^A-Z]/g, '');
const COLUMNS = {
  date: 'DATE',
  symbol: 'SYMBOL',
  client: 'CLIENTNAME',
  side: 'BUYSELL',
  quantity: 'QUANTITYTRADED',
  price: 'TRADEPRICEWGHTAVGPRICE',
  remarks: 'REMARKS',
} as const;

/**
 * NSE bulk and block deal files (the archive's bulk.csv/block.csv and the website export, whose
 * numbers are quoted with Indian digit grouping such as "2,29,41,224"). The kind comes from the file
 * name: a name containing "block" is block deals, any other bulk deals.
 */
export const nseDeals = defineKind<DealFileRow>({
  describe: 'NSE bulk and block deal files (bulk*.csv, block*.csv, website exports)',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<DealFileRow>(file.path);
    const kind: DealKind = /block/i.test(file.name) ? 'block' : 'bulk';
    const { header, rows } = readCsv(file, []);
    const col = Object.fromEntries(
      Object.entries(COLUMNS).map(([k, name]) => [k, header.find((h) => squash(h) === name)]),
    ) as Record<keyof typeof COLUMNS, string | undefined>;
    const missing = Object.entries(col).filter(([k, v]) => v === undefined && k !== 'remarks');
    if (missing.length > 0)
      throw new ImportFileError(
        file.path,
        1,
        `missing column(s) ${missing.map(([k]) => COLUMNS[k as keyof typeof COLUMNS]).join(', ')}`,
      );
    for (const r of rows) {
      const side = r.text(col.side!).toUpperCase();
      if (side !== 'BUY' && side !== 'SELL') {
        out.reject(r.line, `side "${side}" is neither BUY nor SELL`);
        continue;
      }
      const quantity = r.number(col.quantity!);
      const price = r.number(col.price!);
      if (!(quantity > 0) || !(price > 0)) {
        out.reject(r.line, 'no positive quantity and price');
        continue;
      }
      const remarks = col.remarks ? r.text(col.remarks) : '';
      out.ok(r.line, {
        symbol: r.text(col.symbol!).toUpperCase(),
        d: r.date(col.date!),
        kind,
        client: r.text(col.client!).replace(/\s+/g, ' '),
        side: side === 'BUY' ? 'buy' : 'sell',
        quantity: Math.round(quantity),
        price: Math.round(price * 100),
        remarks: remarks === '' || remarks === '-' ? null : remarks,
      });
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<DealFileRow>> {
    const { resolved, rejections } = await resolveRows(client, rows, (r) => r.d);
    const loaded = resolved.map((r) => r.row);
    const ids = resolved.map((r) => r.stockId);
    const v = loaded.map((l) => l.value);
    const { rowCount } = await client.query(
      `INSERT INTO deals (stock_id, d, kind, client, side, quantity, price, remarks)
       SELECT x.stock_id, DATE '1970-01-01' + x.dn, x.kind, x.client, x.side, x.quantity, x.price, x.remarks
         FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
           AS x (stock_id, dn, kind, client, side, quantity, price, remarks)
       ON CONFLICT DO NOTHING`,
      [
        ids,
        v.map((r) => r.d),
        v.map((r) => r.kind),
        v.map((r) => r.client),
        v.map((r) => r.side),
        v.map((r) => r.quantity),
        v.map((r) => r.price),
        v.map((r) => r.remarks),
      ],
    );
    return { loaded, rejections, changed: rowCount ?? 0 };
  },
});
