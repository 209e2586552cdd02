import type { Server } from 'node:http';
import { createClient, type GrpcServer } from '@mdp/grpc';
import { filings } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { close, createFilesServer, listen } from '../src/files-server.ts';
import { generateCompanies } from '../src/generate/companies.ts';
import { generateDocument } from '../src/generate/documents.ts';
import { renderPdf } from '../src/generate/pdf.ts';
import { LinkSigner } from '../src/links.ts';
import { filingsImpl } from '../src/service.ts';
import { FilingsStore } from '../src/store.ts';
import { freshSchema } from './helpers.ts';

const KEY = 'links-test-key-0123456789abcdef';
const [company] = generateCompanies(1) as [ReturnType<typeof generateCompanies>[0]];
const doc = generateDocument(company, 'concall', 'Q1FY26', '2025-08-10', { pages: 6 });

let env: Awaited<ReturnType<typeof freshSchema>>;
let files: Server;
let grpc: GrpcServer;
let base: string;
let pdf: Buffer;
let docId: number;
let client: ReturnType<typeof createClient<typeof filings.FilingsReaderServiceService>>;
let now = Date.now();

beforeAll(async () => {
  env = await freshSchema('fr_links');
  const store = new FilingsStore(env.pool);
  pdf = await renderPdf(doc.pages, { title: doc.title, date: doc.date });
  docId = (
    await store.ingest({
      symbol: company.symbol,
      docType: 'concall',
      period: 'Q1FY26',
      date: doc.date,
      content: { pdf },
    })
  ).docId;
  // The base URL is only known once the port is; sign with a signer built after listening.
  const probe = createFilesServer({ store, signer: new LinkSigner(KEY, 'http://x', 3600) });
  const port = await listen(probe, '127.0.0.1', 0);
  await close(probe);
  base = `http://127.0.0.1:${port}`;
  const signer = new LinkSigner(KEY, base, 3600, () => now);
  files = createFilesServer({ store, signer });
  await listen(files, '127.0.0.1', port);
  const silent = createLogger('t', 'silent');
  grpc = buildApp({
    logger: silent,
    tracer: trace.getTracer('t'),
    registry: createRegistry('fr-t'),
    impl: filingsImpl({ store, signer }),
  });
  const gport = await grpc.listen('127.0.0.1', 0);
  client = createClient(filings.FilingsReaderServiceService, `127.0.0.1:${gport}`, {
    target: 'filings-reader',
    metrics: grpcClientMetrics(createRegistry('fr-tc')),
    defaultDeadlineMs: 10_000,
  });
});
afterAll(async () => {
  client?.close();
  await grpc?.shutdown(100);
  if (files) await close(files);
  await env.drop();
});

async function links() {
  const res = await client.call.listDocuments({ symbol: company.symbol, doc_types: [], limit: 20 });
  return JSON.parse(Buffer.from(res.data_json).toString())[0].links as {
    pdf: string;
    markdown: string;
    summary: string;
    expires_at: string;
  };
}

describe('public signed links (no bearer token, not under /v1)', () => {
  it('serve the PDF, the full Markdown and the summary from the index links, over gRPC', async () => {
    const l = await links();
    for (const u of [l.pdf, l.markdown, l.summary]) expect(new URL(u).pathname).not.toMatch(/^\/v1/);
    const p = await fetch(l.pdf);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await p.arrayBuffer()).equals(pdf)).toBe(true);
    const md = await (await fetch(l.markdown)).text();
    expect(md).toContain('<!-- page 6 -->');
    expect(md).toContain('page 6 of 6');
    const s = (await (await fetch(l.summary)).json()) as { summary: string };
    expect(s).toMatchObject({ doc_id: docId, doc_type: 'concall', period: 'Q1FY26' });
    expect(s.summary.length).toBeGreaterThan(100);
  });

  it('refuse a tampered, missing or borrowed signature with a JSON 403', async () => {
    const l = await links();
    const tampered = l.pdf.replace(/sig=./, (m) => (m.endsWith('A') ? 'sig=B' : 'sig=A'));
    const borrowed = l.pdf.replace(`/files/${docId}.pdf`, `/files/${docId + 1}.pdf`);
    for (const u of [
      tampered,
      borrowed,
      l.pdf.split('?')[0] as string,
      l.pdf.replace(/exp=\d+/, 'exp=99999999999'),
    ]) {
      const r = await fetch(u);
      expect(r.status, u).toBe(403);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('invalid_signature');
    }
  });

  it('expire', async () => {
    const l = await links();
    expect((await fetch(l.markdown)).status).toBe(200);
    const saved = now;
    now = Date.parse(l.expires_at) + 1000;
    try {
      const r = await fetch(l.markdown);
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('link_expired');
    } finally {
      now = saved;
    }
  });

  it('answer 404 for other paths', async () => {
    expect((await fetch(`${base}/v1/stocks`)).status).toBe(404);
  });
});
