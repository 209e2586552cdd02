/**
 * The chart under a real helm (scripts/helm.sh: the binary DESIGN.md names, pinned and checked, or
 * HELM_BIN): `helm lint --strict` and `helm template` with the default and the production values, every
 * workload rendered, and each deliberately bad values file refused by the chart's values.schema.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CHART, ROOT, SERVICES } from './lib.ts';

let helm: string;
const PRODUCTION = join(ROOT, 'deploy', 'values-production.yaml');
const BAD = join(ROOT, 'test', 'ops', 'chart-bad-values');

function run(...args: string[]) {
  const r = spawnSync(helm, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function render(...values: string[]) {
  const r = run('template', 'mdp', CHART, '--namespace', 'mdp', ...values.flatMap((v) => ['-f', v]));
  expect(r.status, r.err).toBe(0);
  return parseAllDocuments(r.out)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string } } | null)
    .filter((d) => d !== null);
}

beforeAll(() => {
  helm = execFileSync('bash', [join(ROOT, 'scripts', 'helm.sh')], { encoding: 'utf8' }).trim();
}, 180_000);

describe('the chart under real helm', () => {
  it('is helm v4 as DESIGN.md says', () => {
    expect(run('version', '--short').out).toMatch(/^v4\./);
  });

  it('passes helm lint --strict with the default and the production values', () => {
    for (const values of [[], ['-f', PRODUCTION]]) {
      const r = run('lint', '--strict', CHART, ...values);
      expect(r.status, `${r.out}${r.err}`).toBe(0);
    }
  });

  it('renders a workload and a Service for every service, with either values', () => {
    for (const values of [[], [PRODUCTION]]) {
      const docs = render(...values);
      for (const service of SERVICES) {
        const workloads = docs.filter(
          (d) => ['Deployment', 'StatefulSet'].includes(d.kind) && d.metadata.name.endsWith(service),
        );
        expect(workloads.length, `${service} with ${values.join(',') || 'defaults'}`).toBe(1);
        expect(docs.some((d) => d.kind === 'Service' && d.metadata.name.includes(service))).toBe(true);
      }
      expect(docs.some((d) => d.kind === 'Job')).toBe(true); // migrations before upgrade
    }
  });

  it('refuses every deliberately bad values file, at the place the file names', () => {
    const files = readdirSync(BAD).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const at = /^# rejected at: (\S+)/.exec(readFileSync(join(BAD, file), 'utf8'))?.[1];
      const r = run('template', 'mdp', CHART, '-f', join(BAD, file));
      expect(r.status, `${file} was accepted`).not.toBe(0);
      expect(r.err, file).toContain(`at '${at}'`);
    }
  });
});
