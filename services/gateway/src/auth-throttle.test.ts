import { describe, expect, it } from 'vitest';
import { addressKey, FailureThrottle, LookupBound, trustedProxies } from './auth-throttle.ts';

describe('failed-authentication throttle', () => {
  it('answers an address only after its limit, until its window ends', () => {
    let now = 1_000_000;
    const t = new FailureThrottle({ limit: 3, windowMs: 60_000, maxAddresses: 100, clock: () => now });
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfterMs('203.0.113.7')).toBe(0);
      t.fail('203.0.113.7');
    }
    expect(t.retryAfterMs('203.0.113.7')).toBe(60_000);
    expect(t.retryAfterMs('203.0.113.8')).toBe(0);
    expect(t.throttledCount()).toBe(1);
    now += 59_000;
    expect(t.retryAfterMs('203.0.113.7')).toBe(1_000);
    now += 1_000;
    expect(t.retryAfterMs('203.0.113.7')).toBe(0);
    t.fail('203.0.113.7');
    expect(t.retryAfterMs('203.0.113.7')).toBe(0);
  });

  it('holds at most maxAddresses: a flood from many addresses is forgotten, never grows', () => {
    const t = new FailureThrottle({ limit: 1, windowMs: 60_000, maxAddresses: 100, clock: () => 0 });
    for (let i = 0; i < 10_000; i++) t.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(t.throttledCount()).toBe(100);
  });

  it('counts IPv6 by /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    const t = new FailureThrottle({ limit: 2, windowMs: 60_000, maxAddresses: 100, clock: () => 0 });
    t.fail('2001:db8:1:2::1');
    t.fail('2001:db8:1:2::ffff');
    expect(t.retryAfterMs('2001:db8:1:2:1:2:3:4')).toBeGreaterThan(0);
    expect(t.retryAfterMs('2001:db8:1:3::1')).toBe(0);
  });
});

describe('trusted proxies', () => {
  it('believes a hop only within the hop count and from a listed address', () => {
    const trust = trustedProxies(1, '10.0.0.0/8, 2001:db8::/32');
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('::ffff:10.1.2.3', 0)).toBe(true);
    expect(trust('2001:db8::5', 0)).toBe(true);
    // Anyone else's X-Forwarded-For is not believed: they are the client.
    expect(trust('203.0.113.9', 0)).toBe(false);
    expect(trust('2001:db9::5', 0)).toBe(false);
    // Past the hop count, even a listed address is the client.
    expect(trust('10.1.2.3', 1)).toBe(false);
    expect(trustedProxies(0, '10.0.0.0/8')('10.1.2.3', 0)).toBe(false);
    expect(trustedProxies(2, '127.0.0.1')('127.0.0.1', 1)).toBe(true);
  });

  it('refuses a malformed entry, naming it', () => {
    expect(() => trustedProxies(1, '10.0.0.0/33')).toThrow(/"10.0.0.0\/33"/);
    expect(() => trustedProxies(1, 'ingress.local')).toThrow(/ingress.local/);
  });
});

describe('lookup bound', () => {
  it('refuses past its bound instead of queueing, and frees on release', () => {
    const b = new LookupBound(2);
    expect([b.tryAcquire(), b.tryAcquire(), b.tryAcquire()]).toEqual([true, true, false]);
    b.release();
    expect(b.current).toBe(1);
    expect(b.tryAcquire()).toBe(true);
  });
});
