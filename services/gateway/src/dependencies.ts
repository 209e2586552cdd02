import type { AsyncClient } from '@mdp/grpc';
import { connectNats, DATA_CHANGED, subscribeJson } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import type { auth } from '@mdp/proto';
import type { Logger, Registry } from '@mdp/telemetry';
import { Authenticator, type AuthenticatorOptions, subscribeAuthEvents } from './authenticator.ts';
import type { Upstreams } from './catalogue/index.ts';
import { DocumentCache } from './document-cache.ts';
import { LedgerShards } from './ledger-shards.ts';
import { AdmissionClient } from './metering/admission.ts';
import { Metering } from './metering/metering.ts';
import { Settler } from './metering/settlement.ts';
import { TokenUseReporter } from './token-use.ts';
import { connectUpstreams, type UpstreamAddresses } from './upstreams.ts';

export interface DependencyOptions {
  addresses: UpstreamAddresses;
  natsUrl: string;
  usageStream: string;
  usageSubject: string;
  /** The stream's retention and replicas, declared as the ledger declares them (defaults 7 days, 1). */
  usageRetentionDays?: number;
  usageReplicas?: number;
  /** How long an admission is remembered for restoring to a restarted ledger (the ledger's hold TTL). */
  holdTtlMs?: number;
  upstreamDeadlineMs: number;
  authDeadlineMs: number;
  authCacheMax: number;
  authCacheTtlMs: number;
  /** Tags, the legacy deadline, lookup bounds and the failure throttle (issue 41); defaults when absent. */
  authFlood?: Pick<
    AuthenticatorOptions,
    | 'tagKeys'
    | 'legacyUntilMs'
    | 'lookupConcurrency'
    | 'legacyLookupConcurrency'
    | 'failureLimit'
    | 'failureWindowMs'
    | 'failureMaxAddresses'
  >;
  admissionDeadlineMs: number;
  settleAckTimeoutMs: number;
  /** How long one publish attempt of a charge waits (the settlement breaker counts its timeouts). */
  settleAttemptTimeoutMs?: number;
  /** How long a shard's charges may gather behind its batch in flight (0: published each turn). */
  settleLingerMs?: number;
  /** How long a data document may be served from the gateway's cache; 0 turns the cache off. */
  dataCacheTtlMs: number;
  dataCacheMaxBytes: number;
  /** Shorter in tests, so a dead auth service is retried sooner. */
  authBreakerOpenMs?: number;
  /** How often each token's last use is reported to the auth service (default 5 s). */
  tokenUseReportMs?: number;
  clock: Clock;
  logger: Logger;
  registry: Registry;
}

export interface Dependencies {
  upstreams: Upstreams;
  documents: DocumentCache | undefined;
  authenticator: Authenticator;
  authClient: AsyncClient<typeof auth.AuthServiceService>;
  metering: Metering;
  isConnected(): boolean;
  /** After the HTTP server has drained: flush settlements, close channels. */
  close(): Promise<void>;
}

/** Everything the gateway talks to: gRPC channels, NATS for auth events and settlements. */
export async function connectDependencies(o: DependencyOptions): Promise<Dependencies> {
  const shards = new LedgerShards(o.addresses.ledger);
  const { upstreams, authClient, close } = connectUpstreams(
    o.addresses,
    o.registry,
    o.upstreamDeadlineMs,
    shards,
  );
  const tokenUse = new TokenUseReporter(authClient, o.logger, o.tokenUseReportMs ?? 5_000);
  const authenticator = new Authenticator({
    onUse: (tokenId, atMs) => tokenUse.seen(tokenId, atMs),
    client: authClient,
    clock: o.clock,
    registry: o.registry,
    deadlineMs: o.authDeadlineMs,
    cacheMax: o.authCacheMax,
    cacheTtlMs: o.authCacheTtlMs,
    ...o.authFlood,
    ...(o.authBreakerOpenMs ? { breakerOpenMs: o.authBreakerOpenMs } : {}),
  });
  const documents =
    o.dataCacheTtlMs > 0
      ? new DocumentCache({ maxBytes: o.dataCacheMaxBytes, ttlMs: o.dataCacheTtlMs, registry: o.registry })
      : undefined;
  let settler: Settler | undefined;
  let natsUp = true;
  const nc = await connectNats({
    url: o.natsUrl,
    name: 'gateway',
    logger: o.logger,
    onDisconnect: () => {
      natsUp = false;
      settler?.connectionLost();
    },
    // Events sent while we were away are lost to us: start again from the services' word.
    onReconnect: () => {
      natsUp = true;
      settler?.connectionRestored();
      authenticator.clear('nats_reconnected');
      documents?.clear();
    },
  });
  subscribeAuthEvents(nc, authenticator, o.logger);
  if (documents) {
    subscribeJson<{ service: string }>(
      nc,
      `${DATA_CHANGED}.*`,
      (event) => {
        if (event.service === 'equities' || event.service === 'filings' || event.service === 'options') {
          documents.dropUpstream(event.service);
        }
      },
      o.logger,
    );
  }
  const settlement = await Settler.create({
    nc,
    stream: o.usageStream,
    subjectPrefix: o.usageSubject,
    retentionDays: o.usageRetentionDays,
    replicas: o.usageReplicas,
    ackTimeoutMs: o.settleAckTimeoutMs,
    attemptTimeoutMs: o.settleAttemptTimeoutMs ?? o.settleAckTimeoutMs,
    lingerMs: o.settleLingerMs ?? 0,
    shards: shards.count,
    compactTo: (shard) => admission.readsCompact(shard),
    logger: o.logger,
    registry: o.registry,
    clock: o.clock,
  });
  settler = settlement;
  const admission = new AdmissionClient({
    shards,
    deadlineMs: o.admissionDeadlineMs,
    logger: o.logger,
    registry: o.registry,
    clock: o.clock,
    ...(o.holdTtlMs === undefined ? {} : { holdTtlMs: o.holdTtlMs }),
    chargeable: (shard) => settlement.available(shard),
  });
  const metering = new Metering(admission, settlement);
  return {
    upstreams,
    documents,
    authenticator,
    authClient,
    metering,
    // Not ready while NATS is away: no 200 could be charged.
    isConnected: () => natsUp && !nc.isClosed(),
    close: async () => {
      await metering.drain(5_000);
      metering.close();
      await tokenUse.close();
      close();
      await nc.drain();
    },
  };
}
