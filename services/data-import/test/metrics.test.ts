import { describe, expect, it } from 'vitest';
import { startFakePushgateway } from '../../../test/ops/pushgateway.ts';
import type { FolderReport } from '../src/import-folder.ts';
import { pushMetrics, runMetrics } from '../src/metrics.ts';
import { groupReasons, groupUnrecognised } from '../src/reasons.ts';
import { formatReport } from '../src/report.ts';

const kind = (name: string, extra: Partial<FolderReport['kinds'][number]> = {}) => {
  const reasons = extra.reasons ?? {
    'symbol not in the stock master': { count: 2, at: [`${name}.csv:3`, `${name}.csv:9`] },
  };
  return {
    kind: name,
    service: 'equities-data',
    files: [`${name}.csv`],
    read: 10,
    loaded: 8,
    rejected: 2,
    changed: 8,
    seconds: 0.5,
    ...extra,
    reasons,
    reasonKinds: groupReasons(reasons),
  };
};

const unrecognised = [
  { path: 'readme.txt', reason: 'no kind matches its name and first line ("x")' },
  { path: 'notes.txt', reason: 'no kind matches its name and first line ("y, z")' },
  { path: 'empty.csv', reason: 'the file is empty' },
];

const report = (kinds: FolderReport['kinds']): FolderReport => ({
  folder: '/data/2026-07-23',
  archives: 1,
  kinds,
  unrecognised,
  unrecognisedKinds: groupUnrecognised(unrecognised),
  seconds: 3.2,
  changed: kinds.some((k) => k.changed > 0),
  failed: kinds.filter((k) => k.error).map((k) => k.kind),
});

// 2026-07-23 was a Thursday session; 24 July 10:00 IST is after the 23rd's end of day only.
const NOW = Date.UTC(2026, 6, 24, 4, 30);
const DAY_23 = Date.UTC(2026, 6, 23) / 86_400_000;

describe('the import report', () => {
  it('lists each kind with its rows and reasons, what was not recognised, and the totals', () => {
    const text = formatReport(report([kind('bhavcopy'), kind('delivery', { changed: 0 })]));
    expect(text).toContain(
      'import of /data/2026-07-23: 2 files recognised, 3 files not (1 zip archive opened)',
    );
    expect(text).toMatch(/^ {2}bhavcopy +1 file +read 10, loaded 8, rejected 2, 8 changed \(0\.5 s\)$/m);
    expect(text).toMatch(/^ {2}delivery +1 file +read 10, loaded 8, rejected 2, unchanged \(0\.5 s\)$/m);
    expect(text).toContain('      2 × symbol not in the stock master (e.g. bhavcopy.csv:3, bhavcopy.csv:9)');
    expect(text).toContain(
      [
        'not recognised: 3 files (--json lists each)',
        '  2 × no kind matches its name and first line ("<value>"); 2 distinct values: x, "y, z" (e.g. readme.txt, notes.txt)',
        '  1 × the file is empty (e.g. empty.csv)',
      ].join('\n'),
    );
    expect(text).toMatch(/^total: loaded 16, rejected 4, 8 changed, in 3\.2 s$/m);
    expect(text).not.toContain('nothing changed');
  });

  it('says when nothing changed, and names failed kinds', () => {
    const text = formatReport(
      report([kind('bhavcopy', { changed: 0 }), kind('index-close', { changed: 0, error: 'x.csv:6: bad' })]),
    );
    expect(text).toContain('index-close  FAILED (1 file), nothing of this kind written: x.csv:6: bad');
    expect(text).toContain('FAILED kinds: index-close');
    expect(text).toContain('nothing changed: everything else in this folder was imported before');
  });
});

describe('the job’s metrics', () => {
  it('sets the success time only when no kind failed', async () => {
    const fresh = { lastTradingDay: DAY_23, sessionsBehind: 0 };
    const ok = await runMetrics(report([kind('bhavcopy')]), fresh, NOW).metrics();
    expect(ok).toContain(`mdp_data_import_last_success_timestamp_seconds ${NOW / 1000}`);
    expect(ok).toContain(`mdp_data_import_last_trading_day_timestamp_seconds ${DAY_23 * 86_400}`);
    expect(ok).toContain('mdp_data_import_rows{kind="bhavcopy",outcome="rejected"} 2');
    expect(ok).toContain('mdp_data_import_files{outcome="unrecognised"} 3');
    expect(ok).toContain('mdp_data_import_failed_kinds 0');
    const failed = await runMetrics(report([kind('bhavcopy', { error: 'x' })]), fresh, NOW).metrics();
    expect(failed).not.toContain('mdp_data_import_last_success_timestamp_seconds');
    expect(failed).toContain('mdp_data_import_failed_kinds 1');
    expect(failed).toContain(`mdp_data_import_last_run_timestamp_seconds ${NOW / 1000}`);
  });

  it('pushes with POST (pushAdd) to the job’s group, so a failed run keeps the last success time', async () => {
    const gateway = await startFakePushgateway();
    try {
      const fresh = { lastTradingDay: DAY_23, sessionsBehind: 0 };
      await pushMetrics(gateway.url, runMetrics(report([kind('bhavcopy')]), fresh, NOW));
      await pushMetrics(
        gateway.url,
        runMetrics(report([kind('bhavcopy', { error: 'x' })]), fresh, NOW + 86_400_000),
      );
      expect(gateway.pushes.map((p) => [p.method, p.job])).toEqual([
        ['POST', 'mdp-data-import'],
        ['POST', 'mdp-data-import'],
      ]);
      const served = gateway.exposition();
      expect(served).toContain(
        `mdp_data_import_last_success_timestamp_seconds{job="mdp-data-import"} ${NOW / 1000}`,
      );
      expect(served).toContain('mdp_data_import_failed_kinds{job="mdp-data-import"} 1');
    } finally {
      await gateway.close();
    }
  });
});
