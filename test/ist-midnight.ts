import { istNextDayStart } from '@mdp/nse-calendar';

// The integration tests count units against the real clock's IST day: a daily cap, `usage.today`, the
// units charged today. A test that straddles IST midnight sees its account's day reset halfway (CI's
// run of 29 November began at 23:59 IST; a moving account got its 50 units left, then a new day's 150,
// and the reshard test saw 200 200s against a cap of 150). So a run that would reach midnight within
// TEST_IST_MARGIN_S (900 s, about twice the suite's first invocation in CI; 0 turns it off) waits
// for midnight to pass, once, and says so. The day's rules themselves are unit-tested on injected clocks.

const MARGIN_MS = Number(process.env.TEST_IST_MARGIN_S ?? 900) * 1_000;
/** After midnight, long enough for every process's clock to agree that the new day has begun. */
const PAST_MS = 5_000;

/** How long to wait at `now` so that nothing up to `margin` ms later lies across IST midnight. */
export function waitForIstDay(now: number, margin: number): number {
  const midnight = istNextDayStart(now);
  return margin > 0 && midnight - now < margin ? midnight - now + PAST_MS : 0;
}

export async function setup(): Promise<void> {
  const wait = waitForIstDay(Date.now(), MARGIN_MS);
  if (wait === 0) return;
  console.log(
    `IST midnight is ${Math.round((wait - PAST_MS) / 1_000)} s away: the integration tests wait for it to pass (TEST_IST_MARGIN_S=0 does not)`,
  );
  await new Promise((r) => setTimeout(r, wait));
}
