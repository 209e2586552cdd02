import { createHash } from 'node:crypto';
import type { Interface, SettlementEvent, SettlementKind } from '@mdp/usage';

/**
 * How a settlement event is written in the partitioned event log (migrations 0005 and 0006): a uuid
 * request id, the account and the route as numbers, kind and interface as one character each.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (id: string) => UUID.test(id);

/** A uuid that is no account's: what a lookup by an id that is not a uuid reads. */
export const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/**
 * A request id as the log keeps it: itself when it is a uuid (every id the gateway makes), else a uuid
 * digest of it, the same one every time (ids clients chose before the gateway made them all, still in
 * the stream at an upgrade). The SQL function `usage_log_uuid` is the same mapping.
 */
export function logUuid(id: string): string {
  if (isUuid(id)) return id.toLowerCase();
  const h = createHash('md5').update(`mdp-usage-log:${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const KIND_CODE: Record<SettlementKind, 'c' | 'r' | 'v'> = {
  charged: 'c',
  refunded: 'r',
  voided: 'v',
};
const INTERFACE_CODE: Record<Interface, 'r' | 'm'> = { rest: 'r', mcp: 'm' };

/** One event as the log's row: its columns, the account and the route as their numbers. */
export interface LogRow {
  request_id: string;
  account: number;
  kind: 'c' | 'r' | 'v';
  admitted_at_ms: number;
  route: number;
  status: number;
  interface: 'r' | 'm';
}

export function logRow(e: SettlementEvent, routeId: number, account: number): LogRow {
  return {
    request_id: logUuid(e.request_id),
    account,
    kind: KIND_CODE[e.kind],
    admitted_at_ms: e.admitted_at_ms,
    route: routeId,
    status: e.status,
    interface: INTERFACE_CODE[e.interface ?? 'rest'],
  };
}

/** Log order: by request id (right-edge inserts into the request key's index), then account, then kind. */
function logOrder(x: LogRow, y: LogRow): number {
  if (x.request_id !== y.request_id) return x.request_id < y.request_id ? -1 : 1;
  if (x.account !== y.account) return x.account - y.account;
  return x.kind === y.kind ? 0 : x.kind < y.kind ? -1 : 1;
}

/**
 * A batch's rows as the record statement takes them: in log order, one per request, account and kind
 * (the log's key; of the same event delivered twice, the later). Sorts `rows` in place.
 */
export function uniqueLogRows(rows: LogRow[]): LogRow[] {
  rows.sort(logOrder);
  let kept = 0;
  for (let i = 0; i < rows.length; i++) {
    // The sort is stable: the last of a run of equal keys is the one delivered last.
    const next = rows[i + 1];
    if (next !== undefined && logOrder(rows[i]!, next) === 0) continue;
    rows[kept++] = rows[i]!;
  }
  rows.length = kept;
  return rows;
}

/**
 * The rows as the record statement's parameters: one array literal a column, in `LogRow`'s order.
 * Every element is a uuid, a number or one letter, so none needs quoting. Postgres reads typed arrays
 * for about a third of what `json_to_recordset` of the same rows costs it (1.3 against 4.0 µs an event,
 * 500-event batches, backend CPU).
 */
export function logColumns(rows: readonly LogRow[]): string[] {
  const column = (value: (r: LogRow) => string | number) => `{${rows.map(value).join(',')}}`;
  return [
    column((r) => r.request_id),
    column((r) => r.account),
    column((r) => r.kind),
    column((r) => r.admitted_at_ms),
    column((r) => r.route),
    column((r) => r.status),
    column((r) => r.interface),
  ];
}
