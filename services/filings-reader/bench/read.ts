// Read latency for a 12-page window of a 150-page annual report: in-process store read (the two SQL
// statements) and the gRPC ReadDocument call the gateway makes. Figures, not assertions.
// Run: npx tsx services/filings-reader/bench/read.ts   (env: DATABASE_URL, BENCH_READS, BENCH_CONCURRENCY)
import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool } from '@mdp/db';
import { createClient } from '@mdp/grpc';
import { filings } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { buildApp } from '../src/app.ts';
import { generateCompanies } from '../src/generate/companies.ts';
import { generateDocument } from '../src/generate/documents.ts';
import { renderPdf } from '../src/generate/pdf.ts';
import { LinkSigner } from '../src/links.ts';
import { filingsImpl } from '../src/service.ts';
import { FilingsStore } from '../src/store.ts';

export interface ReadFigure {
  name: string;
  calls: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

function figure(name: string, samples: number[], wallMs: number): ReadFigure {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Number((s[Math.min(s.length - 1, Math.floor(p * s.length))] as number).toFixed(2));
  return {
    name,
    calls: s.length,
    perSecond: Math.round((s.length / wallMs) * 1000),
    p50: q(0.5),
    p95: q(0.95),
    p99: q(0.99),
  };
}

async function timed(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ samples: number[]; wall: number }> {
  const samples: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, wall: performance.now() - t0 };
}

export async function benchFilingsRead(
  opts: { url?: string; reads?: number; concurrency?: number } = {},
): Promise<ReadFigure[]> {
  const url = opts.url ?? process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
  const reads = opts.reads ?? 2_000;
  const concurrency = opts.concurrency ?? 16;
  const schema = `bench_filings_${randomBytes(4).toString('hex')}`;
  const silent = createLogger('bench', 'silent');
  const pool = await migratedPool({
    url,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 10,
    applicationName: 'filings-bench',
  });
  try {
    const store = new FilingsStore(pool);
    const [company] = generateCompanies(1) as [ReturnType<typeof generateCompanies>[0]];
    const doc = generateDocument(company, 'annual_report', 'FY25', '2025-07-15', { pages: 150 });
    const pdf = await renderPdf(doc.pages, { title: doc.title, date: doc.date });
    const { docId } = await store.ingest({
      symbol: company.symbol,
      docType: 'annual_report',
      period: 'FY25',
      date: doc.date,
      content: { pdf, pages: doc.pages },
    });
    const server = buildApp({
      logger: silent,
      tracer: trace.getTracer('bench'),
      registry: createRegistry('filings-bench'),
      impl: filingsImpl({
        store,
        signer: new LinkSigner('bench-signing-key-0123456789', 'http://localhost:8090', 3600),
      }),
    });
    const port = await server.listen('127.0.0.1', 0);
    const client = createClient(filings.FilingsReaderServiceService, `127.0.0.1:${port}`, {
      target: 'filings-reader',
      metrics: grpcClientMetrics(createRegistry('filings-bench-client')),
      defaultDeadlineMs: 10_000,
    });
    // Windows across the whole document: 1-12, 13-24, ... 133-144, 139-150.
    const windows = Array.from({ length: 13 }, (_, i) => Math.min(1 + i * 12, 139));
    const storeRead = (i: number) => {
      const first = windows[i % windows.length] as number;
      return store.readPages(docId, first, first + 11, 60_000);
    };
    const rpcRead = (i: number) => {
      const first = windows[i % windows.length] as number;
      return client.call.readDocument({
        symbol: company.symbol,
        doc_id: docId,
        pages: { first, last: first + 11 },
        max_chars: 60_000,
      });
    };
    await timed(200, 4, storeRead);
    await timed(200, 4, rpcRead);
    const out: ReadFigure[] = [];
    let r = await timed(Math.min(reads, 1_000), 1, storeRead);
    out.push(figure('store.readPages 12 pages, one at a time', r.samples, r.wall));
    r = await timed(Math.min(reads, 1_000), 1, rpcRead);
    out.push(figure('gRPC ReadDocument 12 pages, one at a time', r.samples, r.wall));
    r = await timed(reads, concurrency, rpcRead);
    out.push(figure(`gRPC ReadDocument 12 pages, ${concurrency} in flight`, r.samples, r.wall));
    client.close();
    await server.shutdown(100);
    return out;
  } finally {
    await pool.end();
    await dropSchema(url, schema);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchFilingsRead({
    reads: Number(process.env.BENCH_READS ?? 2_000),
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
  });
  console.log('\nfilings-reader: 12-page window of a 150-page annual report (max_chars 60,000)\n');
  console.log(
    `${'scenario'.padEnd(48)} ${'calls'.padStart(6)} ${'per s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`,
  );
  for (const f of figures)
    console.log(
      `${f.name.padEnd(48)} ${String(f.calls).padStart(6)} ${String(f.perSecond).padStart(7)} ${String(f.p50).padStart(7)} ${String(f.p95).padStart(7)} ${String(f.p99).padStart(7)}`,
    );
}
