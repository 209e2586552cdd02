import { describe, expect, it } from 'vitest';
import { ExpiringByRequest } from './admission.ts';

const account = { account_id: 'a', plan: 'free', daily_cap: 40, monthly_cap: undefined, burst_per_minute: 0 };
const hold = (id: string, at = 1_000) => ({ request_id: id, account, admitted_at_ms: at, interface: 'rest' });

describe('ExpiringByRequest', () => {
  it('lists entries oldest first until they are taken', () => {
    const o = new ExpiringByRequest<ReturnType<typeof hold>>(30_000);
    o.add('r1', hold('r1'), 0);
    o.add('r2', hold('r2'), 10);
    o.add('r3', hold('r3'), 20);
    expect(o.take('r2', 25)).toEqual(hold('r2'));
    expect(o.take('unknown', 25)).toBeUndefined();
    expect(o.values(30).map((h) => h.request_id)).toEqual(['r1', 'r3']);
    expect(o.values(30)[0]).toEqual(hold('r1'));
  });

  it('forgets an entry after the hold TTL, so the set stays bounded', () => {
    const o = new ExpiringByRequest<ReturnType<typeof hold>>(30_000);
    o.add('r1', hold('r1'), 0);
    o.add('r2', hold('r2'), 5_000);
    expect(o.values(29_999)).toHaveLength(2);
    expect(o.values(30_000).map((h) => h.request_id)).toEqual(['r2']);
    o.add('r3', hold('r3'), 40_000);
    expect(o.size).toBe(1);
  });

  it('takes nothing once its TTL has passed, even before a prune', () => {
    const o = new ExpiringByRequest<string>(1_000);
    o.add('late', 'account-1', 0);
    expect(o.take('late', 1_000)).toBeUndefined();
    o.add('late', 'account-1', 2_000);
    expect(o.take('late', 2_999)).toBe('account-1');
    expect(o.take('late', 2_999)).toBeUndefined();
  });
});
