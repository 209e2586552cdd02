import { createHash } from 'node:crypto';
import type { Pool } from '@mdp/db';
import { istDay } from '@mdp/nse-calendar';
import type { DayFigure } from '../src/log/archive/format.ts';
import { istDayBounds } from '../src/log/archive/format.ts';
import { type CanonicalEvent, canonicalLine } from '../src/log/usage-day.ts';

/** A uuid made from a label, the same every run (lower-case, as the log prints them). */
export function uuidOf(label: string): string {
  const h = createHash('md5').update(label).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A small deterministic generator (mulberry32), so a day's events are the same every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ROUTES = ['getStockQuote', 'searchStocks', 'getOptionChain'] as const;

/**
 * The events of `requests` requests admitted on an IST day, of three accounts, three routes and both
 * interfaces: most charged, some refunded, some charged then voided, a few voided with no charge; the
 * day's first and last millisecond included.
 */
export function dayEvents(day: string, requests: number, seed = 1): CanonicalEvent[] {
  const rnd = random(seed);
  const { fromMs, toMs } = istDayBounds(day);
  const accounts = [0, 1, 2].map((i) => uuidOf(`account-${seed}-${i}`));
  const out: CanonicalEvent[] = [];
  for (let i = 0; i < requests; i++) {
    const at = i === 0 ? fromMs : i === 1 ? toMs - 1 : fromMs + Math.floor(rnd() * (toMs - fromMs));
    const base = {
      request_id: uuidOf(`${day}-${seed}-request-${i}`),
      account_id: accounts[Math.floor(rnd() * accounts.length)]!,
      admitted_at_ms: at,
      route: ROUTES[Math.floor(rnd() * ROUTES.length)]!,
      interface: rnd() < 0.3 ? ('mcp' as const) : ('rest' as const),
    };
    const p = rnd();
    if (p < 0.68) out.push({ ...base, kind: 'charged', status: 200 });
    else if (p < 0.88) out.push({ ...base, kind: 'refunded', status: rnd() < 0.5 ? 404 : 503 });
    else if (p < 0.98) {
      out.push({ ...base, kind: 'charged', status: 200 });
      out.push({ ...base, kind: 'voided', status: 200 });
    } else out.push({ ...base, kind: 'voided', status: 200 });
  }
  return out;
}

/** The day's canonical lines, made here (not by the code under test): sorted by request, account and kind. */
export function canonicalOf(events: readonly CanonicalEvent[]): {
  lines: string;
  events: number;
  sha256: string;
} {
  const key = (e: CanonicalEvent) => `${e.request_id} ${e.account_id} ${e.kind}`;
  const lines = [...events]
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map(canonicalLine)
    .join('');
  return { lines, events: events.length, sha256: createHash('sha256').update(lines).digest('hex') };
}

/** Per account, route and interface: events of every kind, requests charged and not voided. */
export function figuresOf(events: readonly CanonicalEvent[]): DayFigure[] {
  const voided = new Set(
    events.filter((e) => e.kind === 'voided').map((e) => `${e.request_id} ${e.account_id}`),
  );
  const by = new Map<string, DayFigure>();
  for (const e of events) {
    const k = `${e.account_id} ${e.route} ${e.interface}`;
    const f = by.get(k) ?? {
      account_id: e.account_id,
      route: e.route,
      interface: e.interface,
      events: 0,
      charged: 0,
    };
    f.events++;
    if (e.kind === 'charged' && !voided.has(`${e.request_id} ${e.account_id}`)) f.charged++;
    by.set(k, f);
  }
  return [...by.values()];
}

/** Writes events into the partitioned log (their days' partitions made, their routes numbered). */
export async function insertEvents(pool: Pool, events: readonly CanonicalEvent[]): Promise<void> {
  const days = new Set(events.map((e) => istDay(e.admitted_at_ms)));
  for (const day of days) await pool.query('SELECT usage_events_ensure_partition($1::date)', [day]);
  await pool.query(
    'INSERT INTO usage_routes (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING',
    [[...new Set(events.map((e) => e.route))]],
  );
  await pool.query(
    'INSERT INTO usage_accounts (account_id) SELECT unnest($1::uuid[]) ON CONFLICT (account_id) DO NOTHING',
    [[...new Set(events.map((e) => e.account_id))]],
  );
  const { rows } = await pool.query<{ id: number; name: string }>('SELECT id, name FROM usage_routes');
  const routeId = new Map(rows.map((r) => [r.name, r.id]));
  for (let i = 0; i < events.length; i += 5000) {
    const chunk = events.slice(i, i + 5000);
    await pool.query(
      `INSERT INTO usage_events (request_id, account, admitted_at, route, status, kind, interface)
       SELECT u.r, usage_account(u.a), u.t, u.route, u.status, u.k::"char", u.i::"char"
         FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::smallint[], $5::smallint[], $6::text[], $7::text[])
           AS u(r, a, t, route, status, k, i)`,
      [
        chunk.map((e) => e.request_id),
        chunk.map((e) => e.account_id),
        chunk.map((e) => new Date(e.admitted_at_ms).toISOString()),
        chunk.map((e) => routeId.get(e.route)),
        chunk.map((e) => e.status),
        chunk.map((e) => e.kind[0]),
        chunk.map((e) => e.interface[0]),
      ],
    );
  }
}
