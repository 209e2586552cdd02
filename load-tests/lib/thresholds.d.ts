/** Types of thresholds.js for the Node tests (k6 reads the JavaScript directly). */
export function durationSeconds(text: string): number;
export function burstExpectations(o: { burst: number; ratePerToken: number; seconds: number }): {
  maxAdmittedPerToken: number;
  minRateLimited: number;
};
