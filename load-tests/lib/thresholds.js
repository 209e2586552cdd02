// Pure arithmetic shared by the k6 scripts and their Node tests (plain ES module, no k6 or Node API).

/** Seconds of a k6 duration string: "50s", "2m", "1m30s", "1h". */
export function durationSeconds(text) {
  const re = /(\d+(?:\.\d+)?)(h|m|s|ms)/g;
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== String(text).length) throw new Error(`not a k6 duration: "${text}"`);
  return total;
}

/**
 * What the burst-cap run may and must see, for any DURATION: a token is admitted at most `burst` times in
 * any rolling minute, so at most burst × (whole minutes + 1) over the run; of the requests it is sent
 * (rate × seconds, tokens picked at random, so allow a tenth either way) the rest must be refused.
 */
export function burstExpectations({ burst, ratePerToken, seconds }) {
  const maxAdmittedPerToken = burst * (Math.floor(seconds / 60) + 1);
  const sentPerToken = ratePerToken * seconds * 0.9;
  const minRateLimited = Math.max(0, 1 - maxAdmittedPerToken / sentPerToken);
  return { maxAdmittedPerToken, minRateLimited: Math.floor(minRateLimited * 100) / 100 };
}
