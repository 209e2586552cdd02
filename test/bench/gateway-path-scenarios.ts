// What test/bench/gateway-path.ts asks of the gateway's own HTTP path (test/bench/gateway-path-server.ts),
// and the status each answer must have: shared with test/bench/gateway-path.int.test.ts, which asks each
// once so that a change of the gateway that breaks the bench's stand-ins fails the suite, not `make bench`.
import { DEV_TAG_KEYS, generateToken, parseTagKeys } from '@mdp/tokens';

export interface Scenario {
  key: string;
  name: string;
  path: string;
  headers: Record<string, string>;
  /** The status every answer must have; anything else fails the run. */
  status: number;
  /** Requests a run (and at most before the first round) when not `BENCH_PATH_REQUESTS`: a costly answer. */
  requests?: number;
}

const token = generateToken(parseTagKeys(DEV_TAG_KEYS));
const bearer = { authorization: `Bearer ${token}` };
/** What a browser or an HTTP library sends: the answer is under the compression threshold. */
const acceptEncoding = { 'accept-encoding': 'gzip, deflate, br' };
export const SCENARIOS: Scenario[] = [
  {
    key: 'usage',
    name: 'GET /v1/me/usage, 200 (token, envelope)',
    path: '/v1/me/usage',
    headers: bearer,
    status: 200,
  },
  {
    key: 'usage-ae',
    name: 'the same with Accept-Encoding',
    path: '/v1/me/usage',
    headers: { ...bearer, ...acceptEncoding },
    status: 200,
  },
  {
    key: 'no-token',
    name: 'GET /v1/stocks/X/quote, 401 (no token)',
    path: '/v1/stocks/ARAVALIHOU/quote',
    headers: {},
    status: 401,
  },
  { key: 'not-found', name: 'GET /v1/nope, 404', path: '/v1/nope', headers: {}, status: 404 },
  {
    key: 'openapi-br',
    name: 'GET /v1/openapi.json, brotli (no token)',
    path: '/v1/openapi.json',
    headers: { 'accept-encoding': 'br' },
    status: 200,
    // Each answer was compressed afresh (milliseconds of brotli) before issue 49: fewer of them.
    requests: 2_000,
  },
];
