/**
 * Admission times, oldest first, as `decide` reads them: how many there are and the one at an index
 * (0 is the oldest). A `readonly number[]` is one; so is a `BurstWindow`.
 */
export interface BurstTimes {
  readonly length: number;
  at(index: number): number | undefined;
}

/** The smallest buffer a window keeps once it has held anything; it never shrinks below this. */
const MIN_CAPACITY = 16;

/**
 * An account's burst window: its admission times (ms), oldest first, in a ring buffer that doubles when
 * full and halves when a quarter full. Adding the newest time, evicting from the oldest end, the count
 * and the time at any index cost O(1) (amortised over the resizes) however many admissions the window
 * holds, so a plan with a very large burst cap costs per admission what one capped at 60 does (a plain
 * array's `shift()`, and a copy of the window per decision, made each admission cost the window's size:
 * throughput fell as the window filled). Times are whole ms (a Float64Array holds them exactly).
 */
export class BurstWindow implements BurstTimes {
  /** Capacity is 0 or a power of two, so an index wraps with a mask. */
  private buf = new Float64Array(0);
  /** Where the oldest time is. */
  private head = 0;
  private size = 0;

  /** How many times the window holds. */
  get length(): number {
    return this.size;
  }

  /** The time at `index` from the oldest (negative: from the newest, as `Array.prototype.at`). */
  at(index: number): number | undefined {
    const i = index < 0 ? index + this.size : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.size) return undefined;
    return this.buf[(this.head + i) & (this.buf.length - 1)];
  }

  oldest(): number | undefined {
    return this.at(0);
  }

  newest(): number | undefined {
    return this.at(this.size - 1);
  }

  /**
   * Adds a time at the newest end: O(1) amortised. A time older than the newest (a wall clock that
   * stepped back) goes where it belongs instead, so the window stays oldest first.
   */
  push(t: number): void {
    if (this.size > 0 && t < this.buf[(this.head + this.size - 1) & (this.buf.length - 1)]!) {
      this.insert(t);
      return;
    }
    if (this.size === this.buf.length) this.resize(Math.max(MIN_CAPACITY, this.buf.length * 2));
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = t;
    this.size++;
  }

  /**
   * Removes every time ≤ `cutoff` (they are all at the oldest end); returns how many. O(1) amortised per
   * time removed, and O(1) when none is.
   */
  evictThrough(cutoff: number): number {
    const mask = this.buf.length - 1;
    let removed = 0;
    while (this.size > 0 && this.buf[this.head]! <= cutoff) {
      this.head = (this.head + 1) & mask;
      this.size--;
      removed++;
    }
    if (removed > 0) {
      if (this.size === 0) this.head = 0;
      let capacity = this.buf.length;
      while (capacity > MIN_CAPACITY && this.size <= capacity / 4) capacity /= 2;
      if (capacity !== this.buf.length) this.resize(capacity);
    }
    return removed;
  }

  /**
   * Adds a time where it belongs, after any equal time (a restored admission, older than some in the
   * window). O(n): it moves the newer times up by one. Restores are rare; admissions use `push`.
   */
  insert(t: number): void {
    if (this.size === this.buf.length) this.resize(Math.max(MIN_CAPACITY, this.buf.length * 2));
    const mask = this.buf.length - 1;
    let i = this.size;
    while (i > 0 && this.buf[(this.head + i - 1) & mask]! > t) {
      this.buf[(this.head + i) & mask] = this.buf[(this.head + i - 1) & mask]!;
      i--;
    }
    this.buf[(this.head + i) & mask] = t;
    this.size++;
  }

  /**
   * Removes up to `count` entries equal to `t`; returns how many. O(n): for a lease's provisional entries
   * when it comes back, not for admissions.
   */
  removeEach(t: number, count: number): number {
    if (count <= 0) return 0;
    const kept: number[] = [];
    let removed = 0;
    for (let i = 0; i < this.size; i++) {
      const v = this.at(i)!;
      if (v === t && removed < count) removed++;
      else kept.push(v);
    }
    if (removed === 0) return 0;
    this.size = 0;
    this.head = 0;
    for (const v of kept) this.push(v);
    return removed;
  }

  /** The times, oldest first (for tests and diagnostics: O(n)). */
  toArray(): number[] {
    return Array.from({ length: this.size }, (_, i) => this.at(i)!);
  }

  /** How many times the buffer can hold before it grows (for tests). */
  get capacity(): number {
    return this.buf.length;
  }

  private resize(capacity: number): void {
    const next = new Float64Array(capacity);
    const mask = this.buf.length - 1;
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) & mask]!;
    this.buf = next;
    this.head = 0;
  }
}
