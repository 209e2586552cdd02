import type { SettlementEvent } from '@mdp/usage';
import type { BatchResult } from './projections.ts';

/** What the settlement update needs of the book (`AccountBook.recordedBatch`). */
export interface SettlingBook {
  recordedBatch(deltas: BatchResult['deltas'], events: readonly SettlementEvent[], now: number): void;
}

/** What a recorded batch reports besides what the book learns. */
interface SettledBatch {
  /** Events of an IST day already sealed, left out of the log: the sealing rule says there are none. */
  late: number;
}

/**
 * The settlement update, the domain's part of recording a batch: the book learns in one step what the
 * projections just recorded of `events` (`result`: the charged counts move, holds are released, earlier
 * admissions count in the burst windows), at `now`; and what is to be reported comes back. No I/O and no
 * clock of its own: `settlementRecording` records the batch, then calls this and reports.
 */
export function settle(
  book: SettlingBook,
  result: BatchResult,
  events: readonly SettlementEvent[],
  now: number,
): SettledBatch {
  book.recordedBatch(result.deltas, events, now);
  return { late: result.late };
}
