import type { DayNumber } from '@mdp/nse-calendar';
import type { CreditRatingRow } from '../model.ts';
import type { Rng } from './rng.ts';

const AGENCIES = ['CRISIL', 'ICRA', 'CARE', 'India Ratings', 'Acuite', 'Brickwork'];
const SCALE = [
  'AAA',
  'AA+',
  'AA',
  'AA-',
  'A+',
  'A',
  'A-',
  'BBB+',
  'BBB',
  'BBB-',
  'BB+',
  'BB',
  'BB-',
  'B',
  'C',
  'D',
];

/** Long-term issuer ratings from one or two agencies, better for larger companies. */
export function creditRatings(
  rng: Rng,
  stockId: number,
  marketCapCr: number,
  endDay: DayNumber,
): CreditRatingRow[] {
  if (!rng.chance(0.45)) return [];
  const centre = Math.max(
    0,
    Math.min(SCALE.length - 1, Math.round(13 - 2.2 * Math.log10(marketCapCr) + 1.5 * rng.normal())),
  );
  const agencies = [...AGENCIES];
  for (let i = agencies.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [agencies[i], agencies[j]] = [agencies[j]!, agencies[i]!];
  }
  agencies.length = rng.int(1, 2);
  return agencies.map((agency) => {
    const notch = Math.max(0, Math.min(SCALE.length - 1, centre + rng.int(-1, 1)));
    const action = rng.pick([
      'reaffirm',
      'reaffirm',
      'reaffirm',
      'upgrade',
      'downgrade',
      'assigned',
    ] as const);
    return {
      stockId,
      agency,
      rating: `${agency === 'CRISIL' ? 'CRISIL ' : agency === 'ICRA' ? '[ICRA]' : agency === 'CARE' ? 'CARE ' : 'IND '}${SCALE[notch]}`,
      outlook:
        notch >= SCALE.length - 2 ? null : rng.pick(['Stable', 'Stable', 'Stable', 'Positive', 'Negative']),
      action,
      ratedOn: endDay - rng.int(5, 540),
    };
  });
}
