// `make bench`, part: what one acknowledged JetStream publish costs the publishing process, through the
// client's `js.publish` (a request: mux entry, deferred, timer, and a NatsError built to cancel it once
// answered) and through the gateway's `AckedPublisher` (one reply subscription; packages/nats). Each
// publish carries a batch the size the gateway sends under load (about 23 charges, 6 KB), BENCH_PUBLISH_AT_ONCE
// of them in flight at once, in alternating rounds (A B A B…) on one connection to the machine's NATS.
// Figures, not assertions: CPU µs a publish of this process (from process.cpuUsage), and publishes a second.
import { randomBytes } from 'node:crypto';
import { AckedPublisher, connectNats, ensureStream } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';
import { settlementBatch } from './settlement-batch.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const ROUNDS = envInt('BENCH_PUBLISH_ROUNDS', 4);
const PUBLISHES = envInt('BENCH_PUBLISHES', 20_000);
const AT_ONCE = envInt('BENCH_PUBLISH_AT_ONCE', 8);
const EVENTS = 23;

const tag = randomBytes(4).toString('hex');
const stream = `BENCH_PUBLISH_${tag.toUpperCase()}`;
const subject = `bench_publish_${tag}.0.charged`;
const nc = await connectNats({
  url: NATS_URL,
  name: 'bench-publish',
  logger: createLogger('bench', 'silent'),
});
await ensureStream(nc, {
  name: stream,
  subjects: [`bench_publish_${tag}.>`],
  maxAgeMs: 10 * 60_000,
  duplicateWindowMs: 2 * 60_000,
});
const payload = settlementBatch(EVENTS);

const js = nc.jetstream();
const acked = new AckedPublisher(nc);
const ways = {
  'js.publish': (id: string) => js.publish(subject, payload, { msgID: id, timeout: 5_000 }),
  AckedPublisher: (id: string) => acked.publish(subject, payload, id, 5_000),
} as const;

let seq = 0;
async function round(way: keyof typeof ways): Promise<{ cpuUs: number; perSecond: number }> {
  const publish = ways[way];
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < PUBLISHES) {
      next++;
      await publish(`${tag}-${seq++}`);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return { cpuUs: (used.user + used.system) / PUBLISHES, perSecond: PUBLISHES / seconds };
}

console.log(
  `settlement publish: ${PUBLISHES} acknowledged publishes a round of ${(payload.length / 1024).toFixed(1)} KB (${EVENTS} charges), ${AT_ONCE} in flight, CPU of this process`,
);
try {
  await round('js.publish'); // warm-up, not printed
  await round('AckedPublisher');
  const figures: Record<string, number[]> = { 'js.publish': [], AckedPublisher: [] };
  for (let r = 1; r <= ROUNDS; r++) {
    for (const way of ['js.publish', 'AckedPublisher'] as const) {
      const f = await round(way);
      figures[way]!.push(f.cpuUs);
      console.log(
        `  round ${r} ${way.padEnd(15)} ${f.cpuUs.toFixed(1).padStart(6)} µs a publish  ${f.perSecond.toFixed(0).padStart(6)} publishes/s`,
      );
    }
  }
  const a = median(figures['js.publish']!);
  const b = median(figures.AckedPublisher!);
  console.log(
    `  medians: js.publish ${a.toFixed(1)} µs, AckedPublisher ${b.toFixed(1)} µs a publish (${((1 - b / a) * 100).toFixed(0)}% less); a gateway batch carries about ${EVENTS} charges`,
  );
} finally {
  acked.close();
  await (await nc.jetstreamManager()).streams.delete(stream).catch(() => {});
  await nc.close();
}
