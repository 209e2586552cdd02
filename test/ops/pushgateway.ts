/**
 * A stand-in Prometheus Pushgateway for the ops tests (the daily import job pushes its metrics to one).
 * It keeps what each job pushes to /metrics/job/<job> as the real one does: PUT replaces the job's
 * group, POST (prom-client's pushAdd) replaces only the metric families it carries, DELETE drops the
 * group. GET /metrics serves every group with its `job` label, as Prometheus sees it when it scrapes a
 * Pushgateway with honor_labels. Only what the tests need: no other grouping labels, no push_time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Family {
  meta: string[];
  samples: string[];
}

export interface Push {
  method: string;
  job: string;
  body: string;
}

export interface FakePushgateway {
  url: string;
  /** host:port, for a scrape target. */
  address: string;
  /** Every push received, in order. */
  pushes: Push[];
  /** What GET /metrics serves. */
  exposition(): string;
  close(): Promise<void>;
}

/** Metric families of a text exposition, by name, in order. */
export function parseFamilies(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current = '';
  const family = (name: string) => {
    if (!families.has(name)) families.set(name, { meta: [], samples: [] });
    current = name;
    return families.get(name)!;
  };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const meta = /^# (?:HELP|TYPE) ([A-Za-z_:][A-Za-z0-9_:]*)/.exec(line);
    if (meta) family(meta[1]!).meta.push(line);
    else if (!line.startsWith('#')) {
      const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)?.[0] ?? '';
      // A sample belongs to the family declared last (a histogram's _bucket, _sum and _count too).
      const owner = current && (name === current || name.startsWith(`${current}_`)) ? current : name;
      family(owner).samples.push(line);
    }
  }
  return families;
}

const withJob = (sample: string, job: string) =>
  sample
    .replace(/^([A-Za-z_:][A-Za-z0-9_:]*)(\{)?/, (_, name: string, brace?: string) =>
      brace ? `${name}{job="${job}",` : `${name}{job="${job}"}`,
    )
    .replace(/,\}/, '}');

export async function startFakePushgateway(): Promise<FakePushgateway> {
  const groups = new Map<string, Map<string, Family>>();
  const pushes: Push[] = [];
  const exposition = () => {
    const byName = new Map<string, { meta: string[]; samples: string[] }>();
    for (const [job, families] of groups)
      for (const [name, family] of families) {
        const merged = byName.get(name) ?? { meta: family.meta, samples: [] };
        merged.samples.push(...family.samples.map((s) => withJob(s, job)));
        byName.set(name, merged);
      }
    const blocks = [...byName.values()].map((f) => [...f.meta, ...f.samples].join('\n'));
    return `${blocks.join('\n\n')}\n`;
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(exposition());
        return;
      }
      const job = /^\/metrics\/job\/([^/?]+)$/.exec(req.url ?? '')?.[1];
      if (!job) {
        res.writeHead(404).end();
        return;
      }
      const name = decodeURIComponent(job);
      pushes.push({ method: req.method ?? '', job: name, body });
      if (req.method === 'DELETE') groups.delete(name);
      else if (req.method === 'PUT') groups.set(name, parseFamilies(body));
      else if (req.method === 'POST') {
        const group = groups.get(name) ?? new Map<string, Family>();
        for (const [family, value] of parseFamilies(body)) group.set(family, value);
        groups.set(name, group);
      } else {
        res.writeHead(405).end();
        return;
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    pushes,
    exposition,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
