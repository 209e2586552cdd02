// Generated events of the usage log's real shape, for `make bench-ledger` (bench/ledger-volume.ts): UUIDv7
// request ids in time order, thousands of accounts (a few busy, most quiet), the gateway's routes (a few
// popular), mostly charges with some refunds, over REST and MCP, spread evenly over the last IST days.
// Written as rows of COPY's binary format (nothing for Postgres to parse), and counted as they go into
// the cells the projections are made of, so the loaded log and its projections agree.
import { randomFillSync } from 'node:crypto';
import { day as dayNumber, formatDay, istDateStart, istDay } from '@mdp/nse-calendar';

/** The IST day of a Unix millisecond, as a day number (days since 1970-01-01 in IST). */
export const istDayNumber = (ms: number): number => dayNumber(istDay(ms));
/** The Unix millisecond at which an IST day (a day number) begins. */
export const istDayStartMs = (day: number): number => istDateStart(formatDay(day));
/** A day number as YYYY-MM-DD (what `usage_cells.day` holds), and its IST month YYYY-MM. */
export const dayDate = (day: number): string => formatDay(day);
export const dayMonth = (day: number): string => dayDate(day).slice(0, 7);
/** A day's partition of the log, as `usage_events_ensure_partition` names it. */
export const partitionName = (day: number): string => `usage_events_${dayDate(day).replaceAll('-', '')}`;

/** A small seeded generator (mulberry32): the bench needs a reproducible spread, not secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Cumulative shares of ranks 0..n-1 under Zipf's law with exponent `s`: rank 0 the most frequent. */
export function zipfCdf(n: number, s = 1): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s;
    cdf[i] = sum;
  }
  for (let i = 0; i < n; i++) cdf[i]! /= sum;
  cdf[n - 1] = 1;
  return cdf;
}

/** The rank a uniform draw `u` in [0, 1) falls on. */
export function pick(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (u < cdf[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface EventShape {
  /** Events in all, spread evenly over [fromMs, toMs). */
  count: number;
  fromMs: number;
  toMs: number;
  /** Accounts by index, Zipf-distributed (index 0 the busiest). */
  accounts: number;
  /** Routes by index, Zipf-distributed (index 0 the most asked). */
  routes: number;
  /** The share of requests refunded (any answer but a 200) rather than charged. */
  refundShare: number;
  /** The share of requests that came through MCP rather than REST. */
  mcpShare: number;
  seed: number;
}

export const DEFAULT_SHAPE = { refundShare: 0.03, mcpShare: 0.1, seed: 20_261_125 } as const;

/** The statuses of refunded requests, and how often each comes. */
const REFUND_STATUSES = [404, 404, 404, 400, 400, 502, 503, 504] as const;

/** One generated event; `next` fills the same object each time. */
export interface GeneratedEvent {
  /** The request id's 16 bytes: valid until the next event. */
  requestId: Uint8Array;
  account: number;
  atMs: number;
  day: number;
  route: number;
  status: number;
  kind: 'c' | 'r';
  via: 'r' | 'm';
}

/** The IST days [first, last] the shape's events fall on, and how many of them each day holds. */
export function dayCounts(shape: EventShape): { first: number; last: number; counts: number[] } {
  const first = istDayNumber(shape.fromMs);
  const last = istDayNumber(shape.toMs - 1);
  const span = shape.toMs - shape.fromMs;
  const counts: number[] = [];
  let given = 0;
  for (let d = first; d <= last; d++) {
    // Events up to the end of this day, rounded: the days' counts add up to the whole exactly.
    const end = Math.min(shape.toMs, istDayStartMs(d + 1));
    const upTo = Math.round((shape.count * (end - shape.fromMs)) / span);
    counts.push(upTo - given);
    given = upTo;
  }
  return { first, last, counts };
}

/**
 * The events of one IST day of a shape, in time order, each request id a UUIDv7 made from its admission
 * millisecond: 48 bits of milliseconds, 12 bits of a counter started at random each millisecond (so ids
 * within a millisecond still increase, as the `uuid` package's v7 does), 62 random bits. The days of a
 * shape are independent (each its own seed), so they can be loaded in any order or side by side.
 */
export class DayEvents {
  readonly count: number;
  private made = 0;
  private readonly rng: () => number;
  private readonly accountCdf: Float64Array;
  private readonly routeCdf: Float64Array;
  private readonly fromMs: number;
  private readonly spanMs: number;
  private lastMs = -1;
  private seq = 0;
  private readonly id = new Uint8Array(16);
  private readonly random = Buffer.alloc(8 * 4096);
  private randomAt = this.random.length;
  private readonly event: GeneratedEvent;

  constructor(
    private readonly shape: EventShape,
    readonly day: number,
    cdfs?: { accounts: Float64Array; routes: Float64Array },
  ) {
    const { first, counts } = dayCounts(shape);
    this.count = counts[day - first] ?? 0;
    this.rng = mulberry32(shape.seed ^ Math.imul(day, 0x9e3779b1));
    this.accountCdf = cdfs?.accounts ?? zipfCdf(shape.accounts);
    this.routeCdf = cdfs?.routes ?? zipfCdf(shape.routes);
    this.fromMs = Math.max(shape.fromMs, istDayStartMs(day));
    this.spanMs = Math.min(shape.toMs, istDayStartMs(day + 1)) - this.fromMs;
    this.event = { requestId: this.id, account: 0, atMs: 0, day, route: 0, status: 200, kind: 'c', via: 'r' };
  }

  /** The next event of the day, or null when the day has them all. */
  next(): GeneratedEvent | null {
    if (this.made === this.count) return null;
    const e = this.event;
    // Spread evenly, in order: the i-th event falls in the i-th slice of the day's span.
    const atMs = this.fromMs + Math.floor(((this.made + this.rng()) * this.spanMs) / this.count);
    this.made++;
    if (atMs !== this.lastMs) {
      this.lastMs = atMs;
      this.seq = Math.floor(this.rng() * 2048);
    } else if (++this.seq > 0xfff) throw new Error(`more than 2,048 events in the millisecond ${atMs}`);
    this.writeId(atMs);
    e.atMs = atMs;
    e.account = pick(this.accountCdf, this.rng());
    e.route = pick(this.routeCdf, this.rng());
    e.via = this.rng() < this.shape.mcpShare ? 'm' : 'r';
    if (this.rng() < this.shape.refundShare) {
      e.kind = 'r';
      e.status = REFUND_STATUSES[Math.floor(this.rng() * REFUND_STATUSES.length)]!;
    } else {
      e.kind = 'c';
      e.status = 200;
    }
    return e;
  }

  private writeId(ms: number) {
    const id = this.id;
    // 48 bits of milliseconds, big-endian.
    const hi = Math.floor(ms / 0x1_0000_0000);
    const lo = ms >>> 0;
    id[0] = (hi >>> 8) & 0xff;
    id[1] = hi & 0xff;
    id[2] = lo >>> 24;
    id[3] = (lo >>> 16) & 0xff;
    id[4] = (lo >>> 8) & 0xff;
    id[5] = lo & 0xff;
    // Version 7 and the counter (rand_a), then the variant and 62 random bits (rand_b).
    id[6] = 0x70 | (this.seq >>> 8);
    id[7] = this.seq & 0xff;
    if (this.randomAt === this.random.length) {
      randomFillSync(this.random);
      this.randomAt = 0;
    }
    const r = this.randomAt;
    this.randomAt += 8;
    id[8] = 0x80 | (this.random[r]! & 0x3f);
    for (let i = 1; i < 8; i++) id[8 + i] = this.random[r + i]!;
  }
}

/** A uuid's 16 bytes as its text form. */
export function uuidText(b: Uint8Array): string {
  const h = Buffer.from(b.buffer, b.byteOffset, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// COPY's binary format: a signature, flags and header extension, then per row the number of fields
// and each field as its length and bytes (big-endian), then -1 (PostgreSQL docs, "Binary Format").
export const COPY_BINARY_HEADER = Buffer.concat([
  Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'),
  Buffer.alloc(8), // flags 0, no header extension
]);
export const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);
/** The log's columns in the order `encodeEvent` writes them. */
export const LOG_COLUMNS = ['request_id', 'admitted_at', 'account', 'route', 'status', 'kind', 'interface'];
/** Bytes of one encoded row: 7 fields (uuid, timestamptz, integer, smallint, smallint, "char", "char"). */
export const ROW_BYTES = 2 + 7 * 4 + 16 + 8 + 4 + 2 + 2 + 1 + 1;
/** Microseconds from the Unix epoch to Postgres's (2000-01-01). */
const PG_EPOCH_US = 946_684_800_000_000;

/**
 * Writes one event at `at` in COPY's binary format; returns the offset after it. `accountIds` holds the
 * accounts' usage_accounts numbers by index; `routeIds` the routes' usage_routes ids by index.
 */
export function encodeEvent(
  buf: Buffer,
  at: number,
  e: GeneratedEvent,
  accountIds: ArrayLike<number>,
  routeIds: ArrayLike<number>,
): number {
  let o = buf.writeInt16BE(7, at);
  o = buf.writeInt32BE(16, o);
  buf.set(e.requestId, o);
  o = buf.writeInt32BE(8, o + 16);
  // Microseconds since 2000 fit a double exactly (about 2^50 today): written as two 32-bit halves.
  const us = e.atMs * 1000 - PG_EPOCH_US;
  const hi = Math.floor(us / 0x1_0000_0000);
  o = buf.writeInt32BE(hi, o);
  o = buf.writeUInt32BE(us - hi * 0x1_0000_0000, o);
  o = buf.writeInt32BE(4, o);
  o = buf.writeInt32BE(accountIds[e.account]!, o);
  o = buf.writeInt32BE(2, o);
  o = buf.writeInt16BE(routeIds[e.route]!, o);
  o = buf.writeInt32BE(2, o);
  o = buf.writeInt16BE(e.status, o);
  o = buf.writeInt32BE(1, o);
  buf[o++] = e.kind.charCodeAt(0);
  o = buf.writeInt32BE(1, o);
  buf[o++] = e.via.charCodeAt(0);
  return o;
}

/**
 * Charged requests by account, day, route and interface: the cells every projection row sums. A
 * generated request has one event, so it counts when that event is a charge.
 */
export class ChargedCells {
  readonly cells: Uint32Array;
  constructor(
    readonly accounts: number,
    readonly firstDay: number,
    readonly days: number,
    readonly routes: number,
  ) {
    this.cells = new Uint32Array(accounts * days * routes * 2);
  }

  private index(account: number, day: number, route: number, via: 'r' | 'm'): number {
    return ((account * this.days + (day - this.firstDay)) * this.routes + route) * 2 + (via === 'm' ? 1 : 0);
  }

  add(e: GeneratedEvent): void {
    if (e.kind === 'c') this.cells[this.index(e.account, e.day, e.route, e.via)]!++;
  }

  /** All charged requests counted. */
  total(): number {
    let n = 0;
    for (const c of this.cells) n += c;
    return n;
  }

  /**
   * Rows of the projection, `usage_cells` (account, day, route, interface, charged), none with 0
   * charged, with the accounts' and routes' numbers (the daily and monthly figures are its sums).
   */
  *rows(accountIds: readonly number[], routeIds: readonly number[]): Generator<(string | number)[]> {
    const cells = this.cells;
    for (let a = 0; a < this.accounts; a++)
      for (let d = 0; d < this.days; d++) {
        const day = dayDate(this.firstDay + d);
        for (let r = 0; r < this.routes; r++)
          for (let v = 0; v < 2; v++) {
            const n = cells[((a * this.days + d) * this.routes + r) * 2 + v]!;
            if (n > 0) yield [accountIds[a]!, day, routeIds[r]!, VIA[v]!, n];
          }
      }
  }
}

/** The log's letters for REST and MCP. */
const VIA = ['r', 'm'] as const;

/** The projection's columns, as `ChargedCells.rows` gives their values. */
export const PROJECTION_COLUMNS = ['account', 'day', 'route', 'interface', 'charged'];
