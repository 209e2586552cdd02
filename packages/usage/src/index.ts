import { hash } from 'node:crypto';
import type { SettlementEvent, SettlementKind } from './settlement-event.ts';

export { newRequestId } from './request-id.ts';

export * from './settlement-event.ts';
export * from './settlement-message.ts';

/**
 * The contract between the gateway (which settles) and the quota ledger (which consumes): the
 * settlement event, where it is published, and which ledger shard owns an account.
 */

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
