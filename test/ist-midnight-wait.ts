import { beforeAll } from 'vitest';
import { istMarginMs, PAST_MS, waitForIstDay } from './ist-midnight.ts';

// The integration tests count units against the real clock's IST day: a daily cap, `usage.today`, the
// units charged today. A test that straddles IST midnight sees its account's day reset halfway (CI's
// run of 29 November began at 23:59 IST; a moving account got its 50 units left, then a new day's 150,
// and the reshard test saw 200 200s against a cap of 150). So an integration test file that begins
// within TEST_IST_MARGIN_S (600 s, about the longest file beside the suite; 0 turns it off) of IST
// midnight waits for midnight to pass first, and says so. Per file, not per run: the wait is at most
// the margin however long the suite takes. The day's rules themselves are unit-tested on injected clocks.

const MARGIN_MS = istMarginMs();

beforeAll(async () => {
  const wait = waitForIstDay(Date.now(), MARGIN_MS);
  if (wait === 0) return;
  console.log(
    `IST midnight is ${Math.round((wait - PAST_MS) / 1_000)} s away: this file waits for it to pass (TEST_IST_MARGIN_S=0 does not)`,
  );
  await new Promise((r) => setTimeout(r, wait));
}, MARGIN_MS + 60_000);
