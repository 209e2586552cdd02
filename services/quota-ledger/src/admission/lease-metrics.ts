import { Counter, Gauge, type Registry } from '@mdp/telemetry';

/**
 * What the shard's leases do (docs/operators.md, "Admission leases"): grants and the units they allot,
 * recalls, returns and the units used, and leases written off because their holder went silent, with the
 * units they stranded (held against the caps until written off, never used).
 */
export class LeaseMetrics {
  private readonly leases: Counter<'event'>;
  private readonly units: Counter<'outcome'>;
  readonly recalled: { inc(): void };

  constructor(registry: Registry, leasesOut: () => number) {
    this.leases = new Counter({
      name: 'ledger_leases_total',
      help: 'Admission leases: granted, extended (its holder, using it, kept it longer), recalled (another gateway asked for the account, or the shard stopped), returned by their holder, written_off (never returned: its holder went silent; counted once its expiry was recorded)',
      labelNames: ['event'] as const,
      registers: [registry],
    });
    this.units = new Counter({
      name: 'ledger_lease_units_total',
      help: 'Admissions allotted by leases, at their grant and extensions (allotted), used by their holder (used), taken in from reports by their holder while the lease stayed out (reported: part of used), given back unused (unused), stranded by leases written off (stranded: held against the caps until written off)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    for (const event of ['granted', 'extended', 'recalled', 'returned', 'written_off'])
      this.leases.inc({ event }, 0);
    for (const outcome of ['allotted', 'used', 'reported', 'unused', 'stranded'])
      this.units.inc({ outcome }, 0);
    new Gauge({
      name: 'ledger_leases_out',
      help: 'Admission leases out now (live, or not yet written off)',
      registers: [registry],
      collect() {
        this.set(leasesOut());
      },
    });
    const leases = this.leases;
    this.recalled = { inc: () => leases.inc({ event: 'recalled' }) };
  }

  granted(allotment: number): void {
    this.leases.inc({ event: 'granted' });
    this.units.inc({ outcome: 'allotted' }, allotment);
  }

  /** A lease extended, with the units its allotment grew by (none: only its expiry moved). */
  extended(added: number): void {
    this.leases.inc({ event: 'extended' });
    this.units.inc({ outcome: 'allotted' }, added);
  }

  /** Admissions a holder reported, taken in while its lease stays out. */
  reported(taken: number): void {
    if (taken > 0) this.units.inc({ outcome: 'reported' }, taken);
  }

  returned(used: number, allotment: number): void {
    this.leases.inc({ event: 'returned' });
    this.units.inc({ outcome: 'used' }, used);
    this.units.inc({ outcome: 'unused' }, allotment - used);
  }

  writtenOff(leases: number, stranded: number): void {
    if (leases === 0) return;
    this.leases.inc({ event: 'written_off' }, leases);
    this.units.inc({ outcome: 'stranded' }, stranded);
  }
}
