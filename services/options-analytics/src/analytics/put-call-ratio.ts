export interface PutCallTotals {
  callOi: number;
  putOi: number;
  callVolume: number;
  putVolume: number;
}

export interface PutCallRatios {
  /** Put open interest over call open interest; null without call OI. */
  oi: number | null;
  /** Put volume over call volume; null without call volume. */
  volume: number | null;
}

export function putCallRatios(t: PutCallTotals): PutCallRatios {
  return {
    oi: t.callOi > 0 ? t.putOi / t.callOi : null,
    volume: t.callVolume > 0 ? t.putVolume / t.callVolume : null,
  };
}

/** Sums the totals of several expiries (an underlying's PCR is over every expiry). */
export function addTotals(a: PutCallTotals, b: PutCallTotals): PutCallTotals {
  return {
    callOi: a.callOi + b.callOi,
    putOi: a.putOi + b.putOi,
    callVolume: a.callVolume + b.callVolume,
    putVolume: a.putVolume + b.putVolume,
  };
}

export const NO_TOTALS: PutCallTotals = { callOi: 0, putOi: 0, callVolume: 0, putVolume: 0 };
