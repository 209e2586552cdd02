// k6 v2 API (runs on v1.x too): the 503 behaviour while the quota ledger or the auth service is stopped,
// and recovery after.
//
// Run a steady load in three phases. Stop the ledger (or auth) when the "during" phase starts and start
// it again when "after" starts; the script cannot stop processes itself:
//
//   TOKEN=$(make -s token PLAN=load-test | tail -1) k6 run -e TOKEN=$TOKEN load-tests/outage.js &
//   sleep 20; kill -STOP <ledger pid>   # or stop its pod / container
//   sleep 20; kill -CONT <ledger pid>
//
// The load-test plan has no burst cap, so 20 requests a second on one token are all admitted. While the
// service is down every request must end quickly (p99 under 300 ms) in 503 service_unavailable with a
// Retry-After (for auth: tokens not yet verified; verified ones keep working), never a 500, 502 or a
// hang; afterwards the service must be back without intervention. ARAVALIHOU exists in the default data.
import { check } from 'k6';
import http from 'k6/http';
import { Counter, Rate } from 'k6/metrics';

const BASE_URL = __ENV.BASE_URL || 'http://localhost:8080';
const ROUTE = __ENV.ROUTE || '/v1/stocks/ARAVALIHOU/quote';
const TOKEN = __ENV.TOKEN;
const PHASE = __ENV.PHASE_SECONDS || '20';

if (!TOKEN) throw new Error('set TOKEN (make token PLAN=load-test)');

const served = new Rate('served');
const unavailable = new Rate('unavailable');
const unexpected = new Counter('unexpected_status');

const phase = (name, start) => ({
  executor: 'constant-arrival-rate',
  rate: 20,
  timeUnit: '1s',
  duration: `${PHASE}s`,
  startTime: `${start}s`,
  preAllocatedVUs: 10,
  maxVUs: 100,
  tags: { phase: name },
});

export const options = {
  scenarios: {
    before: phase('before', 0),
    during: phase('during', Number(PHASE)),
    after: phase('after', 2 * Number(PHASE) + 5),
  },
  thresholds: {
    unexpected_status: ['count==0'],
    'served{phase:before}': ['rate>0.99'],
    // Recovery: once the service is back, requests are served again.
    'served{phase:after}': ['rate>0.95'],
    // The outage is visible as 503s, and they come quickly (bounded waits, open breakers).
    'unavailable{phase:during}': ['rate>0'],
    'http_req_duration{status:503}': ['p(99)<300'],
  },
};

export default function () {
  const res = http.get(`${BASE_URL}${ROUTE}`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    timeout: '10s',
  });
  // Only a 200 is service: a 404 means ROUTE names nothing in the data served, which proves nothing.
  const ok = res.status === 200;
  served.add(ok);
  unavailable.add(res.status === 503);
  if (res.status === 503) {
    check(res, {
      '503 is service_unavailable': (r) => r.json().error.code === 'service_unavailable',
      '503 has Retry-After': (r) => Number(r.headers['Retry-After']) >= 1,
    });
  } else if (!ok) {
    unexpected.add(1, { status: String(res.status) });
  }
}
