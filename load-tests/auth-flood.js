// k6 v2 API (runs on v1.x too): a flood of tokens nobody issued beside a paying caller. The paying caller
// must get only 200s, no slower than beside a flood of wrong-checksum tokens (run FORGED=checksum for that
// baseline at the same FLOOD_VUS and compare `paying_duration`); the flood must get only the unknown
// token's 401, the throttle's 429 with Retry-After, or (legacy lookups past their bound) a 503.
//
//   TOKEN=$(make -s token PLAN=load-test | tail -1)
//   k6 run -e TOKEN=$TOKEN load-tests/auth-flood.js                   # forged tokens, both formats
//   k6 run -e TOKEN=$TOKEN -e FORGED=checksum load-tests/auth-flood.js # the baseline
//
// Watch auth's CPU meanwhile (`kubectl top pod`, or process_cpu_seconds_total{service="auth"}): it must
// stay near idle, since no forged token is looked up beyond the throttle's few a minute per address.
// The load-test plan has no caps, so ROUTE at PAYING_RATE a second is all admitted; ROUTE must answer 200
// on the data served (ARAVALIHOU is in the default dataset). The run fails when the paying caller got
// no 200 at all.
import { check } from 'k6';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import { floodAnswerIsExpected, floodToken } from './lib/flood.js';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const ROUTE = __ENV.ROUTE || '/v1/stocks/ARAVALIHOU/quote';
const TOKEN = __ENV.TOKEN;
const FORGED = __ENV.FORGED || 'mixed';
const FLOOD_VUS = Number(__ENV.FLOOD_VUS || 50);
const PAYING_RATE = Number(__ENV.PAYING_RATE || 20);
const DURATION = __ENV.DURATION || '15s';

if (!TOKEN) throw new Error('set TOKEN (make token PLAN=load-test)');
floodToken(FORGED); // refuses a FORGED it does not know before any request

const payingServed = new Rate('paying_served');
const payingOk = new Counter('paying_ok');
const payingDuration = new Trend('paying_duration', true);
const floodUnexpected = new Counter('flood_unexpected');
const floodThrottled = new Rate('flood_throttled');

export const options = {
  scenarios: {
    flood: {
      executor: 'constant-vus',
      vus: FLOOD_VUS,
      duration: DURATION,
      exec: 'flood',
    },
    paying: {
      executor: 'constant-arrival-rate',
      rate: PAYING_RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: 10,
      maxVUs: 100,
      exec: 'paying',
    },
  },
  thresholds: {
    // Only 200s for the paying caller, and at least one: a run that saw none measured nothing.
    paying_served: ['rate==1'],
    paying_ok: ['count>0'],
    flood_unexpected: ['count==0'],
  },
};

let sent = 0;

export function flood() {
  const res = http.get(`${BASE_URL}${ROUTE}`, {
    headers: { Authorization: `Bearer ${floodToken(FORGED, sent++)}` },
    timeout: '10s',
    tags: { caller: 'flood' },
  });
  let code;
  try {
    code = res.json().error.code;
  } catch {
    code = undefined;
  }
  const expected = floodAnswerIsExpected(res.status, code, Number(res.headers['Retry-After']) >= 1);
  if (!expected) floodUnexpected.add(1, { status: String(res.status) });
  floodThrottled.add(res.status === 429);
}

export function paying() {
  const res = http.get(`${BASE_URL}${ROUTE}`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    timeout: '10s',
    tags: { caller: 'paying' },
  });
  const ok = res.status === 200;
  payingServed.add(ok);
  // Added either way, so a run without a single 200 has the metric at 0 and fails its threshold.
  payingOk.add(ok ? 1 : 0);
  payingDuration.add(res.timings.duration);
  check(res, { 'paying caller served': () => ok });
}
