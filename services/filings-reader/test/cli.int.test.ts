import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/cli.ts';
import { extractPdfPages } from '../src/ingest/pdf-text.ts';
import { FilingsStore } from '../src/store.ts';
import { freshSchema, REALDATA } from './helpers.ts';

let env: Awaited<ReturnType<typeof freshSchema>>;
let store: FilingsStore;
let dir: string;
beforeAll(async () => {
  env = await freshSchema('fr_cli');
  store = new FilingsStore(env.pool);
  dir = await mkdtemp(join(tmpdir(), 'fr-cli-'));
});
afterAll(async () => {
  await env.drop();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => run(store, argv);

describe('filings-reader CLI', () => {
  it('ingests a Markdown results filing, page by page, once', async () => {
    const file = fileURLToPath(new URL('filings_text/LT_Q1FY25_press_release_2024-07-24.md', REALDATA));
    const out = await cli(
      'ingest',
      'LT',
      'presentation',
      'Q1FY25',
      '2024-07-24',
      file,
      '--title',
      'L&T Q1 FY25 press release',
    );
    expect(out).toMatch(/^\d+ pages=11$/);
    const id = Number(out.split(' ')[0]);
    expect(await cli('ingest', 'LT', 'presentation', 'Q1FY25', '2024-07-24', file)).toBe(
      `${id} (already ingested) pages=11`,
    );
    const meta = await store.meta(id, 'LT');
    expect(meta).toMatchObject({
      source_format: 'markdown',
      page_count: 11,
      title: 'L&T Q1 FY25 press release',
      date: '2024-07-24',
    });
    const p2 = await store.readPages(id, 2, 2, 60_000);
    expect(p2.text).toMatch(/^<!-- page 2 -->\n\n# Semiconductor Sector/);
  });

  it('refuses bad arguments with a message', async () => {
    const file = fileURLToPath(new URL('pdfs/concall_jsw_Q3FY25.pdf', REALDATA));
    await expect(cli('ingest', 'JSWSTEEL', 'memo', 'Q3FY25', '2025-01-24', file)).rejects.toThrow(
      /doc type must be one of/,
    );
    await expect(cli('ingest', 'JSWSTEEL', 'concall', 'Q3FY25', '24-01-2025', file)).rejects.toThrow(
      /YYYY-MM-DD/,
    );
    await expect(cli('frobnicate')).rejects.toThrow(/load-default/);
  });

  it('generates a PDF of the asked length', async () => {
    const out = join(dir, 'ar.pdf');
    expect(await cli('generate', out, '--type', 'annual_report', '--pages', '152')).toMatch(/152 pages$/);
    const pages = await extractPdfPages(await readFile(out));
    expect(pages).toHaveLength(152);
    expect(pages[151]).toMatch(/page 152 of 152$/);
  });

  it('load-default is deterministic and --if-empty loads only once', async () => {
    const first = await cli('load-default', '--if-empty', '--companies', '3');
    expect(first).toMatch(/^loaded (\d+) new of \1 documents/);
    const loaded = await store.count();
    expect(await cli('load-default', '--if-empty', '--companies', '3')).toBe(
      'dataset present; nothing loaded',
    );
    expect(await store.count()).toBe(loaded);
    // Forced again: the same bytes, so nothing new (deterministic PDFs, idempotent ingest).
    expect(await cli('load-default', '--companies', '3')).toMatch(/^loaded 0 new of/);
    expect(await store.count()).toBe(loaded);
    const types = await env.pool.query<{ doc_type: string; pages: number }>(
      'SELECT doc_type, max(page_count) AS pages FROM documents GROUP BY doc_type',
    );
    const byType = Object.fromEntries(types.rows.map((r) => [r.doc_type, r.pages]));
    expect(byType.annual_report).toBeGreaterThanOrEqual(150);
    expect(byType.drhp).toBeGreaterThan(0);
    expect(byType.rhp).toBeGreaterThan(0);
    expect(byType.concall).toBeGreaterThan(0);
    expect(byType.presentation).toBeGreaterThan(0);
  });
});
