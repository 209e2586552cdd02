import { systemClock } from '@mdp/nse-calendar';
import type { ledger } from '@mdp/proto';
import { createRegistry } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/authenticator.ts';
import { LedgerShards } from '../src/ledger-shards.ts';
import { AdmissionClient } from '../src/metering/admission.ts';
import { admittedResponse, releasedResponse, scriptedShard, silentLogger } from './harness.ts';

const DEADLINE_MS = 300;

const caller = (accountId: string): Principal => ({
  tokenId: `t-${accountId}`,
  accountId,
  plan: 'load-test',
  dailyCap: null,
  monthlyCap: null,
  expiresAtMs: null,
  burstPerMinute: null,
});

/** How late the shard answers a request whose id starts with `late` (an account it must load first, say). */
const LATE_MS = DEADLINE_MS + 200;

/**
 * A ledger shard over a real gRPC stream that admits every request whose id starts with `ok` at once,
 * those starting with `late` after the gateway's deadline, ends the stream on one starting with `drop`
 * (after holding it, as a shard that goes on running would), and never answers the others (a shard
 * stuck on a lost database, say), and keeps the messages it received.
 */
function stuckShard() {
  const received: ledger.AdmitRequest[] = [];
  const server = scriptedShard((call) => {
    call.on('data', (batch: ledger.AdmitRequest) => {
      received.push(batch);
      const now = batch.admissions.filter((a) => a.request_id.startsWith('ok'));
      if (now.length > 0) call.write(admittedResponse(now));
      const late = batch.admissions.filter((a) => a.request_id.startsWith('late'));
      if (late.length > 0) setTimeout(() => call.write(admittedResponse(late)), LATE_MS).unref();
      if (batch.releases.length > 0) call.write(releasedResponse(batch.releases));
      if (batch.admissions.some((a) => a.request_id.startsWith('drop'))) call.end();
    });
    call.on('end', () => call.end());
  });
  return { server, received };
}

describe('admission deadline (one timer per message to the shard)', () => {
  const shard = stuckShard();
  let client: AdmissionClient;

  beforeAll(async () => {
    const port = await shard.server.listen('127.0.0.1', 0);
    client = new AdmissionClient({
      shards: new LedgerShards([`127.0.0.1:${port}`]),
      deadlineMs: DEADLINE_MS,
      logger: silentLogger,
      registry: createRegistry('test-gw'),
      clock: systemClock,
    });
  });
  afterAll(async () => {
    client.close();
    await shard.server.shutdown(100);
  });

  it('answers what the shard answers at once, and 503s within the deadline what it leaves unanswered', async () => {
    // Sent in one turn, so they travel as one message: answered and unanswered share its timer.
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      ['ok-1', 'stuck-1', 'ok-2', 'stuck-2'].map((id, i) =>
        client.admit(id, caller(`acct-${i}`), 'rest', undefined),
      ),
    );
    const elapsed = performance.now() - started;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    const admitted = outcomes[0] as PromiseFulfilledResult<Awaited<ReturnType<AdmissionClient['admit']>>>;
    expect(admitted.value).toMatchObject({ requestId: 'ok-1', accountId: 'acct-0', via: 'rest' });
    expect(admitted.value.headers['x-ratelimit-reset']).toBe('1800000000');
    for (const o of [outcomes[1], outcomes[3]] as PromiseRejectedResult[]) {
      expect(o.reason).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(o.reason.headers['Retry-After']).toBe(5);
    }
    // Not before the deadline (nothing is refused early) and not forever.
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(shard.received.at(-1)!.admissions.map((a) => a.request_id)).toEqual([
      'ok-1',
      'stuck-1',
      'ok-2',
      'stuck-2',
    ]);
  });

  it('an answered request is not refused later by its message timer', async () => {
    const admitted = await client.admit('ok-3', caller('acct-9'), 'rest', undefined);
    expect(admitted.requestId).toBe('ok-3');
    // Past the deadline of that message, a new admission on the same stream still goes through.
    await new Promise((r) => setTimeout(r, DEADLINE_MS + 50));
    await expect(client.admit('ok-4', caller('acct-9'), 'rest', undefined)).resolves.toMatchObject({
      requestId: 'ok-4',
    });
  });

  it('releases at once a request it answered 503 that the shard admitted after the deadline', async () => {
    // Otherwise the hold would count in usage and against the caps for the hold TTL, for a request
    // that was never served (a client retrying the 503 saw usage one above its 200s).
    await expect(client.admit('late-1', caller('acct-late'), 'rest', undefined)).rejects.toMatchObject({
      status: 503,
    });
    const releases = () => shard.received.flatMap((m) => m.releases);
    const until = Date.now() + 10_000;
    while (releases().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(releases()).toEqual([{ request_id: 'late-1', account_id: 'acct-late' }]);
    // A request never answered is not released on a guess, nor one answered in time.
    expect(releases().map((r) => r.request_id)).not.toContain('stuck-1');
  });

  it('releases on the next stream the requests pending when a stream broke, and those given up on before', async () => {
    await expect(client.admit('drop-1', caller('acct-drop'), 'rest', undefined)).rejects.toMatchObject({
      status: 503,
    });
    const sent = shard.received.length;
    // The stream is re-dialled by the next admission (after a short pause), which it follows.
    let next: Awaited<ReturnType<AdmissionClient['admit']>> | undefined;
    // Attempts answered 503: on a loaded machine one may pass its deadline before the shard's answer
    // arrives, and is then released as the test before this one shows.
    const refused = new Set<string>();
    const until = Date.now() + 10_000;
    while (!next && Date.now() < until) {
      const id = `ok-after-drop-${Date.now()}`;
      next = await client.admit(id, caller('acct-drop'), 'rest', undefined).catch(() => {
        refused.add(id);
        return undefined;
      });
    }
    expect(next).toBeDefined();
    const released = shard.received.slice(sent).flatMap((m) => m.releases);
    // The admission answered is never released.
    expect(released.map((r) => r.request_id)).not.toContain(next!.requestId);
    // The first test's requests, answered 503 at their deadline, were never answered by the shard either:
    // over the new stream their late answer can no longer come, so they are released too (once).
    expect(released.filter((r) => !refused.has(r.request_id))).toEqual([
      { request_id: 'drop-1', account_id: 'acct-drop' },
      { request_id: 'stuck-1', account_id: 'acct-1' },
      { request_id: 'stuck-2', account_id: 'acct-3' },
    ]);
  });
});
