import { istNextDayStart } from '@mdp/nse-calendar';

/** After midnight, long enough for every process's clock to agree that the new day has begun. */
export const PAST_MS = 5_000;

/** How long to wait at `now` so that nothing up to `margin` ms later lies across IST midnight. */
export function waitForIstDay(now: number, margin: number): number {
  const midnight = istNextDayStart(now);
  return margin > 0 && midnight - now < margin ? midnight - now + PAST_MS : 0;
}
