import { admissionResult, decide } from '@mdp/admission';
import { systemClock } from '@mdp/nse-calendar';
import type { ledger } from '@mdp/proto';
import { createRegistry } from '@mdp/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Principal } from '../src/authenticator.ts';
import { LedgerShards } from '../src/ledger-shards.ts';
import { AdmissionClient } from '../src/metering/admission.ts';
import { scriptedShard, silentLogger } from './harness.ts';

// The rate-limit headers of a request the shard admitted after granting this gateway a lease on its
// account (one sent before the grant reached the gateway, or sent again not wanting a lease): the shard
// counts the allotment out on the lease as used, and an allotment is never reported as used.

const caller: Principal = {
  tokenId: 't-free',
  accountId: 'acct-free',
  plan: 'free',
  dailyCap: 50,
  monthlyCap: 1_500,
  expiresAtMs: null,
  burstPerMinute: 60,
};
const caps = { daily: 50, monthly: 1_500, burst: 60 };
const ALLOTMENT = 19;

/**
 * A shard that admits the message's first request with a lease of ALLOTMENT on its account, and every
 * other request of the message as the ledger's book does while that lease is out: its allotment
 * counted as used, in the caps and in the burst window.
 */
function leasingShard() {
  return scriptedShard((call) => {
    call.on('data', (batch: ledger.AdmitRequest) => {
      const now = Date.now();
      const burst: number[] = [];
      const results = batch.admissions.map((a, i) => {
        const counted = i === 0 ? i : i + ALLOTMENT;
        const result = admissionResult(
          a.request_id,
          decide(caps, { burst, day: counted, month: counted }, now),
          now,
        );
        burst.push(now);
        if (i === 0) {
          result.lease = {
            lease_id: 'lease-1',
            day: 1,
            month: 1,
            burst_ms: [now],
            in_flight: [{ request_id: a.request_id, in_day: true, in_month: true }],
            allotment: ALLOTMENT,
            granted_at_ms: now,
            expires_at_ms: now + 60_000,
          };
          for (let k = 0; k < ALLOTMENT; k++) burst.push(now);
        }
        return result;
      });
      call.write({ results, released: [], recalls: [], extensions: [] });
    });
    call.on('end', () => call.end());
  });
}

const server = leasingShard();
let client: AdmissionClient;

beforeAll(async () => {
  const port = await server.listen('127.0.0.1', 0);
  client = new AdmissionClient({
    shards: new LedgerShards([`127.0.0.1:${port}`]),
    deadlineMs: 2_000,
    logger: silentLogger,
    registry: createRegistry('test-gw'),
    clock: systemClock,
  });
});
afterAll(async () => {
  client.close();
  await server.shutdown(100);
});

it('a request the shard admitted after granting this gateway a lease says what the account has left, not less the allotment', async () => {
  // Sent in one turn, so they travel as one message: the grant comes with the first answer.
  const [first, second] = await Promise.all(
    ['r-1', 'r-2'].map((id) => client.admit(id, caller, 'rest', undefined)),
  );
  expect(first!.headers['x-ratelimit-remaining']).toBe('49');
  // The shard said 29 (50 less one, the allotment of 19, and this one); the account has used two.
  expect(second!.headers['x-ratelimit-remaining']).toBe('48');
  // The next request is decided under the lease, counting both.
  const third = await client.admit('r-3', caller, 'rest', undefined);
  expect(third.headers['x-ratelimit-remaining']).toBe('47');
});
