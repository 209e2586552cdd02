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
export const RATED_INSTRUMENTS = [
  'Long-term bank facilities',
  'Non-convertible debentures',
  'Fixed deposits',
] as const;

/** One rating action: an agency's rating of one instrument of a company on a day. */
export interface CreditRatingAction extends CreditRatingRow {
  instrument: string;
}

/** Years of rating history kept before the latest action. */
const HISTORY_YEARS = 5;

/** How each agency writes its ratings: CRISIL AA+, [ICRA]AA+, CARE AA+, IND AA+, ACUITE AA+, BWR AA+. */
const PREFIX: Record<string, string> = {
  CRISIL: 'CRISIL ',
  ICRA: '[ICRA]',
  CARE: 'CARE ',
  'India Ratings': 'IND ',
  Acuite: 'ACUITE ',
  Brickwork: 'BWR ',
};
const symbolOf = (agency: string, notch: number) => `${PREFIX[agency] ?? ''}${SCALE[notch]}`;
/** A notch held on the scale: AAA (0) at best, D at worst. */
const onScale = (notch: number) => Math.max(0, Math.min(SCALE.length - 1, notch));

/** An upgrade to the lowest grade or a downgrade to AAA cannot happen: those are reaffirmations. */
function possible(action: CreditRatingRow['action'], notch: number): CreditRatingRow['action'] {
  if (action === 'upgrade' && notch === SCALE.length - 1) return 'reaffirm';
  if (action === 'downgrade' && notch === 0) return 'reaffirm';
  return action;
}

/**
 * Long-term ratings from one or two agencies, better for larger companies, with each agency's history
 * of actions on the instrument (annual surveillance reaffirmations, upgrades and downgrades one notch
 * at a time, the first one an assignment), newest first. The latest action of each agency is drawn
 * from `rng` exactly as before the history existed, so the rest of the dataset is unchanged; the
 * instrument and the earlier actions come from the company's own `history` stream.
 */
export function creditRatings(
  rng: Rng,
  history: Rng,
  stockId: number,
  marketCapCr: number,
  endDay: DayNumber,
): CreditRatingAction[] {
  if (!rng.chance(0.45)) return [];
  const centre = onScale(Math.round(13 - 2.2 * Math.log10(marketCapCr) + 1.5 * rng.normal()));
  const agencies = [...AGENCIES];
  for (let i = agencies.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [agencies[i], agencies[j]] = [agencies[j]!, agencies[i]!];
  }
  agencies.length = rng.int(1, 2);
  const latest = agencies.map((agency) => {
    const notch = onScale(centre + rng.int(-1, 1));
    const action = rng.pick([
      'reaffirm',
      'reaffirm',
      'reaffirm',
      'upgrade',
      'downgrade',
      'assigned',
    ] as const);
    const outlook =
      notch >= SCALE.length - 2 ? null : rng.pick(['Stable', 'Stable', 'Stable', 'Positive', 'Negative']);
    return { agency, notch, action: possible(action, notch), outlook, ratedOn: endDay - rng.int(5, 540) };
  });
  const out: CreditRatingAction[] = [];
  for (const l of latest) {
    const instrument = history.pick(RATED_INSTRUMENTS);
    const row = (
      notch: number,
      action: CreditRatingRow['action'],
      outlook: string | null,
      ratedOn: DayNumber,
    ) => ({
      stockId,
      agency: l.agency,
      instrument,
      rating: symbolOf(l.agency, notch),
      outlook,
      action,
      ratedOn,
    });
    out.push(row(l.notch, l.action, l.outlook, l.ratedOn));
    // Walking back: before an upgrade the rating was a notch lower, before a downgrade a notch higher.
    let { notch, action, ratedOn } = l;
    const oldest = endDay - HISTORY_YEARS * 365;
    while (action !== 'assigned') {
      notch = onScale(notch + (action === 'upgrade' ? 1 : action === 'downgrade' ? -1 : 0));
      ratedOn -= history.int(300, 400);
      // Odds of their own (annual surveillance mostly reaffirms), not the latest action's: those keep
      // their draw from `rng`, so the rest of the dataset stays as it was.
      action =
        ratedOn - 400 < oldest
          ? 'assigned'
          : possible(
              history.pick([
                'reaffirm',
                'reaffirm',
                'reaffirm',
                'reaffirm',
                'upgrade',
                'downgrade',
                'assigned',
              ] as const),
              notch,
            );
      const outlook =
        notch >= SCALE.length - 2 ? null : history.pick(['Stable', 'Stable', 'Positive', 'Negative']);
      out.push(row(notch, action, outlook, ratedOn));
    }
  }
  return out.sort((a, b) => b.ratedOn - a.ratedOn || a.agency.localeCompare(b.agency));
}
