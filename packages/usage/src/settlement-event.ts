/** How an admitted request ended. `voided` reverses a charge the gateway could not confirm to its client. */
export type SettlementKind = 'charged' | 'refunded' | 'voided';
export const SETTLEMENT_KINDS: readonly SettlementKind[] = ['charged', 'refunded', 'voided'];

export interface SettlementEvent {
  v: 1;
  request_id: string;
  account_id: string;
  kind: SettlementKind;
  /** When the ledger admitted the request: its IST day and month are the windows charged. */
  admitted_at_ms: number;
  settled_at_ms: number;
  /** The operation id and HTTP status, for the audit trail. */
  route: string;
  status: number;
  /** The front door the request came through; absent in events of before interfaces were told apart: `rest`. */
  interface?: Interface;
  /**
   * W3C trace context of the request, so the ledger's work joins its trace (events travel in batches).
   * Absent when the request id gives it (`requestTraceparent`, @mdp/telemetry): the reader derives it.
   */
  traceparent?: string;
}

/** Most events in one batch message (well under the NATS payload limit at ~300 bytes an event). */
export const MAX_BATCH_EVENTS = 1_000;

/** Request ids: the gateway's uuids, or (in events published before it made them all) a client's id. */
const UUIDISH = /^[A-Za-z0-9._:-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An operation id: what usage_routes accepts. */
const ROUTE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Validates an event from the wire; returns a reason when it is not one. */
export function parseSettlementEvent(value: unknown): SettlementEvent | string {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const e = value as Record<string, unknown>;
  if (e.v !== 1) return `unknown version ${String(e.v)}`;
  if (typeof e.request_id !== 'string' || !UUIDISH.test(e.request_id)) return 'bad request_id';
  // Accounts are the auth service's uuids; the event log keys them as such.
  if (typeof e.account_id !== 'string' || !UUID.test(e.account_id)) return 'bad account_id';
  if (!SETTLEMENT_KINDS.includes(e.kind as SettlementKind)) return `bad kind ${String(e.kind)}`;
  for (const key of ['admitted_at_ms', 'settled_at_ms', 'status'] as const) {
    if (typeof e[key] !== 'number' || !Number.isFinite(e[key])) return `bad ${key}`;
  }
  if (typeof e.route !== 'string' || !ROUTE.test(e.route)) return 'bad route';
  if (e.interface !== undefined && !INTERFACES.includes(e.interface as Interface))
    return `bad interface ${String(e.interface)}`;
  if (e.traceparent !== undefined && (typeof e.traceparent !== 'string' || e.traceparent.length > 128))
    return 'bad traceparent';
  return e as unknown as SettlementEvent;
}

/** The front doors a metered call can come through; usage is also reported per interface. */
export const INTERFACES = ['rest', 'mcp'] as const;
export type Interface = (typeof INTERFACES)[number];
