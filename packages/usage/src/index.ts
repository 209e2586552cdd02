import { hash } from 'node:crypto';

export { newRequestId } from './request-id.ts';

/**
 * The contract between the gateway (which settles) and the quota ledger (which consumes): the
 * settlement event, where it is published, and which ledger shard owns an account.
 */

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
  /** W3C trace context of the request, so the ledger's work joins its trace (events travel in batches). */
  traceparent?: string;
}

/**
 * One JetStream message may carry the charges of many requests (what one gateway turn settled on one
 * shard): one publish and one acknowledgement for all of them. Each event is still keyed by its request
 * id in the log; the message id of a batch is its own (`batch:<uuid>`), so a retried publish of the
 * batch is stored once.
 */
export interface SettlementBatch {
  v: 1;
  events: SettlementEvent[];
}

/** Most events in one batch message (well under the NATS payload limit at ~300 bytes an event). */
export const MAX_BATCH_EVENTS = 1_000;

/**
 * Where a shard's settlement events are published: a JetStream stream of the shard's own (`<stream>_<shard>`,
 * subjects `<prefix>-<shard>.<kind>`), so that on a cluster the streams' leaders, and their writes, sit
 * on different servers, and a server's loss touches only the shards whose streams it led. Until
 * 29 November 2026 every shard's events went to one stream (`LEGACY_STREAM`); the ledger still records
 * what that stream holds, and a gateway publishes there for a shard whose own stream no ledger has made
 * yet (an older ledger still running).
 */
export function settlementSubject(prefix: string, shard: number, kind: SettlementKind): string {
  return `${prefix}-${shard}.${kind}`;
}

/** The stream of one shard's settlement events. */
export function shardStreamName(stream: string, shard: number): string {
  return `${stream}_${shard}`;
}

/** A shard's stream, as every publisher and consumer declares it. */
export function shardStreamSpec(
  stream: string,
  subjectPrefix: string,
  shard: number,
  retentionDays = 7,
  replicas = 1,
) {
  return streamSpec(shardStreamName(stream, shard), [`${subjectPrefix}-${shard}.*`], retentionDays, replicas);
}

/**
 * The stream every shard's events went to before each shard had its own: named `<stream>`, subjects
 * `<prefix>.<shard>.<kind>`, each shard's consumer filtering on its shard. Declared only by a gateway
 * that finds it and no stream of the shard's own.
 */
export const LEGACY_STREAM = {
  subject: (prefix: string, shard: number, kind: SettlementKind) => `${prefix}.${shard}.${kind}`,
  filter: (prefix: string, shard: number) => `${prefix}.${shard}.*`,
  spec: (name: string, subjectPrefix: string, retentionDays = 7, replicas = 1) =>
    streamSpec(name, [`${subjectPrefix}.>`], retentionDays, replicas),
};

function streamSpec(name: string, subjects: string[], retentionDays: number, replicas: number) {
  return {
    name,
    subjects,
    maxAgeMs: retentionDays * 86_400_000,
    duplicateWindowMs: 120_000,
    replicas,
  };
}

/**
 * JetStream message id of a lone event: the account and the request id (the key of a request is both),
 * plus the kind for a void (which follows a charge of the same request). A request is charged or
 * refunded, never both, so those two share one id.
 */
export function settlementMsgId(event: Pick<SettlementEvent, 'request_id' | 'account_id' | 'kind'>): string {
  const key = `${event.account_id}/${event.request_id}`;
  return event.kind === 'voided' ? `${key}:voided` : key;
}

/** Which ledger shard owns an account: stable across processes and restarts. */
export function shardOf(accountId: string, shardCount: number): number {
  if (shardCount <= 1) return 0;
  return hash('sha1', accountId, 'buffer').readUInt32BE(0) % shardCount;
}

/**
 * Which ledger shard relieves `shard` while its process restarts (after a hand-over): the index before
 * it (shard 0's is 1). The same under every shard count that has both, so one process relieves all a
 * stopped process ran (its count's run and a stand-in's), and a gateway on any map sends an account
 * there while its own shard is unreachable.
 */
export function reliefOf(shard: number): number {
  return shard === 0 ? 1 : shard - 1;
}

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

/**
 * Reads a settlement message: one event, or a batch of them. Returns the events and, for a batch, the
 * reasons its unreadable events were left out; a string when the message is neither.
 */
export function parseSettlementMessage(
  value: unknown,
): { events: SettlementEvent[]; rejected: string[] } | string {
  const batch = value as Partial<SettlementBatch> | null;
  if (typeof batch !== 'object' || batch === null || !Array.isArray(batch.events)) {
    const single = parseSettlementEvent(value);
    return typeof single === 'string' ? single : { events: [single], rejected: [] };
  }
  if (batch.v !== 1) return `unknown batch version ${String(batch.v)}`;
  if (batch.events.length > MAX_BATCH_EVENTS) return `batch of ${batch.events.length} events`;
  const events: SettlementEvent[] = [];
  const rejected: string[] = [];
  for (const item of batch.events) {
    const parsed = parseSettlementEvent(item);
    if (typeof parsed === 'string') rejected.push(parsed);
    else events.push(parsed);
  }
  return { events, rejected };
}

/** The front doors a metered call can come through; usage is also reported per interface. */
export const INTERFACES = ['rest', 'mcp'] as const;
export type Interface = (typeof INTERFACES)[number];
