import { createLogger } from '@mdp/telemetry';
import { MAX_TOKEN_USES_PER_CALL } from '@mdp/tokens';
import { describe, expect, it } from 'vitest';
import { TokenUseReporter } from './token-use.ts';

type Uses = { token_id: string; used_at_ms: number }[];

/** A stand-in auth client that fails while `down` is set and records what it was sent. */
function fakeAuth() {
  const state = { down: false, sent: [] as Uses[] };
  const client = {
    recordTokenUse: async ({ uses }: { uses: Uses }) => {
      if (state.down) throw new Error('UNAVAILABLE: auth is down');
      state.sent.push(uses);
      return {};
    },
  };
  return { state, client: client as never };
}

describe('TokenUseReporter', () => {
  it('reports the latest use of each token once per flush', async () => {
    const { state, client } = fakeAuth();
    const r = new TokenUseReporter(client, createLogger('t', 'silent'), 60_000);
    r.seen('a', 100);
    r.seen('a', 300);
    r.seen('a', 200);
    r.seen('b', 50);
    await r.flush();
    expect(state.sent).toEqual([
      [
        { token_id: 'a', used_at_ms: 300 },
        { token_id: 'b', used_at_ms: 50 },
      ],
    ]);
    await r.flush();
    expect(state.sent).toHaveLength(1);
    await r.close();
  });

  it('loses nothing while the auth service is down: the failed report is merged into the next', async () => {
    const { state, client } = fakeAuth();
    const r = new TokenUseReporter(client, createLogger('t', 'silent'), 60_000);
    state.down = true;
    r.seen('a', 100);
    await r.flush();
    expect(state.sent).toEqual([]);
    r.seen('a', 90);
    r.seen('b', 120);
    state.down = false;
    await r.close();
    expect(state.sent).toEqual([
      [
        { token_id: 'a', used_at_ms: 100 },
        { token_id: 'b', used_at_ms: 120 },
      ],
    ]);
  });

  it('reports more tokens than one call may carry in several calls, each within the bound, at close too', async () => {
    const { state, client } = fakeAuth();
    const r = new TokenUseReporter(client, createLogger('t', 'silent'), 60_000);
    const count = 2 * MAX_TOKEN_USES_PER_CALL + 5;
    for (let i = 0; i < count; i++) r.seen(`t${i}`, 1_000 + i);
    await r.flush();
    expect(state.sent.map((uses) => uses.length)).toEqual([
      MAX_TOKEN_USES_PER_CALL,
      MAX_TOKEN_USES_PER_CALL,
      5,
    ]);
    expect(new Set(state.sent.flat().map((u) => u.token_id)).size).toBe(count);

    for (let i = 0; i < MAX_TOKEN_USES_PER_CALL + 1; i++) r.seen(`u${i}`, 5_000);
    await r.close();
    expect(state.sent.slice(3).map((uses) => uses.length)).toEqual([MAX_TOKEN_USES_PER_CALL, 1]);
  });

  it('stops a flush at a failed call and keeps its uses and the rest for the next', async () => {
    const { state, client } = fakeAuth();
    const r = new TokenUseReporter(client, createLogger('t', 'silent'), 60_000);
    for (let i = 0; i < MAX_TOKEN_USES_PER_CALL + 3; i++) r.seen(`t${i}`, 7);
    state.down = true;
    await r.flush();
    expect(state.sent).toEqual([]);
    state.down = false;
    await r.flush();
    expect(state.sent.map((uses) => uses.length)).toEqual([MAX_TOKEN_USES_PER_CALL, 3]);
    await r.close();
  });

  it('reports at close the uses seen while a flush was under way', async () => {
    const { state, client } = fakeAuth();
    const r = new TokenUseReporter(client, createLogger('t', 'silent'), 60_000);
    r.seen('a', 1);
    const first = r.flush();
    r.seen('b', 2);
    await r.close();
    await first;
    expect(state.sent).toEqual([[{ token_id: 'a', used_at_ms: 1 }], [{ token_id: 'b', used_at_ms: 2 }]]);
  });
});
