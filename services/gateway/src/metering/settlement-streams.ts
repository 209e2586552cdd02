import { ensureStream, jetstreamManager, type NatsConnection } from '@mdp/nats';
import type { Clock } from '@mdp/nse-calendar';
import type { Logger } from '@mdp/telemetry';
import {
  LEGACY_STREAM,
  type SettlementKind,
  settlementSubject,
  shardStreamName,
  shardStreamSpec,
} from '@mdp/usage';

/** How often a shard still published to the legacy stream looks for a stream of its own. */
const LOOK_AGAIN_MS = 5_000;

interface Route {
  legacy: boolean;
  checkedAt: number;
}

/**
 * Which stream each shard's settlement events go to. A shard's own stream once it exists (a ledger of
 * this version makes it when it starts, and consumes the legacy stream too); the legacy stream while
 * only that one exists, so that a gateway rolled out before the ledgers never publishes where the
 * running ledger does not read; and on a new deployment (neither exists yet) the shard's own, made here.
 * A shard on the legacy stream looks again every LOOK_AGAIN_MS; once on its own, it stays there.
 */
export class SettlementStreams {
  private readonly routes = new Map<number, Route>();
  private readonly looking = new Map<number, Promise<Route>>();

  constructor(
    private readonly o: {
      nc: NatsConnection;
      stream: string;
      subjectPrefix: string;
      retentionDays?: number;
      replicas?: number;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** The subject of `shard`'s events of `kind`. Rejects while JetStream cannot say where they go. */
  async subject(shard: number, kind: SettlementKind): Promise<string> {
    let route = this.routes.get(shard);
    if (route === undefined) route = await this.look(shard);
    else if (route.legacy && this.o.clock() - route.checkedAt >= LOOK_AGAIN_MS)
      void this.look(shard).catch(() => {});
    return route.legacy
      ? LEGACY_STREAM.subject(this.o.subjectPrefix, shard, kind)
      : settlementSubject(this.o.subjectPrefix, shard, kind);
  }

  /**
   * Resolves once the stream `shard`'s charges go to answers a request for its information within
   * `timeoutMs`: its leader is there, as a charge's acknowledgement needs. Rejects otherwise.
   */
  async answers(shard: number, timeoutMs: number): Promise<void> {
    const route = this.routes.get(shard) ?? (await this.look(shard));
    const jsm = await jetstreamManager(this.o.nc, timeoutMs);
    await jsm.streams.info(route.legacy ? this.o.stream : shardStreamName(this.o.stream, shard));
  }

  private look(shard: number): Promise<Route> {
    let looking = this.looking.get(shard);
    if (looking === undefined) {
      looking = this.find(shard).finally(() => this.looking.delete(shard));
      this.looking.set(shard, looking);
    }
    return looking;
  }

  private async find(shard: number): Promise<Route> {
    const { nc, stream, subjectPrefix, retentionDays, replicas } = this.o;
    const jsm = await jetstreamManager(nc);
    const exists = (name: string) =>
      jsm.streams.info(name).then(
        () => true,
        (err: Error) => {
          if (/stream not found/i.test(err.message)) return false;
          throw err;
        },
      );
    const before = this.routes.get(shard);
    let legacy = false;
    if (!(await exists(shardStreamName(stream, shard)))) {
      legacy = await exists(stream);
      if (!legacy)
        await ensureStream(nc, shardStreamSpec(stream, subjectPrefix, shard, retentionDays, replicas));
    }
    const route = { legacy, checkedAt: this.o.clock() };
    this.routes.set(shard, route);
    if (before?.legacy && !legacy)
      this.o.logger.info({ shard }, 'settlements of the shard go to its own stream from now on');
    else if (legacy && before === undefined)
      this.o.logger.info(
        { shard, stream },
        'settlements of the shard go to the legacy stream (no ledger has made its own yet)',
      );
    return route;
  }
}
