import { PARTICIPANTS, type ParticipantRow, POSITION_FIELDS, type PositionField } from '@mdp/market';
import { formatDay, parseExchangeDate } from '@mdp/nse-calendar';
import { normalizeHeader, type SourceFile } from '../../../importers/csv.ts';
import { type Applied, defineKind, ParseResult } from '../../../importers/kind.ts';
import { ImportFileError } from '../../../importers/report.ts';
import { POSITION_COLUMNS } from '../tables.ts';
import { reportLines } from './lines.ts';

const HEADER = [
  'CLIENT TYPE',
  'FUTURE INDEX LONG',
  'FUTURE INDEX SHORT',
  'FUTURE STOCK LONG',
  'FUTURE STOCK SHORT',
  'OPTION INDEX CALL LONG',
  'OPTION INDEX PUT LONG',
  'OPTION INDEX CALL SHORT',
  'OPTION INDEX PUT SHORT',
  'OPTION STOCK CALL LONG',
  'OPTION STOCK PUT LONG',
  'OPTION STOCK CALL SHORT',
  'OPTION STOCK PUT SHORT',
];
const WHO: Record<string, ParticipantRow['participant']> = {
  CLIENT: 'client',
  DII: 'dii',
  FII: 'fii',
  PRO: 'pro',
  TOTAL: 'total',
};
/** NSE rounds each participant's index-option OI to whole contracts, so sums may miss the total by one. */
const ROUNDING = 2;

/**
 * NSE's participant-wise open interest (fao_participant_oi_DDMMYYYY.csv) and trading volume
 * (fao_participant_vol_DDMMYYYY.csv) files: the title names the kind and the day; rows Client, DII,
 * FII, Pro and TOTAL. A day whose TOTAL is unbalanced (long ≠ short) or whose participants do not add
 * up to the TOTAL is rejected whole.
 */
export const nseParticipants = defineKind<ParticipantRow>({
  describe:
    'NSE participant-wise F&O OI and volume: fao_participant_oi_DDMMYYYY.csv, fao_participant_vol_DDMMYYYY.csv',
  needsFiles: true,
  parse(file: SourceFile) {
    const out = new ParseResult<ParticipantRow>(file.path);
    const [title, header, ...body] = reportLines(file);
    const m = /(open interest|trading volume).* as on ([a-z]{3}) (\d{1,2}),\s*(\d{4})/i.exec(
      title?.cells.join(',') ?? '',
    );
    const d = m ? parseExchangeDate(`${m[3]}-${m[2]}-${m[4]}`) : undefined;
    if (!m || d === undefined)
      throw new ImportFileError(file.path, 1, 'the title does not name open interest or volume and a day');
    const kind = m[1]!.toLowerCase() === 'open interest' ? 'oi' : 'volume';
    const names = header?.cells.map(normalizeHeader) ?? [];
    if (HEADER.some((h, i) => names[i] !== h))
      throw new ImportFileError(file.path, header?.line ?? 2, `the header is not ${HEADER.join(', ')}`);
    const rows = new Map<ParticipantRow['participant'], { line: number; row: ParticipantRow }>();
    for (const { line, cells } of body) {
      const participant = WHO[cells[0]!.toUpperCase()];
      if (!participant) throw new ImportFileError(file.path, line, `unknown client type "${cells[0]}"`);
      const positions = {} as Record<PositionField, number>;
      POSITION_FIELDS.forEach((f, i) => {
        const n = Number(cells[i + 1]);
        if (cells[i + 1] === '' || !Number.isInteger(n) || n < 0)
          throw new ImportFileError(
            file.path,
            line,
            `${HEADER[i + 1]} "${cells[i + 1]}" is not a contract count`,
          );
        positions[f] = n;
      });
      rows.set(participant, { line, row: { d, kind, participant, positions } });
    }
    const missing = Object.values(WHO).filter((p) => !rows.has(p));
    if (missing.length > 0) throw new ImportFileError(file.path, 0, `no row for ${missing.join(', ')}`);
    const total = rows.get('total')!.row.positions;
    const problem = POSITION_FIELDS.filter((f) => f.endsWith('Long')).some(
      (f) => total[f] !== total[f.replace(/Long$/, 'Short') as PositionField],
    )
      ? 'the total long and short contracts differ'
      : POSITION_FIELDS.some(
            (f) =>
              Math.abs(PARTICIPANTS.reduce((s, p) => s + rows.get(p)!.row.positions[f], 0) - total[f]) >
              ROUNDING,
          )
        ? 'the participants do not add up to the total'
        : undefined;
    for (const { line, row } of rows.values()) {
      if (problem) out.reject(line, problem);
      else out.ok(line, row);
    }
    return out;
  },
  async apply(client, rows): Promise<Applied<ParticipantRow>> {
    const v = [
      ...new Map(rows.map((r) => [`${r.value.d}:${r.value.kind}:${r.value.participant}`, r.value])).values(),
    ];
    const cols = POSITION_COLUMNS;
    const { rowCount } = await client.query(
      `INSERT INTO fo_participants AS t (d, kind, participant, ${cols.join(', ')})
       SELECT * FROM unnest($1::date[], $2::text[], $3::text[], ${cols.map((_, i) => `$${i + 4}::bigint[]`).join(', ')})
       ON CONFLICT (d, kind, participant) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
       WHERE (${cols.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${cols.map((c) => `EXCLUDED.${c}`).join(', ')})`,
      [
        v.map((x) => formatDay(x.d)),
        v.map((x) => x.kind),
        v.map((x) => x.participant),
        ...POSITION_FIELDS.map((f) => v.map((x) => x.positions[f])),
      ],
    );
    return { loaded: rows, rejections: [], changed: rowCount ?? 0 };
  },
});
