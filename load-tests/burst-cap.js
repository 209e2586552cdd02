// k6 v2 API (runs on v1.x too): the burst cap holds under load. Every token may be admitted at most BURST
// times in any rolling minute; the rest must be 429 rate_limited with Retry-After, quickly, and nothing
// else.
//
//   TOKENS=$(for i in 1 2 3 4 5; do make -s token PLAN=pro | tail -1; done | paste -sd,) \
//     k6 run -e BASE_URL=http://localhost:8080 -e TOKENS=$TOKENS load-tests/burst-cap.js
//
// Any DURATION works: the thresholds allow 60 admissions per started minute (load-tests/lib/thresholds.js).
// ROUTE must be a metered route that answers 200 on the data served (ARAVALIHOU exists in the default
// generated dataset); the run fails when no request was a 200.
//
// INTERFACE=mcp sends the same load as MCP tool calls (TOOL with TOOL_ARGS, JSON) to /mcp; INTERFACE=mixed
// picks REST or MCP at random for each request, and the cap must hold for both together (SPEC 8.1).
import { check } from 'k6';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import { classifyToolResponse, MCP_HEADERS, toolCallBody } from './lib/mcp.js';
import { burstExpectations, durationSeconds } from './lib/thresholds.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const ROUTE = __ENV.ROUTE || '/v1/stocks/ARAVALIHOU/quote';
const TOKENS = (__ENV.TOKENS || '').split(',').filter((t) => t.length > 0);
const BURST = Number(__ENV.BURST || 60);
const RATE_PER_TOKEN = Number(__ENV.RATE_PER_TOKEN || 5);
const DURATION = __ENV.DURATION || '50s';
const INTERFACE = __ENV.INTERFACE || 'rest';
const TOOL = __ENV.TOOL || 'get_stock_quote';
const TOOL_ARGS = JSON.parse(__ENV.TOOL_ARGS || '{"symbol":"ARAVALIHOU"}');

if (!['rest', 'mcp', 'mixed'].includes(INTERFACE)) {
  throw new Error(`INTERFACE must be rest, mcp or mixed, not "${INTERFACE}"`);
}

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
const refusalMs = new Trend('refusal_duration', true);

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
    refusal_duration: ['p(95)<250'],
  },
};

function viaRest(token, tags) {
  const res = http.get(`${BASE_URL}${ROUTE}`, { headers: { Authorization: `Bearer ${token}` }, tags });
  if (res.status === 200) return { kind: 'admitted' };
  if (res.status !== 429) return { kind: 'other', reason: `HTTP ${res.status}` };
  const body = res.json();
  check(res, {
    'refusal is rate_limited': () => body.error.code === 'rate_limited',
    'refusal has Retry-After': (r) => Number(r.headers['Retry-After']) >= 1,
    'refusal has X-RateLimit-Reset': (r) => Number(r.headers['X-Ratelimit-Reset']) > 0,
  });
  refusalMs.add(res.timings.duration);
  return { kind: 'rate_limited' };
}

function viaMcp(token, tags) {
  const res = http.post(`${BASE_URL}/mcp`, toolCallBody(TOOL, TOOL_ARGS), {
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}` },
    tags,
  });
  let body = null;
  try {
    body = res.json();
  } catch (_) {}
  const outcome = classifyToolResponse(res.status, body);
  if (outcome.kind === 'rate_limited') {
    check(outcome, { 'tool refusal says how long to wait': (o) => o.retryAfter >= 1 });
    refusalMs.add(res.timings.duration);
  }
  return outcome;
}

export default function () {
  const i = Math.floor(Math.random() * TOKENS.length);
  const mcp = INTERFACE === 'mcp' || (INTERFACE === 'mixed' && Math.random() < 0.5);
  const tags = { token: `t${i}`, interface: mcp ? 'mcp' : 'rest' };
  const outcome = mcp ? viaMcp(TOKENS[i], tags) : viaRest(TOKENS[i], tags);
  rateLimited.add(outcome.kind === 'rate_limited', { token: `t${i}` });
  if (outcome.kind === 'admitted') {
    admitted.add(1, { token: `t${i}` });
    charged.add(1);
  } else if (outcome.kind === 'other') {
    unexpected.add(1, { reason: outcome.reason });
  }
}
