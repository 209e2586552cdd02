import type { DayNumber } from '@mdp/nse-calendar';
import { normalizeHeader, readCsv, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { resolveRows } from '../../../importers/symbol-resolver.ts';
import { dayFromFileName } from './prices.ts';

/**
 * Files of NSE's daily market report (PR zip): mcapDDMMYYYY.csv (issue size, close, market cap) and
 * PE_DDMMYY.csv (P/E by symbol; the day comes from the file name). Both fill market_reports, from
 * which the service takes share counts and trailing EPS.
 */
interface ReportRow {
  symbol: string;
  d: DayNumber;
  close?: number;
  issueSize?: number;
  marketCap?: number;
  pe?: number;
}

export const marketReport = defineKind<ReportRow>({
  describe: 'NSE market report files: mcapDDMMYYYY.csv (market cap) and PE_DDMMYY.csv (P/E)',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<ReportRow>(file.path);
    const first = normalizeHeader(file.text.slice(0, file.text.indexOf('\n')));
    if (first.includes('SYMBOL P/E')) {
      const d = dayFromFileName(file);
      for (const r of readCsv(file, ['SYMBOL', 'SYMBOL P/E']).rows) {
        const pe = r.number('SYMBOL P/E', true);
        if (!Number.isFinite(pe) || pe <= 0) out.reject(r.line, 'no positive P/E');
        else out.ok(r.line, { symbol: r.text('SYMBOL').toUpperCase(), d, pe });
      }
      return out;
    }
    const cols = [
      'TRADE DATE',
      'SYMBOL',
      'SERIES',
      'CATEGORY',
      'ISSUE SIZE',
      'CLOSE PRICE/PAID UP VALUE(RS.)',
      'MARKET CAP(RS.)',
    ];
    for (const r of readCsv(file, cols).rows) {
      const issueSize = r.number('ISSUE SIZE', true);
      const close = r.number('CLOSE PRICE/PAID UP VALUE(RS.)', true);
      if (!(issueSize > 0) || !(close > 0)) {
        out.reject(r.line, 'no issue size or close price');
        continue;
      }
      out.ok(r.line, {
        symbol: r.text('SYMBOL').toUpperCase(),
        d: r.date('TRADE DATE'),
        close: Math.round(close * 100),
        issueSize,
        marketCap: r.number('MARKET CAP(RS.)', true),
      });
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<ReportRow>> {
    const { resolved, rejections } = await resolveRows(client, rows, (r) => r.d);
    const loaded = resolved.map((r) => r.row);
    const ids = resolved.map((r) => r.stockId);
    const v = loaded.map((l) => l.value);
    const { rowCount } = await client.query(
      `INSERT INTO market_reports AS t (stock_id, d, close, issue_size, market_cap, pe)
       SELECT x.stock_id, DATE '1970-01-01' + x.dn, max(x.close), max(x.issue_size), max(x.market_cap), max(x.pe)
         FROM unnest($1::int[], $2::int[], $3::int[], $4::bigint[], $5::numeric[], $6::float8[])
           AS x(stock_id, dn, close, issue_size, market_cap, pe)
        GROUP BY x.stock_id, x.dn
       ON CONFLICT (stock_id, d) DO UPDATE SET
         close = COALESCE(EXCLUDED.close, t.close), issue_size = COALESCE(EXCLUDED.issue_size, t.issue_size),
         market_cap = COALESCE(EXCLUDED.market_cap, t.market_cap), pe = COALESCE(EXCLUDED.pe, t.pe)
       WHERE (t.close, t.issue_size, t.market_cap, t.pe) IS DISTINCT FROM
             (COALESCE(EXCLUDED.close, t.close), COALESCE(EXCLUDED.issue_size, t.issue_size),
              COALESCE(EXCLUDED.market_cap, t.market_cap), COALESCE(EXCLUDED.pe, t.pe))`,
      [
        ids,
        v.map((x) => x.d),
        v.map((x) => x.close ?? null),
        v.map((x) => x.issueSize ?? null),
        v.map((x) => x.marketCap ?? null),
        v.map((x) => x.pe ?? null),
      ],
    );
    return { loaded, rejections, changed: rowCount ?? 0 };
  },
});
