import { FII_DERIVATIVE_INSTRUMENTS, type FiiDerivativesRow } from '@mdp/market';
import { formatDay, parseExchangeDate } from '@mdp/nse-calendar';
import type { SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { ImportFileError } from '../../../importers/report.ts';
import { crore, fiiDerivativesTable } from '../tables.ts';
import { reportLines } from './lines.ts';

const LABELS: Record<string, FiiDerivativesRow['instrument']> = {
  'INDEX FUTURES': 'index_futures',
  'INDEX OPTIONS': 'index_options',
  'STOCK FUTURES': 'stock_futures',
  'STOCK OPTIONS': 'stock_options',
};

/**
 * NSE's daily FII derivatives statistics (fii_stats_DD-Mon-YYYY.csv): contracts and crore bought,
 * sold and open at the close for index futures, index options, stock futures and stock options. The
 * per-index breakdown rows (NIFTY FUTURES, BANKNIFTY OPTIONS ...) are not kept.
 */
export const nseFiiDerivatives = defineKind<FiiDerivativesRow>({
  describe: 'NSE FII derivatives statistics: fii_stats_DD-Mon-YYYY.csv',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<FiiDerivativesRow>(file.path);
    const [title, ...body] = reportLines(file);
    const m = /FII DERIVATIVES STATISTICS FOR (\S+)/i.exec(title?.cells[0] ?? '');
    const d = m ? parseExchangeDate(m[1]!) : undefined;
    if (d === undefined) throw new ImportFileError(file.path, 1, 'the title does not name the day');
    const seen = new Set<string>();
    for (const { line, cells } of body) {
      const instrument = LABELS[cells[0]!.toUpperCase()];
      if (!instrument) continue;
      const n = cells.slice(1, 7).map(Number);
      if (n.length < 6 || n.some((x, i) => !Number.isFinite(x) || cells[i + 1] === '' || x < 0))
        throw new ImportFileError(file.path, line, `${cells[0]} needs six non-negative numbers`);
      seen.add(instrument);
      out.ok(line, {
        d,
        instrument,
        buyContracts: n[0]!,
        buyAmount: Math.round(n[1]! * 100),
        sellContracts: n[2]!,
        sellAmount: Math.round(n[3]! * 100),
        oiContracts: n[4]!,
        oiAmount: Math.round(n[5]! * 100),
      });
    }
    const missing = FII_DERIVATIVE_INSTRUMENTS.filter((i) => !seen.has(i));
    if (missing.length > 0) throw new ImportFileError(file.path, 0, `no row for ${missing.join(', ')}`);
    return out;
  },
  async apply(client, rows): Promise<Applied<FiiDerivativesRow>> {
    const v = [...new Map(rows.map((r) => [`${r.value.d}:${r.value.instrument}`, r.value])).values()];
    // The value columns, after the key (d, instrument).
    const cols = fiiDerivativesTable.columns.slice(2);
    const { rowCount } = await client.query(
      `INSERT INTO fii_derivatives AS t (d, instrument, ${cols.join(', ')})
       SELECT * FROM unnest($1::date[], $2::text[], $3::bigint[], $4::numeric[], $5::bigint[], $6::numeric[],
                            $7::bigint[], $8::numeric[])
       ON CONFLICT (d, instrument) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
       WHERE (${cols.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${cols.map((c) => `EXCLUDED.${c}`).join(', ')})`,
      [
        v.map((x) => formatDay(x.d)),
        v.map((x) => x.instrument),
        v.map((x) => x.buyContracts),
        v.map((x) => crore(x.buyAmount)),
        v.map((x) => x.sellContracts),
        v.map((x) => crore(x.sellAmount)),
        v.map((x) => x.oiContracts),
        v.map((x) => crore(x.oiAmount)),
      ],
    );
    return { loaded: rows, rejections: [], changed: rowCount ?? 0 };
  },
});
