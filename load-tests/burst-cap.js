// k6 v1.x: the burst cap holds under load. Every token may be admitted at most BURST times in any
// rolling minute; the rest must be 429 rate_limited with Retry-After, quickly, and nothing else.
//
//   TOKENS=$(for i in 1 2 3 4 5; do make -s token PLAN=pro | tail -1; done | paste -sd,) \
//     k6 run -e BASE_URL=http://localhost:8080 -e TOKENS=$TOKENS load-tests/burst-cap.js
//
// Any DURATION works: the thresholds allow 60 admissions per started minute (load-tests/lib/thresholds.js).
// ROUTE must be a metered route that answers 200 on the data served (ARAVALIHOU exists in the default
// generated dataset); the run fails when no request was a 200.
import { check } from 'k6';
import http from 'k6/http';
import { Counter, Rate } from 'k6/metrics';
import { burstExpectations, durationSeconds } from './lib/thresholds.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const ROUTE = __ENV.ROUTE || '/v1/stocks/ARAVALIHOU/quote';
const TOKENS = (__ENV.TOKENS || '').split(',').filter((t) => t.length > 0);
const BURST = Number(__ENV.BURST || 60);
const RATE_PER_TOKEN = Number(__ENV.RATE_PER_TOKEN || 5);
const DURATION = __ENV.DURATION || '50s';

if (TOKENS.length === 0) {
  throw new Error('set TOKENS to a comma-separated list of API tokens (make token PLAN=pro)');
}

const expected = burstExpectations({
  burst: BURST,
  ratePerToken: RATE_PER_TOKEN,
  seconds: durationSeconds(DURATION),
});
const admitted = new Counter('admitted');
const charged = new Counter('charged');
const rateLimited = new Rate('rate_limited');
const unexpected = new Counter('unexpected_status');

const perToken = {};
TOKENS.forEach((_, i) => {
  // Zero over-admission: never more than BURST admitted for any token in any minute of the run.
  perToken[`admitted{token:t${i}}`] = [{ threshold: `count<=${expected.maxAdmittedPerToken}` }];
});

export const options = {
  scenarios: {
    burst: {
      executor: 'constant-arrival-rate',
      rate: RATE_PER_TOKEN * TOKENS.length,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: 20,
      maxVUs: 200,
    },
  },
  thresholds: {
    ...perToken,
    // e.g. 5 a second for 50 s is 250 per token, of which at most 60 fit: most must be refused.
    rate_limited: [`rate>=${expected.minRateLimited}`],
    // A run in which nothing was a 200 measured nothing (a wrong ROUTE, an empty dataset).
    charged: ['count>0'],
    unexpected_status: ['count==0'],
    'http_req_duration{status:429}': ['p(95)<250'],
  },
};

export default function () {
  const i = Math.floor(Math.random() * TOKENS.length);
  const res = http.get(`${BASE_URL}${ROUTE}`, {
    headers: { Authorization: `Bearer ${TOKENS[i]}` },
    tags: { token: `t${i}` },
  });
  const limited = res.status === 429;
  rateLimited.add(limited, { token: `t${i}` });
  if (limited) {
    const body = res.json();
    check(res, {
      'refusal is rate_limited': () => body.error.code === 'rate_limited',
      'refusal has Retry-After': (r) => Number(r.headers['Retry-After']) >= 1,
      'refusal has X-RateLimit-Reset': (r) => Number(r.headers['X-Ratelimit-Reset']) > 0,
    });
  } else if (res.status === 200) {
    admitted.add(1, { token: `t${i}` });
    charged.add(1);
  } else {
    unexpected.add(1, { status: String(res.status) });
  }
}
