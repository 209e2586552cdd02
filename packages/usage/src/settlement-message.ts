import {
  type Interface,
  MAX_BATCH_EVENTS,
  parseSettlementEvent,
  SETTLEMENT_KINDS,
  type SettlementEvent,
  type SettlementKind,
} from './settlement-event.ts';

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

/**
 * Reads a settlement message: one event, or a batch of them (version 1, or compact). Returns the events
 * and, for a batch, the reasons its unreadable events were left out; a string when the message is neither.
 */
export function parseSettlementMessage(
  value: unknown,
): { events: SettlementEvent[]; rejected: string[] } | string {
  const batch = value as Partial<SettlementBatch> | null;
  if (typeof batch !== 'object' || batch === null || !Array.isArray(batch.events)) {
    const single = parseSettlementEvent(value);
    return typeof single === 'string' ? single : { events: [single], rejected: [] };
  }
  if ((batch.v as number) === COMPACT_BATCH_VERSION)
    return parseCompactBatch(batch as unknown as Record<string, unknown>);
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

/**
 * The compact batch (version 2): one kind and one settlement time for the batch, each account id and
 * route written once, and each event as a row of positions:
 *
 *   { v: 2, kind, settled_at_ms, accounts: [id, …], routes: [operation id, …],
 *     events: [[request_id, account (index), admitted_at_ms, route (index), status, interface, traceparent?], …] }
 *
 * About 71 to 84 bytes a charge in batches of 100 to 10 (129 to 142 with a traceparent, which most leave
 * out: `traceparentToSend`), against 319 as version 1 objects. nats-server copies every byte into its
 * store and out again to the ledger's consumer, and the ledger parses them (contributors.md, "Compact
 * settlement batches"). The settlement time is the batch's (its first charge's): the log does not keep
 * it. A ledger of a release before this format leaves such a message out as poison, so a gateway writes
 * it only to a stream whose ledger said it
 * reads it (`BATCH_VERSIONS_KEY`).
 */
export const COMPACT_BATCH_VERSION = 2;

/**
 * The gRPC metadata key a ledger answers its admission stream with: the batch versions it reads
 * (`'1,2'`). A gateway writes compact batches for a shard only while its stream to that shard's ledger
 * is open and said so; a stream without it is a ledger of an earlier release.
 */
export const BATCH_VERSIONS_KEY = 'mdp-settlement-batch-versions';
export const BATCH_VERSIONS_READ = `1,${COMPACT_BATCH_VERSION}`;

/** Whether a ledger's `BATCH_VERSIONS_KEY` value says it reads compact batches. */
export const readsCompact = (value: unknown): boolean =>
  typeof value === 'string' && value.split(',').includes(String(COMPACT_BATCH_VERSION));

/** A batch's events (at least one, all of one kind) as one compact message. */
export function compactBatch(events: readonly SettlementEvent[]): string {
  const first = events[0];
  if (first === undefined) throw new Error('a compact batch needs an event');
  const accounts: string[] = [];
  const accountAt = new Map<string, number>();
  const routes: string[] = [];
  const routeAt = new Map<string, number>();
  const rows: unknown[][] = [];
  for (const e of events) {
    if (e.kind !== first.kind) throw new Error('a compact batch holds events of one kind');
    let account = accountAt.get(e.account_id);
    if (account === undefined) {
      account = accounts.push(e.account_id) - 1;
      accountAt.set(e.account_id, account);
    }
    let route = routeAt.get(e.route);
    if (route === undefined) {
      route = routes.push(e.route) - 1;
      routeAt.set(e.route, route);
    }
    const row = [e.request_id, account, e.admitted_at_ms, route, e.status, e.interface ?? 'rest'];
    if (e.traceparent) row.push(e.traceparent);
    rows.push(row);
  }
  return JSON.stringify({
    v: COMPACT_BATCH_VERSION,
    kind: first.kind,
    settled_at_ms: first.settled_at_ms,
    accounts,
    routes,
    events: rows,
  });
}

/**
 * Reads a compact batch into version 1 events, checked as `parseSettlementEvent` checks one: the
 * events and the reasons its unreadable ones were left out, or a string when the batch itself is not
 * readable (its kind, time, accounts or routes).
 */
export function parseCompactBatch(
  batch: Record<string, unknown>,
): { events: SettlementEvent[]; rejected: string[] } | string {
  const { kind, settled_at_ms: settledAt, accounts, routes, events } = batch;
  if (!SETTLEMENT_KINDS.includes(kind as SettlementKind)) return `bad batch kind ${String(kind)}`;
  if (typeof settledAt !== 'number' || !Number.isFinite(settledAt)) return 'bad batch settled_at_ms';
  if (!Array.isArray(accounts) || !Array.isArray(routes) || !Array.isArray(events))
    return 'a compact batch needs accounts, routes and events';
  if (events.length > MAX_BATCH_EVENTS) return `batch of ${events.length} events`;
  const out: SettlementEvent[] = [];
  const rejected: string[] = [];
  for (const row of events) {
    if (!Array.isArray(row) || row.length < 6 || row.length > 7) {
      rejected.push('not an event row');
      continue;
    }
    const [requestId, account, admittedAt, route, status, via, traceparent] = row as unknown[];
    const accountId = typeof account === 'number' ? accounts[account] : undefined;
    const routeId = typeof route === 'number' ? routes[route] : undefined;
    const event: SettlementEvent = {
      v: 1,
      request_id: requestId as string,
      account_id: accountId as string,
      kind: kind as SettlementKind,
      admitted_at_ms: admittedAt as number,
      settled_at_ms: settledAt,
      route: routeId as string,
      status: status as number,
      interface: via as Interface,
    };
    if (traceparent !== undefined) event.traceparent = traceparent as string;
    // The same checks as a version 1 event's, so neither form lets through what the other refuses.
    const parsed = parseSettlementEvent(event);
    if (typeof parsed === 'string') rejected.push(parsed);
    else out.push(parsed);
  }
  return { events: out, rejected };
}
