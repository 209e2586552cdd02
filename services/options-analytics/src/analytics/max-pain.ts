/** Open interest at one strike of one expiry, in units of the underlying (NSE reports OI in units). */
export interface StrikeOi {
  strike: number;
  callOi: number;
  putOi: number;
}

export interface MaxPain {
  strike: number;
  /** What option holders would receive if the underlying settled at `strike`, in rupees. */
  payout: number;
}

/**
 * The settlement price at which option holders would receive the least: the strike K* (among the
 * listed strikes) minimising Σ callOI·max(K* − K, 0) + putOI·max(K − K*, 0). Ties go to the lower
 * strike. Linear after sorting, by running sums from each side. Null when there is no open interest.
 */
export function maxPain(rows: readonly StrikeOi[]): MaxPain | null {
  const n = rows.length;
  let sortedUnique = true;
  for (let i = 1; i < n && sortedUnique; i++) sortedUnique = rows[i]!.strike > rows[i - 1]!.strike;
  if (sortedUnique) return maxPainSorted(rows);
  const byStrike = new Map<number, StrikeOi>();
  for (const r of rows) {
    const e = byStrike.get(r.strike);
    byStrike.set(
      r.strike,
      e ? { strike: r.strike, callOi: e.callOi + r.callOi, putOi: e.putOi + r.putOi } : r,
    );
  }
  return maxPainSorted([...byStrike.values()].sort((a, b) => a.strike - b.strike));
}

/** maxPain over rows with strictly increasing strikes. */
function maxPainSorted(rows: readonly StrikeOi[]): MaxPain | null {
  const n = rows.length;
  let total = 0;
  for (const r of rows) total += r.callOi + r.putOi;
  if (!(total > 0)) return null;
  // callPay[j] = Σ_{i<j} C_i (K_j − K_i); putPay[j] = Σ_{i>j} P_i (K_i − K_j)
  const payouts = new Float64Array(n);
  let cSum = 0;
  let ckSum = 0;
  for (let j = 0; j < n; j++) {
    const { strike, callOi } = rows[j]!;
    payouts[j] = strike * cSum - ckSum;
    cSum += callOi;
    ckSum += callOi * strike;
  }
  let pSum = 0;
  let pkSum = 0;
  for (let j = n - 1; j >= 0; j--) {
    const { strike, putOi } = rows[j]!;
    payouts[j] = payouts[j]! + (pkSum - strike * pSum);
    pSum += putOi;
    pkSum += putOi * strike;
  }
  let best = 0;
  for (let j = 1; j < n; j++) if (payouts[j]! < payouts[best]!) best = j;
  return { strike: rows[best]!.strike, payout: payouts[best]! };
}
