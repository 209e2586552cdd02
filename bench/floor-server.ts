// The floor under the metered quote: bare fastify (bench/bare-server.ts) that sends its 200 only after a
// JetStream acknowledgement of the request's charge, and does nothing else: no token check, no
// admission, no envelope, no headers of its own, no metrics, no tracing. The charges of one event-loop
// turn go as one message (the platform's batching, `AckedPublisher` as the gateway publishes), to a file
// stream of this process's own on the machine's NATS (deleted when it stops), which no consumer reads.
// What it costs over bare fastify is what a durable charge before the 200 costs any gateway on this
// machine: the least the gateway's CPU a request, and the most its req/s, can be (the ledger's delivery
// and recording, which share the cores with nats-server in the platform's rows, are not here).
// PORT and NATS_URL come from the bench (bench/run.ts).
import { randomUUID } from 'node:crypto';
import { AckedPublisher, connectNats, deleteStreamFamily, ensureStream } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import Fastify from 'fastify';
import { quoteDocument } from './documents.ts';

const name = `BENCH_FLOOR_${process.pid}`;
const subject = `bench-floor-${process.pid}.charged`;
const nc = await connectNats({
  url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  name: 'bench-floor',
  logger: createLogger('bench-floor', 'warn'),
});
await ensureStream(nc, { name, subjects: [subject], maxAgeMs: 3_600_000, duplicateWindowMs: 120_000 });
const publisher = new AckedPublisher(nc);

interface Turn {
  charges: { request_id: string; at_ms: number }[];
  acked: Promise<unknown>;
  release: (ok: boolean) => void;
}
let turn: Turn | null = null;

/** The turn's charges as one message; every 200 of the turn waits for its acknowledgement. */
function charge(): Promise<unknown> {
  if (turn === null) {
    let release!: (ok: boolean) => void;
    const acked = new Promise<boolean>((resolve) => {
      release = resolve;
    });
    const current: Turn = { charges: [], acked, release };
    turn = current;
    setImmediate(() => {
      turn = null;
      publisher.publish(subject, JSON.stringify(current.charges), `batch:${randomUUID()}`, 5_000).then(
        () => current.release(true),
        () => current.release(false),
      );
    });
  }
  turn.charges.push({ request_id: randomUUID(), at_ms: Date.now() });
  return turn.acked;
}

const app = Fastify({ logger: false });
app.get('/floor', async (_req, reply) => {
  if (!(await charge())) return reply.code(503).send({ error: { code: 'service_unavailable' } });
  return quoteDocument();
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => publisher.close())
    .then(() => deleteStreamFamily(nc, name))
    .then(() => nc.drain())
    .finally(() => process.exit(0));
});
