// `make bench`, part: what the form of an answer costs the process that writes it. One fastify process of
// its own answers the same JSON in several forms, alternated round by round at 50 connections; CPU µs a
// request from /proc. Figures, not assertions.
// - Its body: as text (made by concatenation, as the gateway's envelope is) and as bytes (copied into a
//   Buffer, as the envelope was until 4 December), for a quote-sized and a 365-day-page-sized document
//   (bench/documents.ts), each with a `load-test` account's headers. Node writes a text body and its
//   headers as one string in one write, bytes as a second part of a writev: services/gateway/src/envelope.ts
//   answers as text for this.
// - Its headers: the quote as text with none of the gateway's (as bare fastify answers), with a
//   `business` account's made and not written, and with a metered 200's for a `load-test` account (no
//   caps: request ids, X-RateLimit-Reset, Cache-Control) and for a `business` account (daily, monthly
//   and burst caps: every rate-limit header of SPEC 8 and the IETF draft besides). Made as the gateway
//   makes them (`decide`, `admissionResult`, `rateLimitHeaders`, a request id a request) and written
//   through fastify as its route does: what the contract's headers cost a process on Node's HTTP path,
//   within the gateway's front goal (bench/run.ts); and what reading them costs the load generator
//   (autocannon runs in this process: its CPU a request), within the req/s goal, whose two cores the
//   load generator shares in `make bench`.
//   BENCH_BODY_ROUNDS (8), BENCH_BODY_REQUESTS (40,000) a run.
import { admissionResult, type Caps, decide } from '@mdp/admission';
import { newRequestId } from '@mdp/usage';
import autocannon from 'autocannon';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PolicyHolder, RESET, rateLimitHeaders } from '../services/gateway/src/rate-limit-headers.ts';
import { start, stop } from '../test/bench/gateway-path-setup.ts';
import { freePort, release } from '../test/ports.ts';
import { cpuOf } from './cpu.ts';
import { pageDocument, quoteDocument } from './documents.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';

const ROUNDS = envInt('BENCH_BODY_ROUNDS', 8);
const REQUESTS = envInt('BENCH_BODY_REQUESTS', 40_000);

const SIZES = { quote: quoteDocument, page: pageDocument } as const;
/** The shipped plans' caps (services/auth/migrations): what decides which rate-limit headers a 200 has. */
const PLANS = {
  'load-test': { daily: null, monthly: null, burst: null },
  business: { daily: 50_000, monthly: 1_000_000, burst: 60 },
} as const satisfies Record<string, Caps>;
type Plan = keyof typeof PLANS;
/** The body's forms: text, and bytes, which text's ratio is read against. */
const BODY_FORMS = ['text', 'bytes'] as const;
/** `made`: a `business` account's headers made as for a 200 and not written (what making them costs alone). */
const HEADER_FORMS = ['none', 'made', 'load-test', 'business'] as const;

/** A metered 200's rate-limit headers for an account on `plan`, its `n`th admission today. */
function rateLimitsOf(
  plan: Plan,
  n: number,
  requestId: string,
  holder: PolicyHolder,
): Record<string, string> {
  const caps = PLANS[plan];
  const now = Date.now();
  const decision = decide(caps, { burst: [], day: n % 40_000, month: n % 900_000 }, now);
  return rateLimitHeaders(
    admissionResult(requestId, decision, now),
    { dailyCap: caps.daily, monthlyCap: caps.monthly },
    false,
    now,
    holder,
  );
}

async function serve(port: number): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false, genReqId: newRequestId });
  const holders: Record<Plan, PolicyHolder> = { 'load-test': {}, business: {} };
  let n = 0;
  const rateLimits = (plan: Plan, id: string) => rateLimitsOf(plan, n++, id, holders[plan]);
  /** A metered 200 as the gateway's route answers it: its request ids, rate-limit headers and Cache-Control. */
  const metered = (req: FastifyRequest, reply: FastifyReply, plan: Plan, body: string | Buffer) =>
    reply
      .header('request-id', req.id)
      .header('x-request-id', req.id)
      .headers(rateLimits(plan, req.id))
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(body);
  for (const [size, document] of Object.entries(SIZES)) {
    const json = JSON.stringify(document());
    const bytes = Buffer.from(json);
    // Two parts, as the envelope joins the document to its meta: a string made per answer, not a constant.
    const cut = json.length >> 1;
    const answers = { text: () => json.slice(0, cut) + json.slice(cut), bytes: () => Buffer.from(bytes) };
    for (const form of BODY_FORMS)
      app.get(`/${size}/${form}`, async (req, reply) => metered(req, reply, 'load-test', answers[form]()));
    if (size !== 'quote') continue;
    app.get('/headers/none', async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(answers.text()),
    );
    app.get('/headers/made', async (req, reply) => {
      if (rateLimits('business', req.id)[RESET] === undefined) throw new Error('no X-RateLimit-Reset made');
      return reply.type('application/json; charset=utf-8').send(answers.text());
    });
    for (const plan of Object.keys(PLANS) as Plan[])
      app.get(`/headers/${plan}`, async (req, reply) => metered(req, reply, plan, answers.text()));
  }
  await app.listen({ host: '127.0.0.1', port });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function ask(url: string, amount: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon({ url, connections: 50, amount }, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

/** CPU µs a request of each path: the answering process's, and autocannon's (this process's) reading them. */
interface PathRuns {
  server: number[];
  client: number[];
}

/** `ROUNDS` rounds of each path, the order turned round every other round. */
async function rounds(pid: number, base: string, paths: readonly string[]): Promise<PathRuns[]> {
  const runs = paths.map((): PathRuns => ({ server: [], client: [] }));
  for (const path of paths) await ask(`${base}${path}`, REQUESTS / 2);
  for (let round = 0; round < ROUNDS; round++) {
    const order = paths.map((_, i) => i);
    for (const i of round % 2 === 0 ? order : order.reverse()) {
      const before = cpuOf(pid)!.own;
      const own = process.cpuUsage();
      const result = await ask(`${base}${paths[i]}`, REQUESTS);
      const client = process.cpuUsage(own);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${paths[i]}: answers other than 200`);
      runs[i]!.server.push(((cpuOf(pid)!.own - before) * 1e6) / REQUESTS);
      runs[i]!.client.push((client.user + client.system) / REQUESTS);
    }
  }
  return runs;
}

/** `over` ÷ `under` round by round: their median and how many rounds read below 1. */
function ratioLine(over: number[], under: number[]): string {
  const ratios = over.map((t, i) => t / under[i]!);
  return (
    `${median(ratios).toFixed(3)}, lower in ${ratios.filter((r) => r < 1).length} of ${ROUNDS} rounds ` +
    `[${ratios.map((r) => r.toFixed(2)).join(', ')}]`
  );
}

async function main(): Promise<void> {
  const port = await freePort();
  const child = await start(['--import', 'tsx', import.meta.filename, 'serve'], port);
  const pid = child.pid!;
  const base = `http://127.0.0.1:${port}`;
  console.log(
    `answer form: ${ROUNDS} alternated rounds of ${REQUESTS} requests a run, 50 connections; CPU µs a request`,
  );
  console.log("  body, with a load-test account's headers (the answering process):");
  for (const size of Object.keys(SIZES)) {
    const [{ server: text }, { server: bytes }] = (await rounds(
      pid,
      base,
      BODY_FORMS.map((form) => `/${size}/${form}`),
    )) as [PathRuns, PathRuns];
    console.log(
      `    ${size.padEnd(6)} text ${median(text).toFixed(1)} µs, bytes ${median(bytes).toFixed(1)} µs; ` +
        `text over bytes ${ratioLine(text, bytes)}`,
    );
  }
  console.log(
    "  headers, the quote as text: none of the gateway's; a business account's made, not written; a metered 200's of each plan:",
  );
  const runs = await rounds(
    pid,
    base,
    HEADER_FORMS.map((form) => `/headers/${form}`),
  );
  const none = runs[0]!;
  const clientLine = (r: PathRuns) =>
    `; autocannon reading them ${median(r.client).toFixed(1)} µs (${median(r.client.map((us, i) => us - none.client[i]!)).toFixed(1)} more)`;
  console.log(
    `    none        ${median(none.server).toFixed(1)} µs; autocannon reading them ${median(none.client).toFixed(1)} µs`,
  );
  for (let i = 1; i < HEADER_FORMS.length; i++) {
    const own = runs[i]!;
    const more = own.server.map((us, r) => us - none.server[r]!);
    console.log(
      `    ${HEADER_FORMS[i]!.padEnd(11)} ${median(own.server).toFixed(1)} µs, ${median(more).toFixed(1)} µs a request more ` +
        `(round by round ${more.map((us) => us.toFixed(1)).join(', ')}); over none ${ratioLine(own.server, none.server)}` +
        clientLine(own),
    );
  }
  await stop(child);
  release(port);
}

if (process.argv[2] === 'serve') await serve(Number(process.env.PORT));
else {
  await main();
  process.exit(0);
}
