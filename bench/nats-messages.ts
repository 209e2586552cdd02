// `make bench`, part: what nats-server spends on the settlement path, per message and per charge, at the
// paces a loaded gateway sends (a few hundred messages a second) and with the ledger's ways of reading
// them. Each trial publishes batches of charges (the gateway's message shape: compact, about 140 bytes a charge) at
// a steady rate, each acknowledged by JetStream as the gateway waits for it, to a stream of its own on the
// bench's NATS (as bench/run.ts's: a private nats-server run as deployed, or BENCH_NATS=machine); a durable pull consumer reads them as the ledger does (`consume`, gathered for the consumer's GATHER_MS,
// then acknowledged) or not at all. Figures from /proc, not assertions: nats-server's CPU µs and its
// threads' context switches, per message and per charge.
//   BENCH_NATS_SECONDS (8) a trial; BENCH_NATS_ROUNDS (2) of every trial, alternated.
import { randomBytes } from 'node:crypto';
import { AckedPublisher, connectNats, ensureStream } from '@mdp/nats';
import { createLogger } from '@mdp/telemetry';
import { AckPolicy, DeliverPolicy, type JsMsg, nanos } from 'nats';
// As the settlement consumer gathers: the first message of a batch waits this long for others.
import { GATHER_MS } from '../services/quota-ledger/src/settlement/settlement-consumer.ts';
import { contextSwitches, cpuOf, listenerPid } from './cpu.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';
import { benchNats } from './nats-as-deployed.ts';
import { type BatchForm, settlementBatch } from './settlement-batch.ts';

const bench = await benchNats();
const NATS_URL = bench.url ?? process.env.NATS_URL ?? 'nats://localhost:4222';
const SECONDS = envInt('BENCH_NATS_SECONDS', 8);
const ROUNDS = envInt('BENCH_NATS_ROUNDS', 2);

/** How the trial's consumer reads: not at all, one acknowledgement a message, or one a gathered batch. */
type Reading = 'none' | 'each' | 'batch';

interface Trial {
  label: string;
  perSecond: number;
  charges: number;
  reading: Reading;
  /** The message's form (compact unless said). */
  form?: BatchForm;
}

/** The settlement path as it runs (about 215 messages of 18 charges a second at 3,900 req/s), then its variants. */
const TRIALS: Trial[] = [
  { label: 'stored, not read', perSecond: 200, charges: 18, reading: 'none' },
  { label: 'read, each acknowledged', perSecond: 200, charges: 18, reading: 'each' },
  { label: 'read, one ack a batch (as now)', perSecond: 200, charges: 18, reading: 'batch' },
  { label: 'the same, version 1 messages', perSecond: 200, charges: 18, reading: 'batch', form: 'v1' },
  { label: 'half the messages, twice the charges', perSecond: 100, charges: 36, reading: 'each' },
  { label: 'a quarter, four times the charges', perSecond: 50, charges: 72, reading: 'each' },
];

const port = Number(new URL(NATS_URL).port || 4222);
const natsPid = listenerPid(port, 'nats-server');
if (!natsPid) throw new Error(`no nats-server listening on port ${port}`);

/** nats-server's CPU seconds and its threads' context switches so far. */
const natsReading = (pid: number) => {
  const { voluntary, involuntary } = contextSwitches(pid);
  return { cpu: cpuOf(pid)?.own ?? Number.NaN, switches: voluntary + involuntary };
};

const nc = await connectNats({
  url: NATS_URL,
  name: 'bench-nats-messages',
  logger: createLogger('bench', 'silent'),
});
const jsm = await nc.jetstreamManager();

async function run(trial: Trial): Promise<{ cpuUs: number; switches: number; messages: number }> {
  const tag = randomBytes(4).toString('hex');
  const stream = `BENCH_NATS_${tag.toUpperCase()}`;
  const subject = `bench_nats_${tag}.0.charged`;
  await ensureStream(nc, {
    name: stream,
    subjects: [`bench_nats_${tag}.>`],
    maxAgeMs: 10 * 60_000,
    duplicateWindowMs: 2 * 60_000,
  });
  const payload = settlementBatch(trial.charges, trial.form);
  let stopReading = () => {};
  if (trial.reading !== 'none') {
    await jsm.consumers.add(stream, {
      durable_name: 'ledger',
      filter_subject: subject,
      ack_policy: trial.reading === 'batch' ? AckPolicy.All : AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(5_000),
      max_ack_pending: 20_000,
    });
    const messages = await (await nc.jetstream().consumers.get(stream, 'ledger')).consume({
      max_messages: 2_000,
    });
    let gathered: JsMsg[] = [];
    let gathering = false;
    const acknowledge = () => {
      gathering = false;
      const batch = gathered;
      gathered = [];
      if (trial.reading === 'batch') batch.at(-1)?.ack();
      else for (const m of batch) m.ack();
    };
    void (async () => {
      for await (const m of messages) {
        gathered.push(m);
        if (!gathering) {
          gathering = true;
          setTimeout(acknowledge, GATHER_MS);
        }
      }
    })();
    stopReading = () => void messages.stop();
  }
  const publisher = new AckedPublisher(nc);
  const acks: Promise<unknown>[] = [];
  const before = natsReading(natsPid!);
  const started = performance.now();
  let sent = 0;
  await new Promise<void>((done) => {
    const tick = setInterval(() => {
      const elapsed = performance.now() - started;
      for (const due = Math.floor((elapsed / 1000) * trial.perSecond); sent < due; sent++)
        acks.push(publisher.publish(subject, payload, `${tag}-${sent}`, 5_000));
      if (elapsed >= SECONDS * 1000) {
        clearInterval(tick);
        done();
      }
    }, 4);
  });
  await Promise.all(acks);
  // The last deliveries and acknowledgements of the trial land in its window.
  await new Promise((r) => setTimeout(r, 3 * GATHER_MS + 200));
  const after = natsReading(natsPid!);
  stopReading();
  publisher.close();
  await jsm.streams.delete(stream);
  return {
    cpuUs: ((after.cpu - before.cpu) * 1e6) / sent,
    switches: (after.switches - before.switches) / sent,
    messages: sent,
  };
}

console.log(bench.said);
console.log(
  `nats-server on the settlement path: ${SECONDS} s a trial, ${ROUNDS} rounds alternated; CPU µs and context switches of nats-server (pid ${natsPid})`,
);
try {
  const results = new Map<Trial, { cpuUs: number; switches: number }[]>(TRIALS.map((t) => [t, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const trial of TRIALS) results.get(trial)!.push(await run(trial));
  console.log(
    `  ${'trial'.padEnd(40)} ${'msg/s'.padStart(5)} ${'charges'.padStart(7)}  ${'µs a msg'.padStart(9)} ${'µs a charge'.padStart(11)} ${'switches a msg'.padStart(14)}`,
  );
  for (const [trial, runs] of results) {
    const us = median(runs.map((r) => r.cpuUs));
    const sw = median(runs.map((r) => r.switches));
    console.log(
      `  ${trial.label.padEnd(40)} ${String(trial.perSecond).padStart(5)} ${String(trial.charges).padStart(7)}  ${us.toFixed(0).padStart(9)} ${(us / trial.charges).toFixed(1).padStart(11)} ${sw.toFixed(1).padStart(14)}`,
    );
  }
} finally {
  await nc.close();
  await bench.cleanup();
}
