import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { latestReportedFiscalYear } from '@mdp/market';
import { day, formatDay, lastCompletedSession } from '@mdp/nse-calendar';
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

// The generated filings are dated by the last completed session of this clock (a Friday evening in IST).
const NOW = Date.parse('2026-11-27T12:00:00Z');
const END = lastCompletedSession(NOW);
const cli = (...argv: string[]) =>
  run(
    store,
    argv,
    () => {},
    () => NOW,
  );

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

  it('generates a PDF of the asked length, of the latest period reported by the end day', async () => {
    const out = join(dir, 'ar.pdf');
    const said = await cli('generate', out, '--type', 'annual_report', '--pages', '152');
    // The annual report of the latest fiscal year whose results are out by the end day, filed after it closed.
    const fy = latestReportedFiscalYear(END);
    const m = /: (\S+) annual_report FY(\d\d) (\d{4}-\d\d-\d\d), 152 pages$/.exec(said);
    expect(m, said).not.toBeNull();
    expect(Number(m![2])).toBe(fy % 100);
    expect(m![3]! > `${fy}-03-31` && m![3]! <= formatDay(END)).toBe(true);
    const pages = await extractPdfPages(await readFile(out));
    expect(pages).toHaveLength(152);
    expect(pages[151]).toMatch(/page 152 of 152$/);
    // --end names the same day the clock does; a day that is no date is refused.
    expect(
      await cli('generate', out, '--type', 'annual_report', '--pages', '152', '--end', formatDay(END)),
    ).toBe(said);
    await expect(cli('generate', out, '--end', '27-11-2026')).rejects.toThrow(/--end must be a date/);
  });

  it('generates a concall of the latest quarter whose results are out by --end', async () => {
    const out = join(dir, 'call.pdf');
    // Q2 FY2027 (July-September 2026) is reported by mid-November, Q3 has not ended by 2026-11-27.
    const said = await cli('generate', out, '--pages', '3', '--end', '2026-11-27');
    const m = /: \S+ concall Q2FY27 (\d{4}-\d\d-\d\d), 3 pages$/.exec(said);
    expect(m, said).not.toBeNull();
    expect(day(m![1]!)).toBeGreaterThan(day('2026-09-30'));
    expect(m![1]! <= '2026-11-27').toBe(true);
    // A month and a half earlier the quarter has ended but its results are not out: the call is of Q1.
    expect(await cli('generate', out, '--pages', '3', '--end', '2026-10-05')).toMatch(
      / concall Q1FY27 2026-0[78]-/,
    );
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
