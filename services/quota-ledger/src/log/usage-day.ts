import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * One IST day of the event log in its canonical form: one JSON object a line, in (request_id,
 * account_id, kind) order, each with the same keys in the same order. It is what a day's archive file
 * holds, and what a day's seal counts and digests (sha256 of the lines, each ending in "\n"), so an
 * archive is checked against its seal line for line.
 */
export interface CanonicalEvent {
  request_id: string;
  account_id: string;
  kind: 'charged' | 'refunded' | 'voided';
  admitted_at_ms: number;
  route: string;
  status: number;
  interface: 'rest' | 'mcp';
}

/** The fields of a canonical line, described: written into every archive's manifest. */
export const CANONICAL_FIELDS: Record<keyof CanonicalEvent, string> = {
  request_id: 'the request id (uuid) the gateway made',
  account_id: 'the account (uuid) charged or refunded',
  kind: 'charged (the client got a 200), refunded (any other answer) or voided (a charge reversed)',
  admitted_at_ms: 'when the ledger admitted the request, Unix milliseconds; its IST day is the file’s day',
  route: 'the operation id of the route',
  status: 'the HTTP status of the answer (200 for charged and voided)',
  interface: 'the front door: rest or mcp',
};

export const canonicalLine = (e: CanonicalEvent): string =>
  `${JSON.stringify({
    request_id: e.request_id,
    account_id: e.account_id,
    kind: e.kind,
    admitted_at_ms: e.admitted_at_ms,
    route: e.route,
    status: e.status,
    interface: e.interface,
  })}\n`;

const KINDS = { c: 'charged', r: 'refunded', v: 'voided' } as const;

/** The day's events, tab-separated in canonical order, as COPY writes them (no value needs escaping: route names are plain, see usage_routes). */
const copyDay = (day: string) => `COPY (
  SELECT e.request_id, a.account_id, e.kind, floor(extract(epoch FROM e.admitted_at) * 1000)::bigint, r.name, e.status,
         e.interface
    FROM usage_events e JOIN usage_routes r ON r.id = e.route JOIN usage_accounts a ON a.id = e.account
   WHERE e.admitted_at >= ('${day}'::date)::timestamp AT TIME ZONE 'Asia/Kolkata'
     AND e.admitted_at < ('${day}'::date + 1)::timestamp AT TIME ZONE 'Asia/Kolkata'
   ORDER BY e.request_id, a.account_id, e.kind
) TO STDOUT`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Streams one day's canonical lines to `onLine` (awaited, so a slow writer holds the read back) and
 * returns their count and digest. Run it inside a REPEATABLE READ transaction to read the day as of one
 * snapshot alongside other statements.
 */
export async function readCanonicalDay(
  client: PoolClient,
  day: string,
  onLine?: (line: string) => void | Promise<void>,
): Promise<{ events: number; sha256: string }> {
  if (!DAY.test(day)) throw new Error(`not a day: ${day}`);
  const hash = createHash('sha256');
  let events = 0;
  const stream = client.query(copyTo(copyDay(day)));
  for await (const row of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    const [requestId, accountId, kind, at, route, status, via] = row.split('\t');
    const line = canonicalLine({
      request_id: requestId!,
      account_id: accountId!,
      kind: KINDS[kind as keyof typeof KINDS],
      admitted_at_ms: Number(at),
      route: route!,
      status: Number(status),
      interface: via === 'm' ? 'mcp' : 'rest',
    });
    hash.update(line);
    events++;
    if (onLine) await onLine(line);
  }
  return { events, sha256: hash.digest('hex') };
}
