import { describe, expect, it } from 'vitest';
import { OutstandingAdmissions } from './admission.ts';

const account = { account_id: 'a', plan: 'free', daily_cap: 40, monthly_cap: undefined, burst_per_minute: 0 };
const hold = (id: string, at = 1_000) => ({ request_id: id, account, admitted_at_ms: at, interface: 'rest' });

describe('OutstandingAdmissions', () => {
  it('lists admitted requests oldest first until they settle', () => {
    const o = new OutstandingAdmissions(30_000);
    o.add(hold('r1'), 0);
    o.add(hold('r2'), 10);
    o.add(hold('r3'), 20);
    o.settled('r2');
    o.settled('unknown');
    expect(o.holds(30).map((h) => h.request_id)).toEqual(['r1', 'r3']);
    expect(o.holds(30)[0]).toEqual(hold('r1'));
  });

  it('forgets a request after the hold TTL, so the set stays bounded', () => {
    const o = new OutstandingAdmissions(30_000);
    o.add(hold('r1'), 0);
    o.add(hold('r2'), 5_000);
    expect(o.holds(29_999)).toHaveLength(2);
    expect(o.holds(30_000).map((h) => h.request_id)).toEqual(['r2']);
    o.add(hold('r3'), 40_000);
    expect(o.size).toBe(1);
  });
});
