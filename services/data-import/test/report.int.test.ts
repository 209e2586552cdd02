import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropSchema } from '@mdp/db';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import type { FolderReport } from '../src/import-folder.ts';
import { formatReport } from '../src/report.ts';

// The report of the whole real-data folder (../shared/realdata): its rejections are grouped by the kind
// of their reason, so the delivery files' hundreds of dates are one line, and every rejection is still
// counted. The import runs once, with --json; the text is what the command prints from the same report.

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const CLI = new URL('../src/cli.ts', import.meta.url).pathname;
const REAL = new URL('../../../../shared/realdata/', import.meta.url).pathname;
const tag = `t${randomBytes(4).toString('hex')}`;
const schemas = {
  EQUITIES_DB_SCHEMA: `${tag}_eq`,
  OPTIONS_DB_SCHEMA: `${tag}_op`,
  FILINGS_DB_SCHEMA: `${tag}_fi`,
};

afterAll(async () => {
  for (const s of Object.values(schemas)) await dropSchema(DATABASE_URL, s);
});

const importJson = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgsFor(CLI), REAL, '--json'],
      { env: { ...process.env, DATABASE_URL, ...schemas }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('the report of the real-data folder', () => {
  it('groups every rejection by the kind of its reason: a screenful, every rejection counted', async () => {
    const run = await importJson();
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as FolderReport;
    const text = formatReport(report);
    const lines = text.split('\n');

    // Every rejection is in exactly one group; the exact reasons are still in the JSON.
    for (const k of report.kinds) {
      expect(
        k.reasonKinds.reduce((a, g) => a + g.count, 0),
        k.kind,
      ).toBe(k.rejected);
      expect(
        Object.values(k.reasons).reduce((a, r) => a + r.count, 0),
        k.kind,
      ).toBe(k.rejected);
    }
    expect(report.unrecognisedKinds.reduce((a, g) => a + g.count, 0)).toBe(report.unrecognised.length);

    // The delivery files: hundreds of days without a price bar, one line.
    const delivery = report.kinds.find((k) => k.kind === 'delivery')!;
    expect(delivery.rejected).toBeGreaterThan(100_000);
    expect(Object.keys(delivery.reasons).length).toBeGreaterThan(200);
    const noBar = delivery.reasonKinds.find((g) => g.kind.startsWith('no price bar held for this stock on'))!;
    expect(noBar.kind).toBe("no price bar held for this stock on <date> (import that day's bhavcopy first)");
    expect(noBar.distinct).toBeGreaterThan(200);
    expect(noBar.examples).toHaveLength(3);
    for (const d of noBar.examples) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const start = lines.findIndex((l) => /^ {2}delivery +\d+ files/.test(l));
    const next = lines.findIndex((l, i) => i > start && !l.startsWith('      '));
    const deliveryLines = lines.slice(start + 1, next);
    expect(deliveryLines).toHaveLength(delivery.reasonKinds.length);
    expect(deliveryLines.length).toBeLessThan(6);
    expect(deliveryLines).toContainEqual(
      expect.stringMatching(
        /^ {6}[\d,]+ × no price bar held for this stock on <date> \(import that day's bhavcopy first\); [\d,]+ distinct values: \d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}, \d{4}-\d{2}-\d{2}, … \(e\.g\. \S+:\d+/,
      ),
    );

    // Every reason line of the whole folder, rejections and files not recognised, fits a screen.
    const reasonLines = lines.filter((l) => / × /.test(l));
    expect(reasonLines.length).toBeLessThan(40);
    expect(lines.filter((l) => l.startsWith('not recognised: '))).toEqual([
      `not recognised: ${report.unrecognised.length} files (--json lists each)`,
    ]);
  }, 600_000);
});
