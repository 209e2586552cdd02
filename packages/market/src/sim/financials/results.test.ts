import { day } from '@mdp/nse-calendar';
import { describe, expect, it } from 'vitest';
import { generateDataset } from '../dataset.ts';
import { financialsByCompany } from './generate.ts';
import { resultsFilings } from './results.ts';
import type { StatementPeriod } from './statements.ts';

const row = (section: StatementPeriod['section'], periodEnd: string, filed: string) => ({
  section,
  periodEnd: day(periodEnd),
  availableFrom: day(filed),
});

describe('resultsFilings', () => {
  const statements = [
    row('quarterly', '2026-06-30', '2026-07-28'),
    row('quarterly', '2026-09-30', '2026-10-28'),
    row('quarterly', '2026-03-31', '2026-05-13'),
    row('profit_loss', '2026-03-31', '2026-05-13'),
    row('balance_sheet', '2026-03-31', '2026-05-13'),
    row('profit_loss', '2025-03-31', '2025-05-11'),
    // The same quarter on another basis, filed later: the first filing day counts.
    row('quarterly', '2026-09-30', '2026-11-02'),
  ];

  it('gives each period once, on its filing day, newest first, quarters and years apart', () => {
    const f = resultsFilings(statements, { to: day('2026-11-27') });
    expect(f.quarters).toEqual([
      { periodEnd: day('2026-09-30'), filed: day('2026-10-28') },
      { periodEnd: day('2026-06-30'), filed: day('2026-07-28') },
      { periodEnd: day('2026-03-31'), filed: day('2026-05-13') },
    ]);
    expect(f.years).toEqual([
      { periodEnd: day('2026-03-31'), filed: day('2026-05-13') },
      { periodEnd: day('2025-03-31'), filed: day('2025-05-11') },
    ]);
  });

  it('counts only what is filed by `to` ("today") and, given the listing day, since it', () => {
    const before = resultsFilings(statements, { to: day('2026-10-27') });
    expect(before.quarters.map((q) => q.periodEnd)).toEqual([day('2026-06-30'), day('2026-03-31')]);
    expect(resultsFilings(statements, { to: day('2026-10-28') }).quarters[0]!.periodEnd).toBe(
      day('2026-09-30'),
    );
    const listed = resultsFilings(statements, { to: day('2026-11-27'), from: day('2026-05-13') });
    expect(listed.years.map((y) => y.filed)).toEqual([day('2026-05-13')]);
    expect(listed.quarters).toHaveLength(3);
    expect(resultsFilings(statements, { to: day('2026-11-27'), from: null }).years).toHaveLength(2);
  });

  it("reads the generated statements' filing days: a fourth quarter with its audited year, in May", () => {
    const ds = generateDataset({ seed: 5, size: 300, endDay: day('2026-11-27'), historyDays: 800 });
    let companies = 0;
    for (const rows of financialsByCompany(ds)) {
      const { quarters, years } = resultsFilings(rows, { to: ds.options.endDay });
      for (const y of years) {
        expect(
          rows.find((r) => r.section === 'profit_loss' && r.periodEnd === y.periodEnd)!.availableFrom,
        ).toBe(y.filed);
        const q4 = quarters.find((q) => q.periodEnd === y.periodEnd);
        if (q4) expect(q4.filed).toBe(y.filed);
      }
      expect(quarters[0]!.periodEnd).toBe(day('2026-09-30'));
      companies++;
    }
    expect(companies).toBeGreaterThan(100);
  });
});
