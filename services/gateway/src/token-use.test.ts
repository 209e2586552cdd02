import { createLogger } from '@mdp/telemetry';
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
});
