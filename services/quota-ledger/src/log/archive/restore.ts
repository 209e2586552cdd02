import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { withTransaction } from '@mdp/db';
import type { Pool } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ArchiveError, message, sealDifferences } from './errors.ts';
import {
  type DayFigure,
  type DaySeal,
  dayFileNames,
  istDayBounds,
  LineSplitter,
  normalizeSeal,
  parseCanonicalLine,
  restoredTableName,
  sortFigures,
} from './format.ts';
import { type ArchiveTarget, ObjectNotFoundError } from './target.ts';

/** What `restoreArchivedDay` loaded. */
export interface RestoreResult {
  /** The table, in the ledger's schema. */
  table: string;
  events: number;
  sha256: string;
  /** Per account, route and interface, in that order: events of every kind, and requests charged and not voided. */
  figures: DayFigure[];
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (s: string) => s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);

/**
 * For an audit: loads an archived day into the standalone table `usage_restored_YYYYMMDD` of the ledger's
 * schema (columns as the canonical fields; replaced if it exists), checking every line is canonical and of
 * the day, and the lines' count and sha256 against the seal while loading, in one transaction: on any
 * failure nothing is left (a table restored before stays as it was) and an `ArchiveError` of stage
 * `restore` is thrown. Resolves to the table's name and its figures, to compare with `usage_seal_figures`
 * (`figureDifferences`). The manifest is not needed.
 */
export async function restoreArchivedDay(
  pool: Pool,
  target: ArchiveTarget,
  day: string,
  seal: DaySeal,
): Promise<RestoreResult> {
  let want: { events: number; sha256: string };
  try {
    want = normalizeSeal(seal);
  } catch (err) {
    throw new ArchiveError('restore', day, message(err), [], { cause: err });
  }
  const table = restoredTableName(day);
  const names = dayFileNames(day);
  const bounds = istDayBounds(day);
  try {
    return await withTransaction(pool, async (client) => {
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.query(`CREATE TABLE ${table} (
        request_id     uuid NOT NULL,
        account_id     uuid NOT NULL,
        kind           text NOT NULL CHECK (kind IN ('charged', 'refunded', 'voided')),
        admitted_at_ms bigint NOT NULL,
        route          text NOT NULL,
        status         integer NOT NULL,
        interface      text NOT NULL CHECK (interface IN ('rest', 'mcp'))
      )`);
      const src = await target.read(names.data);
      const lines = createHash('sha256');
      const splitter = new LineSplitter();
      let events = 0;
      let sha256 = '';
      const copy = client.query(
        copyFrom(
          `COPY ${table} (request_id, account_id, kind, admitted_at_ms, route, status, interface) FROM STDIN`,
        ),
      );
      await pipeline(
        src,
        createGunzip(),
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            lines.update(chunk);
            let rows = '';
            for (const line of splitter.push(chunk)) {
              const e = parseCanonicalLine(line, bounds);
              events++;
              rows += `${e.request_id}\t${e.account_id}\t${e.kind}\t${e.admitted_at_ms}\t${copyText(e.route)}\t${e.status}\t${e.interface}\n`;
            }
            if (rows !== '') yield Buffer.from(rows);
          }
          if (splitter.end() !== null) throw new Error('the data file ends inside a line');
          sha256 = lines.digest('hex');
          // Thrown before the COPY ends, so it fails and loads nothing.
          const differences = sealDifferences('the data file', { events, sha256 }, want);
          if (differences.length > 0)
            throw new ArchiveError('restore', day, 'the archive differs from its seal', differences);
        },
        copy,
      );
      // Per request (its events share its route and interface), then per account, route and interface,
      // with the log's rule; a kind's first letter is its code in the log.
      const { rows } = await client.query<DayFigure>(
        `SELECT account_id, route, interface, sum(n)::int AS events, (count(*) FILTER (WHERE charged))::int AS charged
           FROM (SELECT t.account_id::text AS account_id, min(t.route) AS route, min(t.interface) AS interface,
                        count(*) AS n, usage_charged(array_agg(left(t.kind, 1)::"char")) AS charged
                   FROM ${table} t GROUP BY t.request_id, t.account_id) AS requests
          GROUP BY 1, 2, 3`,
      );
      await client.query(
        `COMMENT ON TABLE ${table} IS ${client.escapeLiteral(
          `usage events of IST day ${day} restored from ${target.uriOf(names.data)} (${events} events, sha256 ${sha256})`,
        )}`,
      );
      return { table, events, sha256, figures: sortFigures(rows) };
    });
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(
      'restore',
      day,
      err instanceof ObjectNotFoundError ? `the data file is missing: ${err.uri}` : message(err),
      [],
      { cause: err },
    );
  }
}
