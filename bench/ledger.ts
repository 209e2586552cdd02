// The quota ledger's own rates, against a real ledger process: admissions per second over one admission
// stream (many accounts, no caps in the way), and settlement events recorded per second (JetStream →
// the ledger's consumer → Postgres log and projections). Figures only.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { createPool, dropSchema } from '@mdp/db';
import { deleteStreamFamily } from '@mdp/nats';
import { ledger } from '@mdp/proto';
import { newRequestId, settlementMsgId, settlementSubject } from '@mdp/usage';

/** One of 2,000 accounts, as uuids like the auth service's (the event log keys accounts as uuids). */
const benchAccount = (n: number) => `00000000-0000-4000-8000-${String(n % 2000).padStart(12, '0')}`;

import { connect } from 'nats';
import { nodeArgsFor } from '../test/bundles.ts';
import { DATABASE_URL, freePort, NATS_URL } from '../test/stack.ts';
import { envInt } from './env.ts';
import { waitForReady } from './ops-metrics.ts';

const ADMISSIONS = envInt('BENCH_ADMISSIONS', 20_000);
const SETTLEMENTS = envInt('BENCH_SETTLEMENTS', 20_000);
const IN_FLIGHT = 500;

export async function benchLedger(): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_${tag}_ledger`;
  const stream = `USAGE_BENCH_${tag.toUpperCase()}`;
  const subject = `usage_bench_${tag}`;
  const port = await freePort();
  const opsPort = await freePort();
  const child = spawn(process.execPath, nodeArgsFor('services/quota-ledger/src/server.ts'), {
    env: {
      ...process.env,
      DATABASE_URL,
      NATS_URL,
      DB_SCHEMA: schema,
      USAGE_STREAM: stream,
      USAGE_SUBJECT: subject,
      GRPC_PORT: String(port),
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  const nc = await connect({ servers: NATS_URL });
  const pool = createPool({ url: DATABASE_URL, schema, max: 2, applicationName: 'bench' });
  try {
    await waitForReady({ name: 'quota-ledger', opsPort }, 30_000, () => child.exitCode !== null);

    // Admissions: one stream, up to IN_FLIGHT outstanding, spread over many accounts.
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
    const def = ledger.QuotaLedgerServiceService.admit;
    const call = client.makeBidiStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      new Metadata(),
    );
    let sent = 0;
    let answered = 0;
    let admitted = 0;
    const started = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      // Batches of 50, as a gateway under load sends them (one message per event-loop turn).
      const send = () => {
        while (sent < ADMISSIONS && sent - answered < IN_FLIGHT) {
          const admissions: ledger.Admission[] = [];
          for (let i = 0; i < 50 && sent < ADMISSIONS; i++, sent++) {
            admissions.push({
              request_id: newRequestId(),
              account: { account_id: benchAccount(sent), plan: 'bench', burst_per_minute: 1_000_000 },
              traceparent: '',
              interface: 'rest',
              want_lease: false,
              relief: false,
            });
          }
          call.write({
            admissions,
            restored: [],
            releases: [],
            voids: [],
            lease_returns: [],
            lease_extensions: [],
          });
        }
      };
      call.on('data', (response: ledger.AdmitResponse) => {
        for (const res of response.results) {
          answered++;
          if (res.decision === ledger.AdmitDecision.ADMIT_DECISION_ADMITTED) admitted++;
        }
        if (answered === ADMISSIONS) resolve();
        else send();
      });
      send();
    });
    const admitSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    call.end();
    client.close();

    // Settlements: publish charged events (acknowledged by JetStream), then time until all are recorded.
    const js = nc.jetstream();
    const now = Date.now();
    const publishStarted = process.hrtime.bigint();
    const acks: Promise<unknown>[] = [];
    for (let i = 0; i < SETTLEMENTS; i++) {
      const event = {
        v: 1,
        request_id: newRequestId(),
        account_id: benchAccount(i),
        kind: 'charged',
        admitted_at_ms: now,
        settled_at_ms: now,
        route: 'bench',
        status: 200,
      } as const;
      acks.push(
        js.publish(settlementSubject(subject, 0, 'charged'), JSON.stringify(event), {
          msgID: settlementMsgId(event),
        }),
      );
      if (acks.length >= 1_000) await Promise.all(acks.splice(0));
    }
    await Promise.all(acks);
    const publishSeconds = Number(process.hrtime.bigint() - publishStarted) / 1e9;
    let recorded = 0;
    while (recorded < SETTLEMENTS) {
      recorded = (
        await pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM usage_events WHERE route = (SELECT id FROM usage_routes WHERE name = 'bench')",
        )
      ).rows[0]!.n;
      if (recorded < SETTLEMENTS) await new Promise((r) => setTimeout(r, 50));
    }
    const settleSeconds = Number(process.hrtime.bigint() - publishStarted) / 1e9;
    return [
      `ledger admission: ${ADMISSIONS} decisions over one stream in ${admitSeconds.toFixed(2)} s = ${(ADMISSIONS / admitSeconds).toFixed(0)} admissions/s (${admitted} admitted; batches of 50, ${IN_FLIGHT} in flight)`,
      `ledger settlement: ${SETTLEMENTS} charged events published (acked) in ${publishSeconds.toFixed(2)} s, all recorded in the log and projections after ${settleSeconds.toFixed(2)} s = ${(SETTLEMENTS / settleSeconds).toFixed(0)} events/s`,
    ];
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await pool.end();
    await deleteStreamFamily(nc, stream).catch(() => {});
    await nc.close();
    await dropSchema(DATABASE_URL, schema);
  }
}
