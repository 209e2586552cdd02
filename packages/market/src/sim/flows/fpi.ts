import { type DayNumber, day, formatDay } from '@mdp/nse-calendar';
import type { GeneratedDataset } from '../dataset.ts';
import type { Rng } from '../rng.ts';
import { SECTORS } from '../taxonomy.ts';
import { apportion } from './apportion.ts';
import type { CashFlowRow, FpiSectorRow } from './model.ts';

/** NSDL reports FPI holdings as of the 15th and the last day of every month. */
export function fortnightEnds(from: DayNumber, to: DayNumber): DayNumber[] {
  const ends: DayNumber[] = [];
  let [y, m] = formatDay(from).split('-').map(Number) as [number, number];
  for (;;) {
    const mid = day(`${y}-${String(m).padStart(2, '0')}-15`);
    const last = day(`${m === 12 ? y + 1 : y}-${String((m % 12) + 1).padStart(2, '0')}-01`) - 1;
    for (const e of [mid, last]) if (e >= from && e <= to) ends.push(e);
    if (last >= to) return ends;
    [y, m] = m === 12 ? [y + 1, 1] : [y, m + 1];
  }
}

/**
 * FPI assets and net investment by sector (the generated universe's SECTORS), per fortnight over the
 * history. A sector's holding starts as a foreign-ownership share of its market cap, grows with the
 * market (`level`, 1 at the end) and takes that fortnight's FII net cash buying, split across sectors
 * by holding with some rotation between them: the sectors' flows add up to the FII flow exactly.
 */
export function fpiSectors(
  rng: Rng,
  ds: GeneratedDataset,
  cash: readonly CashFlowRow[],
  level: ReadonlyMap<DayNumber, number>,
): FpiSectorRow[] {
  const cap = new Map<string, number>(SECTORS.map((s) => [s.sector, 0]));
  for (const s of ds.stocks) {
    const sector = ds.sectorOf.get(s.id);
    const plan = ds.plans.get(s.id);
    if (s.status === 'listed' && s.stockType === 'equity' && sector && plan)
      cap.set(sector.sector, cap.get(sector.sector)! + plan.marketCapCr);
  }
  const first = cash[0]?.d ?? ds.options.endDay;
  const last = cash.at(-1)?.d ?? ds.options.endDay;
  const ends = fortnightEnds(first, last);
  const levelAt = (d: DayNumber) => {
    let x = d;
    while (x >= first && !level.has(x)) x--;
    return level.get(x) ?? 1;
  };
  // Foreign ownership is highest in financials and IT, lowest in small domestic sectors.
  const aum = SECTORS.map((s) => {
    const own =
      (s.sector === 'Financial Services' || s.sector === 'Information Technology' ? 0.3 : 0.14) *
      Math.exp(0.25 * rng.normal());
    return Math.max(100, cap.get(s.sector)! * own * levelAt(first) * 100);
  });
  const rows: FpiSectorRow[] = [];
  let c = 0;
  let previousLevel = levelAt(first);
  for (const end of ends) {
    let flow = 0;
    while (c < cash.length && cash[c]!.d <= end) {
      flow += cash[c]!.fiiBuy - cash[c]!.fiiSell;
      c++;
    }
    const move = levelAt(end) / previousLevel;
    const weights = aum.map((a) => a * Math.exp(0.3 * rng.normal()));
    const split = apportion(Math.abs(flow), weights).map((x) => Math.sign(flow) * x);
    // Rotation: money moved between sectors, adding up to nothing.
    const rotation = apportion(
      Math.round(0.002 * aum.reduce((a, b) => a + b, 0)),
      aum.map(() => rng.next()),
    );
    const mean = rotation.reduce((a, b) => a + b, 0) / rotation.length;
    const shifts = rotation.map((r) => Math.round(r - mean));
    shifts[0]! -= shifts.reduce((a, b) => a + b, 0);
    SECTORS.forEach((s, i) => {
      const sectorFlow = split[i]! + shifts[i]!;
      aum[i] = Math.max(100, Math.round(aum[i]! * move * Math.exp(0.015 * rng.normal())) + sectorFlow);
      rows.push({ periodEnd: end, sector: s.sector, aum: aum[i]!, flow: sectorFlow });
    });
    previousLevel = levelAt(end);
  }
  return rows;
}
