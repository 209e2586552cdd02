import type { FolderReport } from './import-folder.ts';

const n = (x: number) => x.toLocaleString('en-IN');
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;

/** The report an operator reads after `make import`: by kind, what was not recognised, totals. */
export function formatReport(r: FolderReport): string {
  const files = r.kinds.reduce((a, k) => a + k.files.length, 0);
  const out = [
    `import of ${r.folder}${r.days ? ` (day folders ${r.days.join(', ')})` : ''}: ${plural(files, 'file')} recognised, ${plural(r.unrecognised.length, 'file')} not${
      r.archives > 0 ? ` (${plural(r.archives, 'zip archive')} opened)` : ''
    }`,
  ];
  const width = Math.max(...r.kinds.map((k) => k.kind.length), 4);
  for (const k of r.kinds) {
    const name = k.kind.padEnd(width);
    const count = k.files.length === 0 ? 'built-in' : plural(k.files.length, 'file');
    if (k.error) {
      out.push(`  ${name}  FAILED (${count}), nothing of this kind written: ${k.error}`);
      continue;
    }
    out.push(
      `  ${name}  ${count.padEnd(10)} read ${n(k.read)}, loaded ${n(k.loaded)}, rejected ${n(k.rejected)}, ${
        k.changed > 0 ? `${n(k.changed)} changed` : 'unchanged'
      }${k.skipped ? ` (${plural(k.skipped, 'file')} imported before)` : ''} (${k.seconds.toFixed(1)} s)`,
    );
    for (const [reason, { count: c, at }] of Object.entries(k.reasons).sort(
      (a, b) => b[1].count - a[1].count,
    ))
      out.push(`      ${n(c)} × ${reason} (e.g. ${at.join(', ')})`);
  }
  if (r.unrecognised.length > 0) {
    out.push('not recognised:');
    for (const u of r.unrecognised) out.push(`  ${u.path}: ${u.reason}`);
  }
  const loaded = r.kinds.reduce((a, k) => a + k.loaded, 0);
  const rejected = r.kinds.reduce((a, k) => a + k.rejected, 0);
  const changed = r.kinds.reduce((a, k) => a + k.changed, 0);
  out.push(
    `total: loaded ${n(loaded)}, rejected ${n(rejected)}, ${n(changed)} changed, in ${r.seconds.toFixed(1)} s`,
  );
  if (r.failed.length > 0)
    out.push(`FAILED kinds: ${r.failed.join(', ')} (fix the files named above and run again)`);
  if (!r.changed)
    out.push(
      `nothing changed: everything${r.failed.length > 0 ? ' else' : ''} in this folder was imported before`,
    );
  return out.join('\n');
}
