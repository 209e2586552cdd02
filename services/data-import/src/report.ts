import type { FolderReport } from './import-folder.ts';
import type { ReasonGroup } from './reasons.ts';

const n = (x: number) => x.toLocaleString('en-IN');
const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;

/**
 * One line per kind of reason: its count, then, when its reason embeds a value, how many distinct values
 * and up to three of them, then up to three places.
 */
function reasonLine(g: ReasonGroup): string {
  const values =
    g.distinct === 0
      ? ''
      : `; ${plural(g.distinct, 'distinct value')}: ${g.examples.join(', ')}${g.distinct > g.examples.length ? ', …' : ''}`;
  return `${n(g.count)} × ${g.kind}${values} (e.g. ${g.at.join(', ')})`;
}

/**
 * The report an operator reads after `make import`: by kind, the rejections grouped by the kind of
 * their reason, what was not recognised (grouped the same way; `--json` lists every file), totals.
 */
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
    for (const g of k.reasonKinds) out.push(`      ${reasonLine(g)}`);
    for (const note of k.notes ?? []) out.push(`      ${note}`);
  }
  if (r.unrecognised.length > 0) {
    out.push(`not recognised: ${plural(r.unrecognised.length, 'file')} (--json lists each)`);
    for (const g of r.unrecognisedKinds) out.push(`  ${reasonLine(g)}`);
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
