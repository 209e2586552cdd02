// `make bench`, part: what the form of an answer's body costs the process that writes it. One fastify
// process of its own answers the same JSON, with the gateway's headers for a metered 200, as text (made
// by concatenation, as the gateway's envelope is) and as bytes (copied into a Buffer, as the envelope
// was until 4 December), for a quote-sized and a 365-day-page-sized document (bench/documents.ts). Node
// writes a text body and its headers as one string in one write, bytes as a second part of a writev:
// services/gateway/src/envelope.ts answers as text for this. Alternated round by round at 50
// connections; CPU µs a request from /proc. Figures, not assertions.
//   BENCH_BODY_ROUNDS (8), BENCH_BODY_REQUESTS (40,000) a run.
import autocannon from 'autocannon';
import { start, stop } from '../test/bench/gateway-path-setup.ts';
import { freePort, release } from '../test/ports.ts';
import { cpuOf } from './cpu.ts';
import { pageDocument, quoteDocument } from './documents.ts';
import { envInt } from './env.ts';
import { median } from './ledger-goals.ts';

const ROUNDS = envInt('BENCH_BODY_ROUNDS', 8);
const REQUESTS = envInt('BENCH_BODY_REQUESTS', 40_000);

const FORMS = ['text', 'bytes'] as const;
const SIZES = { quote: quoteDocument, page: pageDocument } as const;

async function serve(port: number): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  for (const [size, document] of Object.entries(SIZES)) {
    const json = JSON.stringify(document());
    const bytes = Buffer.from(json);
    // Two parts, as the envelope joins the document to its meta: a string made per answer, not a constant.
    const cut = json.length >> 1;
    const answers = { text: () => json.slice(0, cut) + json.slice(cut), bytes: () => Buffer.from(bytes) };
    for (const form of FORMS)
      app.get(`/${size}/${form}`, async (_req, reply) =>
        reply
          .header('request-id', '01a2410e-8b30-7535-aca2-5f136bacc8ee')
          .header('x-request-id', '01a2410e-8b30-7535-aca2-5f136bacc8ee')
          .header('x-ratelimit-reset', '1796409000')
          .header('cache-control', 'no-store')
          .type('application/json; charset=utf-8')
          .send(answers[form]()),
      );
  }
  await app.listen({ host: '127.0.0.1', port });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function ask(url: string, amount: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) =>
    autocannon({ url, connections: 50, amount }, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

async function main(): Promise<void> {
  const port = await freePort();
  const child = await start(['--import', 'tsx', import.meta.filename, 'serve'], port);
  console.log(
    `answer body: ${ROUNDS} alternated rounds of ${REQUESTS} requests a run, 50 connections, the gateway's headers; CPU µs a request of the answering process`,
  );
  for (const size of Object.keys(SIZES)) {
    const runs = { text: [] as number[], bytes: [] as number[] };
    for (const form of FORMS) await ask(`http://127.0.0.1:${port}/${size}/${form}`, REQUESTS / 2);
    for (let round = 0; round < ROUNDS; round++) {
      for (const form of round % 2 === 0 ? FORMS : [...FORMS].reverse()) {
        const before = cpuOf(child.pid!)!.own;
        const result = await ask(`http://127.0.0.1:${port}/${size}/${form}`, REQUESTS);
        if (result.non2xx > 0 || result.errors > 0)
          throw new Error(`${size}/${form}: answers other than 200`);
        runs[form].push(((cpuOf(child.pid!)!.own - before) * 1e6) / REQUESTS);
      }
    }
    const ratios = runs.text.map((t, i) => t / runs.bytes[i]!);
    console.log(
      `  ${size.padEnd(6)} text ${median(runs.text).toFixed(1)} µs, bytes ${median(runs.bytes).toFixed(1)} µs; ` +
        `text over bytes ${median(ratios).toFixed(3)}, lower in ${ratios.filter((r) => r < 1).length} of ${ROUNDS} rounds ` +
        `[${ratios.map((r) => r.toFixed(2)).join(', ')}]`,
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
