/**
 * A small, fast, seedable PRNG (sfc32 seeded through splitmix32) so the generated dataset is the same
 * on every machine for a given seed; every data generator (market, options, filings) draws from it.
 * Independent streams are derived from (seed, label) so that one stock's prices do not depend on how
 * many random numbers another stock consumed.
 */
export class Rng {
  /**
   * The generator's four words a, b, c, d as 32-bit integers. In plain number fields, values past 2^31
   * made V8 keep them as heap doubles, and every draw cost several times more.
   */
  private readonly s = new Int32Array(4);
  /**
   * The second value of the last polar pair: 0 none, 1 ready in `spare`, 2 not yet computed (the pair
   * was drawn by skipNormal, whose `pairS` and `pairV` it comes from). A flag beside a plain number
   * keeps the field a double: `number | undefined` made V8 box it on every draw.
   */
  private spareState = 0;
  private spare = 0;
  private pairU = 0;
  private pairS = 0;
  private pairV = 0;

  constructor(seed: number, stream = 0) {
    let s = (seed ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    for (let i = 0; i < 4; i++) this.s[i] = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /**
   * The stream called `name` of `seed`, for generators that key their streams by name (one per symbol,
   * per document ...) rather than by number. A text seed (a dataset or company key) is hashed first.
   */
  static named(seed: number | string, name: string): Rng {
    return new Rng(typeof seed === 'number' ? seed : hash32(seed), hash32(name));
  }

  /** Derives an independent stream, e.g. one per stock. */
  fork(stream: number): Rng {
    return new Rng(this.u32(), stream);
  }

  u32(): number {
    const s = this.s;
    const a = s[0]!;
    const b = s[1]!;
    const c = s[2]!;
    const d = s[3]!;
    // sfc32, all arithmetic modulo 2^32.
    const t = (a + b + d) | 0;
    s[3] = d + 1;
    s[0] = b ^ (b >>> 9);
    s[1] = c + (c << 3);
    s[2] = ((c << 21) | (c >>> 11)) + t;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Marsaglia polar method). */
  normal(): number {
    if (this.spareState === 1) {
      this.spareState = 0;
      return this.spare;
    }
    if (this.spareState === 2) {
      this.spareState = 0;
      return this.pairV * Math.sqrt((-2 * Math.log(this.pairS)) / this.pairS);
    }
    this.drawPair();
    const m = Math.sqrt((-2 * Math.log(this.pairS)) / this.pairS);
    this.spare = this.pairV * m;
    this.spareState = 1;
    return this.pairU * m;
  }

  /**
   * Draws a standard normal and throws it away: the stream moves on exactly as after normal(), without
   * the logarithm and square root a value costs (the price model's first pass needs one draw in six).
   */
  skipNormal(): void {
    if (this.spareState !== 0) {
      this.spareState = 0;
      return;
    }
    this.drawPair();
    this.spareState = 2;
  }

  /** The polar method's pair: two uniforms in the unit disc (not its centre), and their squared radius. */
  private drawPair(): void {
    let u: number;
    let v: number;
    let s: number;
    do {
      u = this.next() * 2 - 1;
      v = this.next() * 2 - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    this.pairU = u;
    this.pairV = v;
    this.pairS = s;
  }

  /** Picks an index with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }
}

/** FNV-1a hash of a text to 32 bits. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
