import { type JetStreamManager, type NatsConnection, nanos, RetentionPolicy, StorageType } from 'nats';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** How long events are kept in the stream (they are also persisted by their consumer). */
  maxAgeMs: number;
  /** Window in which a repeated message id is dropped by the server. */
  duplicateWindowMs: number;
  replicas?: number;
}

/**
 * Creates the stream, or brings an existing one's subjects, limits and replicas up to date. Idempotent,
 * so every process that publishes or consumes can call it at start-up without an ordering between them.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: spec.name,
    subjects: spec.subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: nanos(spec.maxAgeMs),
    duplicate_window: nanos(spec.duplicateWindowMs),
    num_replicas: spec.replicas ?? 1,
  };
  try {
    const info = await jsm.streams.info(spec.name);
    const missing = spec.subjects.some((s) => !info.config.subjects?.includes(s));
    if (
      missing ||
      info.config.duplicate_window !== config.duplicate_window ||
      info.config.max_age !== config.max_age ||
      info.config.num_replicas !== config.num_replicas
    ) {
      await jsm.streams.update(spec.name, { ...info.config, ...config });
    }
  } catch (err) {
    const message = (err as Error).message;
    if (/no responders|503/i.test(message))
      throw new Error(`JetStream does not answer on this NATS connection (is it enabled?): ${message}`);
    if (!/stream not found/i.test(message)) throw err;
    await jsm.streams.add(config);
  }
}

/**
 * JetStream's management API without the account-information check `nc.jetstreamManager()` makes first:
 * on a cluster that check waits for the meta leader, which takes seconds to elect after its server dies
 * (measured with nats-server 2.9: 4 to 8 s), while streams, their information and publishes carry on.
 */
export function jetstreamManager(nc: NatsConnection, timeoutMs?: number): Promise<JetStreamManager> {
  return nc.jetstreamManager(
    timeoutMs === undefined ? { checkAPI: false } : { checkAPI: false, timeout: timeoutMs },
  );
}

/** A stream's family as JetStream has it: whether `<name>` exists, and the numbered `<name>_<n>`, by n. */
export async function streamFamily(
  jsm: JetStreamManager,
  name: string,
): Promise<{ base: boolean; numbered: Map<number, string> }> {
  let base = false;
  const numbered = new Map<number, string>();
  for await (const stream of jsm.streams.names()) {
    const rest = stream.slice(name.length + 1);
    if (stream === name) base = true;
    else if (stream.startsWith(`${name}_`) && /^\d+$/.test(rest) && String(Number(rest)) === rest)
      numbered.set(Number(rest), stream);
  }
  return { base, numbered };
}

/**
 * Deletes a settlement stream's family: `<name>` (the legacy stream of every shard) and each shard's own,
 * `<name>_<shard>`, where they exist. For the tests and benches that made them.
 */
export async function deleteStreamFamily(nc: NatsConnection, name: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const { base, numbered } = await streamFamily(jsm, name);
  for (const stream of [...(base ? [name] : []), ...numbered.values()])
    await jsm.streams.delete(stream).catch(() => {});
}
