import { Counter, type CounterConfiguration, Histogram, type HistogramConfiguration } from 'prom-client';

/** A label's value as a hot path has it (a status code as a number: made a string once, for the series). */
export type LabelValue = string | number;

export interface CounterCell {
  inc(by?: number): void;
}

export interface HistogramCell {
  observe(value: number): void;
}

/** prom-client's series records, as its `get()` reads them from the metric's `hashMap`. */
interface CounterSeries {
  labels: Record<string, string>;
  value: number;
}
interface HistogramSeries {
  labels: Record<string, string>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
  /** Observations by bucket, in the order of the bounds: each in the first it fits, as in `bucketValues`. */
  counts: number[];
}

/**
 * The cells of one metric by label values: one Map a label, so finding a cell allocates nothing and
 * hashes no string (prom-client sorts, joins and validates the label names and then looks the series up
 * by the joined string on every update: measured on the gateway, its five updates a request cost more
 * than the request's admission).
 */
class Cells<S, H> {
  private readonly root = new Map<LabelValue, unknown>();
  private readonly all: { key: string; series: S }[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly make: (labels: Record<string, string>) => { series: S; handle: H },
  ) {}

  /** The handle of the series of these label values (made on first use). */
  get(values: LabelValue[]): H {
    if (values.length !== this.labelNames.length)
      throw new Error(`expected ${this.labelNames.length} label values, got ${values.length}`);
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i]!;
      let next = level.get(value) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const leaf = values.length === 0 ? '' : values[last]!;
    let handle = level.get(leaf) as H | undefined;
    if (handle === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => {
        labels[name] = String(values[i]);
      });
      const made = this.make(labels);
      handle = made.handle;
      level.set(leaf, handle);
      // The series' key in the metric's map: any string unique to the label set serves.
      this.all.push({ key: `cell:${JSON.stringify(values.map(String))}`, series: made.series });
    }
    return handle;
  }

  /** Puts every cell's series among `metric`'s own (prom-client reads them from its `hashMap`). */
  attach(metric: object): void {
    const map = (metric as { hashMap: Record<string, S> }).hashMap;
    for (const c of this.all) map[c.key] = c.series;
  }

  each(fn: (series: S) => void): void {
    for (const c of this.all) fn(c.series);
  }
}

/**
 * A counter whose hot-path series are updated through cells (`cell(...labelValues)`, kept or looked up
 * again cheaply), exported with the rest of its series when scraped. `inc` works as on any counter, for
 * label sets that have no cell (one label set updated both ways would be two series).
 */
export class CellCounter<T extends string = string> extends Counter<T> {
  private readonly cells: Cells<CounterSeries, CounterCell>;

  constructor(config: Omit<CounterConfiguration<T>, 'collect'>) {
    super(config);
    this.cells = new Cells(config.labelNames ?? [], (labels) => {
      const series: CounterSeries = { labels, value: 0 };
      return {
        series,
        handle: {
          inc(by = 1) {
            series.value += by;
          },
        },
      };
    });
  }

  /** The series of these label values, in the order of `labelNames`. */
  cell(...values: LabelValue[]): CounterCell {
    return this.cells.get(values);
  }

  /** Called by prom-client before it reads the series. */
  collect(): void {
    this.cells.attach(this);
  }

  override reset(): void {
    super.reset();
    // (prom-client's constructor resets too, before the cells exist.)
    this.cells?.each((s) => {
      s.value = 0;
    });
  }
}

/**
 * A histogram whose hot-path series are observed through cells (`cell(...labelValues)`), exported with
 * the rest of its series when scraped. `observe` works as on any histogram, for label sets that have no
 * cell (one label set observed both ways would be two series).
 */
export class CellHistogram<T extends string = string> extends Histogram<T> {
  private readonly cells: Cells<HistogramSeries, HistogramCell>;
  private readonly bounds: number[];

  constructor(config: Omit<HistogramConfiguration<T>, 'collect' | 'enableExemplars'>) {
    super(config);
    const bounds = (this as unknown as { upperBounds: number[] }).upperBounds;
    this.bounds = bounds;
    this.cells = new Cells(config.labelNames ?? [], (labels) => {
      const bucketValues: Record<number, number> = {};
      for (const b of bounds) bucketValues[b] = 0;
      // Counted by the bound's position: a bound as a property key is a number made a string on every
      // observation (a megamorphic keyed access, about 100 ns); prom-client's own record is written from
      // these when it is read.
      const counts = new Array<number>(bounds.length).fill(0);
      const series: HistogramSeries = { labels, bucketValues, sum: 0, count: 0, counts };
      return {
        series,
        handle: {
          observe(value: number) {
            if (!Number.isFinite(value)) return;
            series.sum += value;
            series.count += 1;
            // Values above the last bound count only in +Inf (the count), as prom-client's own do.
            for (let i = 0; i < bounds.length; i++) {
              if (value <= bounds[i]!) {
                counts[i]! += 1;
                break;
              }
            }
          },
        },
      };
    });
  }

  /** The series of these label values, in the order of `labelNames`. */
  cell(...values: LabelValue[]): HistogramCell {
    return this.cells.get(values);
  }

  /** Called by prom-client before it reads the series. */
  collect(): void {
    const bounds = this.bounds;
    this.cells.each((s) => {
      for (let i = 0; i < bounds.length; i++) s.bucketValues[bounds[i]!] = s.counts[i]!;
    });
    this.cells.attach(this);
  }

  override reset(): void {
    super.reset();
    // (prom-client's constructor resets too, before the cells exist.)
    this.cells?.each((s) => {
      s.sum = 0;
      s.count = 0;
      s.counts.fill(0);
      for (const b of Object.keys(s.bucketValues)) s.bucketValues[Number(b)] = 0;
    });
  }
}
