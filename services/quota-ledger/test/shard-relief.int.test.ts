import { shardOf } from '@mdp/usage';
import { describe, expect, it } from 'vitest';
import { until } from '../../../test/until.ts';
import { registryNow, writeHandover } from '../src/admission/registry-tables.ts';
import { registriesOnOwnSchema } from './registries.ts';

// A relief that cannot hand over when it ends (its subject not recorded in time, Postgres gone) lapses:
// the restarted shard then waits out every hold it could have had, as after a kill, and never admits the
// account while the relief might still have charges of it to record.

const HOLD_TTL_MS = 4_000;
const registries = registriesOnOwnSchema('relief', 6);

const start = (shard: number, recorded: () => Promise<void>) =>
  registries.start({
    shard,
    count: 3,
    holder: `test-${shard}`,
    holdTtlMs: HOLD_TTL_MS,
    // Every subject recorded up to now: only the runs' ends and holds decide.
    horizons: () => new Map([[shard, Date.now()]]),
    recordedPast: recorded,
    intervalMs: 200,
    notices: registries.notices,
  });

describe('a relief that cannot hand over', () => {
  it('lapses, and the restarted shard waits out its holds before it admits', async () => {
    let x = '';
    for (let i = 0; shardOf(x, 3) !== 1; i++) x = `0193a5b0-0000-7000-8000-${String(i).padStart(12, '0')}`;
    const lagging = async () => {
      throw new Error('recording lags');
    };
    const zero = start(0, lagging);
    const one = start(1, async () => {});
    await Promise.all([zero.ready, one.ready]);
    expect(zero.ownership(x)).toEqual({ kind: 'not_owner' });
    // Shard 1 stops and hands over: shard 0 relieves it.
    await one.stopRefreshing();
    await writeHandover(registries.pool(), one.runs(), await registryNow(registries.pool()), []);
    await until('shard 0 to relieve shard 1', () => zero.ownership(x).kind === 'owner', 10_000, 20);
    expect(zero.ownership(x)).toMatchObject({ relief: true });
    // Shard 1 runs again and admits: the relief ends, but its hand-over fails.
    const back = start(1, async () => {});
    await back.ready;
    back.admitting();
    await until('the relief to end', () => zero.ownership(x).kind !== 'owner', 10_000, 20);
    const ended = Date.now();
    // Neither admits it until the relief's run has lapsed (5 s) and its holds could have expired.
    await until('shard 1 to admit it', () => back.ownership(x).kind === 'owner', 30_000, 50);
    expect(Date.now() - ended).toBeGreaterThan(HOLD_TTL_MS);
    expect(zero.ownership(x)).toEqual({ kind: 'not_owner' });
  }, 60_000);
});
