import { istNextDayStart } from '@mdp/nse-calendar';
import { envInt } from '../bench/env.ts';

/** After midnight, long enough for every process's clock to agree that the new day has begun. */
export const PAST_MS = 5_000;

/** How long to wait at `now` so that nothing up to `margin` ms later lies across IST midnight. */
export function waitForIstDay(now: number, margin: number): number {
  const midnight = istNextDayStart(now);
  return margin > 0 && midnight - now < margin ? midnight - now + PAST_MS : 0;
}

/** TEST_IST_MARGIN_S in ms (600 s unset; 0 turns the wait off); anything but a whole number stops the run naming it. */
export const istMarginMs = (env: NodeJS.ProcessEnv = process.env): number =>
  envInt('TEST_IST_MARGIN_S', 600, 0, env) * 1_000;
