import { type DayNumber, parseExchangeDate } from '@mdp/nse-calendar';
import { readCsv, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { ImportFileError } from '../../../importers/report.ts';
import { resolveRows } from '../../../importers/symbol-resolver.ts';
import { type ParsedPurpose, parsePurpose } from './purpose.ts';

export interface CorporateActionFileRow {
  symbol: string;
  isin: string | null;
  exDate: DayNumber;
  recordDate: DayNumber | null;
  action: ParsedPurpose;
}

/** Equity series; the bc file also lists debt (interest payments, redemptions) and other segments. */
const EQUITY_SERIES = new Set(['EQ', 'BE', 'BZ', 'SM', 'ST']);

interface ApiRow {
  symbol?: string;
  series?: string;
  isin?: string;
  subject?: string;
  exDate?: string;
  recDate?: string;
}

function parseJson(file: SourceFile, out: ParseResult<CorporateActionFileRow>): void {
  let list: unknown;
  try {
    list = JSON.parse(file.text);
  } catch (err) {
    throw new ImportFileError(file.path, 1, `not valid JSON: ${(err as Error).message}`);
  }
  const rows = Array.isArray(list) ? list : (list as { data?: unknown }).data;
  if (!Array.isArray(rows)) throw new ImportFileError(file.path, 1, 'expected an array of corporate actions');
  rows.forEach((raw: ApiRow, i) => {
    const line = i + 1;
    const exDate = parseExchangeDate(raw.exDate ?? '');
    if (!raw.symbol || !raw.subject || exDate === undefined) {
      out.reject(line, 'no symbol, subject or ex-date');
      return;
    }
    if (raw.series && !EQUITY_SERIES.has(raw.series)) {
      out.reject(line, `series ${raw.series} is not equity`);
      return;
    }
    out.ok(line, {
      symbol: raw.symbol.trim().toUpperCase(),
      isin: raw.isin?.trim() || null,
      exDate,
      recordDate: parseExchangeDate(raw.recDate ?? '') ?? null,
      action: parsePurpose(raw.subject),
    });
  });
}

/**
 * NSE corporate actions: the corporates-corporateActions API's JSON (subject, exDate, recDate) and
 * the PR zip's bcDDMMYYYY.csv (PURPOSE, EX_DT, RECORD_DT), equity series only, one row per action
 * (the bc file repeats each for the EQ and BE series). Splits, consolidations and bonuses go to
 * corporate_actions, which adjusts prices; dividends and the rest go to corporate_events.
 */
export const corporateActionsKind = defineKind<CorporateActionFileRow>({
  describe: 'NSE corporate actions: API JSON export and PR-zip bcDDMMYYYY.csv',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<CorporateActionFileRow>(file.path);
    if (file.text.trimStart().startsWith('[') || file.text.trimStart().startsWith('{')) {
      parseJson(file, out);
      return out;
    }
    const seen = new Set<string>();
    for (const r of readCsv(file, ['SYMBOL', 'SERIES', 'PURPOSE', 'EX DT']).rows) {
      if (!EQUITY_SERIES.has(r.text('SERIES'))) {
        out.reject(r.line, `series ${r.text('SERIES') || '(none)'} is not equity`);
        continue;
      }
      const key = `${r.text('SYMBOL')}|${r.text('EX DT')}|${r.text('PURPOSE')}`;
      if (seen.has(key)) {
        out.reject(r.line, 'same action as an earlier row of another series');
        continue;
      }
      seen.add(key);
      out.ok(r.line, {
        symbol: r.text('SYMBOL').toUpperCase(),
        isin: null,
        exDate: r.date('EX DT'),
        recordDate: r.optionalDate('RECORD DT') ?? null,
        action: parsePurpose(r.text('PURPOSE')),
      });
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<CorporateActionFileRow>> {
    const { resolved, rejections } = await resolveRows(client, rows, (r) => r.exDate);
    let changed = 0;
    for (const { row, stockId: id } of resolved) {
      const v = row.value;
      const a = v.action;
      const res =
        a.kind === 'split' || a.kind === 'bonus'
          ? await client.query(
              `INSERT INTO corporate_actions (stock_id, ex_date, kind, ratio_new, ratio_old, description)
               VALUES ($1, DATE '1970-01-01' + $2::int, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
              [id, v.exDate, a.kind, a.ratioNew, a.ratioOld, a.description],
            )
          : await client.query(
              `INSERT INTO corporate_events (stock_id, kind, ex_date, record_date, event_date, amount, description)
               VALUES ($1, $2, DATE '1970-01-01' + $3::int, DATE '1970-01-01' + $4::int, NULL, $5, $6)
               ON CONFLICT DO NOTHING`,
              [id, a.kind, v.exDate, v.recordDate, a.kind === 'dividend' ? a.amount : null, a.description],
            );
      changed += res.rowCount ?? 0;
    }
    return { loaded: resolved.map((r) => r.row), rejections, changed };
  },
});
