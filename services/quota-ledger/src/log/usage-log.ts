import { createHash } from 'node:crypto';
import { istDay, istMonth } from '@mdp/nse-calendar';
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

/** One row of the record statement's input: the log's columns plus the projections' day, month and names. */
export interface LogRow {
  request_id: string;
  /** The account's number in usage_accounts (the log's column) and its uuid (the projections'). */
  account: number;
  account_id: string;
  kind: 'c' | 'r' | 'v';
  admitted_at_ms: number;
  day: string;
  month: string;
  route: number;
  route_name: string;
  status: number;
  interface: 'r' | 'm';
  via: Interface;
}

export function logRow(e: SettlementEvent, routeId: number, account: number): LogRow {
  const via = e.interface ?? 'rest';
  return {
    request_id: logUuid(e.request_id),
    account,
    account_id: e.account_id.toLowerCase(),
    kind: KIND_CODE[e.kind],
    admitted_at_ms: e.admitted_at_ms,
    day: istDay(e.admitted_at_ms),
    month: istMonth(e.admitted_at_ms),
    route: routeId,
    route_name: e.route,
    status: e.status,
    interface: INTERFACE_CODE[via],
    via,
  };
}
