import { type Pool, withTransaction } from '@mdp/db';
import { type DayFigure, figureDifferences } from './archive/index.ts';
import { readCanonicalDay } from './usage-day.ts';

/** The seals of closed IST days: the billing record (migration 0005, usage_seals and usage_seal_figures). */

export const partitionName = (day: string) => `usage_events_${day.replaceAll('-', '')}`;

/** Per request, then per account, route and interface: events of every kind, and charged-not-voided requests. */
const figuresOf = (relation: string) => `
  SELECT account_id::text AS account_id, route, via AS interface, sum(n)::int AS events,
         (count(*) FILTER (WHERE charged))::int AS charged
    FROM (SELECT a.account_id, min(r.name) AS route,
                 CASE WHEN bool_or(e.interface = 'm') THEN 'mcp' ELSE 'rest' END AS via, count(*) AS n,
                 usage_charged(array_agg(e.kind)) AS charged
            FROM ${relation} e JOIN usage_routes r ON r.id = e.route JOIN usage_accounts a ON a.id = e.account
           GROUP BY e.request_id, a.account_id) AS requests
   GROUP BY account_id, route, via`;

export interface Seal {
  day: string;
  events: number;
  sha256: string;
  archivedAt: Date | null;
  archiveUri: string | null;
  droppedAt: Date | null;
}

export async function seals(pool: Pool, day?: string): Promise<Seal[]> {
  const { rows } = await pool.query<Seal>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, events::float8 AS events, sha256, archived_at AS "archivedAt",
            archive_uri AS "archiveUri", dropped_at AS "droppedAt"
       FROM usage_seals WHERE $1::date IS NULL OR day = $1::date ORDER BY day`,
    [day ?? null],
  );
  return rows;
}

export async function sealedFigures(pool: Pool, day: string): Promise<DayFigure[]> {
  const { rows } = await pool.query<DayFigure>(
    `SELECT account_id, route, interface, events, charged FROM usage_seal_figures WHERE day = $1`,
    [day],
  );
  return rows;
}

/**
 * Seals one day: its canonical lines' count and sha256, and its figures per account, route and
 * interface, read in one snapshot. The partition is locked against inserts meanwhile, so the seal is of
 * exactly what the partition holds when it commits; after that the record statement leaves the day's
 * events out. Returns the seal.
 */
export async function sealDay(pool: Pool, day: string): Promise<{ events: number; sha256: string }> {
  return withTransaction(
    pool,
    async (client) => {
      await client.query(`LOCK TABLE ${partitionName(day)} IN SHARE MODE`);
      const seal = await readCanonicalDay(client, day);
      await client.query('INSERT INTO usage_seals (day, events, sha256) VALUES ($1, $2, $3)', [
        day,
        seal.events,
        seal.sha256,
      ]);
      await client.query(
        `INSERT INTO usage_seal_figures (day, account_id, route, interface, events, charged)
         SELECT $1::date, * FROM (${figuresOf(partitionName(day))}) AS f`,
        [day],
      );
      return seal;
    },
    { isolation: 'repeatable read' },
  );
}

/**
 * Every sealed day still held in Postgres read again and compared with its seal: the canonical lines'
 * count and sha256, and the figures. One sentence per difference; empty when every seal holds.
 */
export async function sealDifferences(pool: Pool): Promise<string[]> {
  const out: string[] = [];
  for (const seal of (await seals(pool)).filter((s) => s.droppedAt === null)) {
    await withTransaction(
      pool,
      async (client) => {
        const now = await readCanonicalDay(client, seal.day);
        if (now.events !== seal.events)
          out.push(`${seal.day}: ${now.events} events held, the seal says ${seal.events}`);
        else if (now.sha256 !== seal.sha256)
          out.push(`${seal.day}: the events held differ from the sealed ones`);
        const { rows } = await client.query<DayFigure>(figuresOf(partitionName(seal.day)));
        for (const d of figureDifferences(await sealedFigures(pool, seal.day), rows))
          out.push(`${seal.day}: ${d}`);
      },
      { isolation: 'repeatable read' },
    );
  }
  return out;
}
