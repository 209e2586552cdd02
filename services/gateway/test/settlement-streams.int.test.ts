import { randomBytes } from 'node:crypto';
import { connectNats, deleteStreamFamily, ensureStream, type NatsConnection } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { LEGACY_STREAM, settlementSubject, shardStreamName, shardStreamSpec } from '@mdp/usage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettlementStreams } from '../src/metering/settlement-streams.ts';

// Where the gateway publishes a shard's settlement events, on the machine's NATS: a stream of the
// shard's own when one exists; the legacy stream of every shard while only that one exists (a ledger of
// before per-shard streams reads only it), looked at again every 5 s; on a new deployment, its own.

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const tag = randomBytes(4).toString('hex');
const stream = `USAGE_ROUTES_${tag.toUpperCase()}`;
const prefix = `usage_routes_${tag}`;
const logger = createLogger('test', 'silent');
let nc: NatsConnection;
let now = 1_800_000_000_000;

const streams = () =>
  new SettlementStreams({ nc, stream, subjectPrefix: prefix, retentionDays: 1, clock: () => now, logger });
const exists = (name: string) =>
  nc
    .jetstreamManager()
    .then((jsm) => jsm.streams.info(name))
    .then(
      () => true,
      () => false,
    );

beforeAll(async () => {
  nc = await connectNats({ url: NATS_URL, name: 'settlement-streams-test', logger });
});
afterAll(async () => {
  await deleteStreamFamily(nc, stream);
  await nc?.close();
});

describe('SettlementStreams', () => {
  it("publishes to the legacy stream while it is the only one, then to the shard's own once a ledger made it", async () => {
    await ensureStream(nc, LEGACY_STREAM.spec(stream, prefix, 1));
    const routes = streams();
    expect(await routes.subject(1, 'charged')).toBe(LEGACY_STREAM.subject(prefix, 1, 'charged'));
    // It made no stream of the shard's own: the running ledger would not read it.
    expect(await exists(shardStreamName(stream, 1))).toBe(false);

    // A ledger of this version starts and makes the shard's stream: used after the next look.
    await ensureStream(nc, shardStreamSpec(stream, prefix, 1, 1));
    expect(await routes.subject(1, 'charged')).toBe(LEGACY_STREAM.subject(prefix, 1, 'charged'));
    now += 5_000;
    // This one still goes to the legacy stream, and starts the look.
    let subject = await routes.subject(1, 'charged');
    for (let i = 0; i < 50 && subject !== settlementSubject(prefix, 1, 'charged'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      subject = await routes.subject(1, 'charged');
    }
    expect(subject).toBe(settlementSubject(prefix, 1, 'charged'));
    // A publish there is stored in the shard's stream.
    const ack = await nc.jetstream().publish(subject, '{}');
    expect(ack.stream).toBe(shardStreamName(stream, 1));
  });

  it("on a deployment with neither stream, makes the shard's own", async () => {
    const fresh = new SettlementStreams({
      nc,
      stream: `${stream}X`,
      subjectPrefix: `${prefix}x`,
      clock: () => now,
      logger,
    });
    expect(await fresh.subject(0, 'voided')).toBe(settlementSubject(`${prefix}x`, 0, 'voided'));
    expect(await exists(shardStreamName(`${stream}X`, 0))).toBe(true);
    expect(await exists(`${stream}X`)).toBe(false);
    await deleteStreamFamily(nc, `${stream}X`);
  });
});
