import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { Clock } from '@mdp/nse-calendar';
import { LRUCache } from 'lru-cache';

export interface FailureThrottleOptions {
  /** Failed authentications an address may have in one window before it is answered 429. */
  limit: number;
  windowMs: number;
  /** Most addresses remembered; the least recently seen are forgotten first. */
  maxAddresses: number;
  clock: Clock;
}

/**
 * Failed authentications per client address in fixed windows. Memory is bounded by an LRU: a flood
 * from more addresses than it holds makes it forget the quietest ones, never grow. IPv6 clients are
 * counted by /64, the block one subscriber line is given, so a client cannot escape it by walking its
 * own addresses.
 */
export class FailureThrottle {
  private readonly windows: LRUCache<string, { failures: number; endsAtMs: number }>;

  constructor(private readonly opts: FailureThrottleOptions) {
    this.windows = new LRUCache({ max: opts.maxAddresses });
  }

  /** Milliseconds until `address` may be looked at again; 0 when it is not throttled. */
  retryAfterMs(address: string): number {
    const w = this.windows.get(addressKey(address), { updateAgeOnGet: false });
    if (!w || w.failures < this.opts.limit) return 0;
    return Math.max(0, w.endsAtMs - this.opts.clock());
  }

  fail(address: string): void {
    const key = addressKey(address);
    const now = this.opts.clock();
    const w = this.windows.get(key);
    if (!w || w.endsAtMs <= now) this.windows.set(key, { failures: 1, endsAtMs: now + this.opts.windowMs });
    else w.failures++;
  }

  /** Addresses over the limit now (walks the LRU: for a scrape, not a request). */
  throttledCount(): number {
    const now = this.opts.clock();
    let n = 0;
    for (const w of this.windows.values()) if (w.failures >= this.opts.limit && w.endsAtMs > now) n++;
    return n;
  }
}

/** An IPv4 address as itself (IPv4-mapped IPv6 too), an IPv6 one by its /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !address.includes(':')) return address;
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * At most `max` lookups at once; beyond it a caller is refused at once rather than queued, since a queue
 * is where paying traffic would wait behind a flood.
 */
export class LookupBound {
  private inUse = 0;
  constructor(readonly max: number) {}
  tryAcquire(): boolean {
    if (this.inUse >= this.max) return false;
    this.inUse++;
    return true;
  }
  release(): void {
    this.inUse--;
  }
  get current(): number {
    return this.inUse;
  }
}

/**
 * fastify's `trustProxy` test: hop `hop` (0 = the socket's peer) is believed about the one before it
 * when it is within the first `hops` and its address is in `cidrs`. Throws on a malformed entry, naming it.
 */
export function trustedProxies(hops: number, cidrs: string): (address: string, hop: number) => boolean {
  const list = new BlockList();
  for (const raw of cidrs.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address = '', bits] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
    if (!type || !Number.isInteger(prefix) || prefix < 0 || prefix > (type === 'ipv4' ? 32 : 128))
      throw new Error(`TRUSTED_PROXY_CIDRS: "${entry}" is not an address or CIDR`);
    list.addSubnet(address, prefix, type);
  }
  return (address, hop) => {
    if (hop >= hops) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const plain = mapped ? mapped[1]! : address;
    if (isIPv4(plain)) return list.check(plain, 'ipv4');
    return isIPv6(plain) && list.check(plain, 'ipv6');
  };
}
