// What a ledger shard's admission leases (issue 49, docs/proposals/admission-leases.md) did over one
// row of `make bench` (bench/run.ts: its priming, warm-up and measured run), from the shard's own
// counters read before and after them:
// leases granted, extended, returned, recalled and written off, the admissions the shard decided itself, and the
// admissions leases allotted against those their holders used (and reported while the lease was out).
import { gaugeValue, metricsPage, type OpsProbe, seriesSum } from './ops-metrics.ts';

/** The shard's lease and admission counters at one moment. */
export interface LeaseCounters {
  granted: number;
  extended: number;
  returned: number;
  recalled: number;
  writtenOff: number;
  /** `ledger_admissions_total{decision="admitted"}`: admissions the shard decided itself. */
  admitted: number;
  allotted: number;
  used: number;
  /** Of `used`, those the shard took in from its holder's reports while the lease was out. */
  reported: number;
}

/** The counters' change over a row's priming, warm-up and run (or its run alone), with their requests and 200s. */
export interface LeaseTraffic extends LeaseCounters {
  /** What the readings bracket: `priming, warm-up and run`, or `run`. */
  over: string;
  requests: number;
  ok: number;
  /** Leases still out at the second reading (0 unless the wait for their return timed out). */
  outAfter: number;
}

/**
 * Waits (at most `timeoutMs`) until the shard has no lease out, so that a reading counts every lease
 * granted before it as returned (a holder gives a lease back when it expires, `LEASE_MS`, 2 s by
 * default), then reads its counters. Resolves to the counters and the leases still out.
 */
export async function leaseCounters(
  shard: OpsProbe,
  timeoutMs = 5_000,
): Promise<{ counters: LeaseCounters; out: number }> {
  const until = Date.now() + timeoutMs;
  let text = await metricsPage(shard);
  while (gaugeValue(text, 'ledger_leases_out') > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    text = await metricsPage(shard);
  }
  const lease = (event: string) => seriesSum(text, 'ledger_leases_total', { event });
  const units = (outcome: string) => seriesSum(text, 'ledger_lease_units_total', { outcome });
  return {
    counters: {
      granted: lease('granted'),
      extended: lease('extended'),
      returned: lease('returned'),
      recalled: lease('recalled'),
      writtenOff: lease('written_off'),
      admitted: seriesSum(text, 'ledger_admissions_total', { decision: 'admitted' }),
      allotted: units('allotted'),
      used: units('used'),
      reported: units('reported'),
    },
    out: gaugeValue(text, 'ledger_leases_out'),
  };
}

export function leaseTraffic(
  before: LeaseCounters,
  after: { counters: LeaseCounters; out: number },
  over: string,
  requests: number,
  ok: number,
): LeaseTraffic {
  const delta = Object.fromEntries(
    Object.entries(after.counters).map(([k, v]) => [k, v - before[k as keyof LeaseCounters]]),
  ) as unknown as LeaseCounters;
  return { ...delta, over, requests, ok, outAfter: after.out };
}

const per1k = (n: number, requests: number) => ((n / requests) * 1_000).toFixed(2);
const share = (n: number, of: number) => (of > 0 ? `${((n / of) * 100).toFixed(1)}%` : '-');

/** One run's lease traffic in one line. */
export function leaseLine(t: LeaseTraffic): string {
  return (
    `leases a 1,000 requests: ${per1k(t.granted, t.requests)} granted, ${per1k(t.extended, t.requests)} extended, ` +
    `${per1k(t.returned, t.requests)} returned, ` +
    `${per1k(t.recalled, t.requests)} recalled` +
    (t.writtenOff > 0 ? `, ${per1k(t.writtenOff, t.requests)} written off` : '') +
    `; the shard decided ${share(t.admitted, t.ok)} of the ${t.ok} 200s (${t.over}) itself; ` +
    `units ${t.allotted} allotted, ${t.used} used (${share(t.used, t.allotted)}), ${t.reported} of them reported while out` +
    (t.outAfter > 0 ? `; ${t.outAfter} still out at the reading` : '')
  );
}

/** The header and cells of the lease table, one row a metered run. */
export const LEASE_HEAD = [
  'granted/1k'.padStart(11),
  'extended/1k'.padStart(12),
  'returned/1k'.padStart(12),
  'recalled/1k'.padStart(12),
  'shard-decided'.padStart(14),
  'allotted'.padStart(9),
  'used'.padStart(7),
  'used/allotted'.padStart(14),
  'reported'.padStart(9),
].join('');

export function leaseCells(t: LeaseTraffic): string {
  return [
    per1k(t.granted, t.requests).padStart(11),
    per1k(t.extended, t.requests).padStart(12),
    per1k(t.returned, t.requests).padStart(12),
    per1k(t.recalled, t.requests).padStart(12),
    share(t.admitted, t.ok).padStart(14),
    String(t.allotted).padStart(9),
    String(t.used).padStart(7),
    share(t.used, t.allotted).padStart(14),
    String(t.reported).padStart(9),
  ].join('');
}
