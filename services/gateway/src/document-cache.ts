import { CellCounter, type CounterCell, type Registry } from '@mdp/telemetry';
import { LRUCache } from 'lru-cache';
import { TTL_RESOLUTION_MS } from './cache-clock.ts';
import type { UpstreamName } from './catalogue/index.ts';
import type { AnswerDocument } from './envelope.ts';

/**
 * JSON with sorted keys, so equal parameters make equal cache keys whatever their order. Built in one
 * pass per value (it runs for every request of a cacheable route): no entry, filter or map arrays.
 */
function canonical(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // As `Array.prototype.join` has it: an item with no JSON (undefined) is empty.
      out += canonical(value[i]) ?? '';
    }
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // Keys are distinct: the default order (UTF-16 code units) is `a < b`'s.
    if (keys.length > 1) keys.sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const item = record[key];
      if (item === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${canonical(item)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

interface Entry {
  upstream: UpstreamName;
  doc: AnswerDocument;
}

/**
 * Documents of the data services, kept at the gateway so a repeated question costs no gRPC call. The
 * data is end-of-day: it changes when a service imports, and that service then announces
 * `data.changed.<service>`, which drops its entries here; the TTL bounds staleness should an
 * announcement be missed. Only successful answers are kept; concurrent misses share one call.
 */
export class DocumentCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly loading = new Map<string, Promise<AnswerDocument>>();
  private readonly hits: CounterCell;
  private readonly shared: CounterCell;
  private readonly misses: CounterCell;

  constructor(opts: { maxBytes: number; ttlMs: number; registry: Registry }) {
    this.entries = new LRUCache({
      maxSize: opts.maxBytes,
      // A small document's characters counted as bytes (most are ASCII), a large one's bytes.
      sizeCalculation: ({ doc: { sent, text } }) =>
        (text ? text.data.length + text.metaMembers.length : sent.data_json.length + sent.meta_json.length) +
        64,
      ttl: opts.ttlMs,
      ttlResolution: TTL_RESOLUTION_MS,
    });
    const lookups = new CellCounter({
      name: 'gateway_data_cache_lookups_total',
      help: 'Data documents asked of the gateway cache: hit, miss (called the service), shared (joined a call in flight)',
      labelNames: ['result'] as const,
      registers: [opts.registry],
    });
    this.hits = lookups.cell('hit');
    this.shared = lookups.cell('shared');
    this.misses = lookups.cell('miss');
  }

  key(operationId: string, params: unknown, query: unknown): string {
    return `${operationId}\u0000${canonical(params)}\u0000${canonical(query)}`;
  }

  /** The document kept under `key`, counted as a hit; undefined (nothing counted) when none is. */
  hit(key: string): AnswerDocument | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.hits.inc();
    return entry.doc;
  }

  /**
   * After a miss (`hit`): the document from `load`, kept when it comes, or from the load of the same
   * key already in flight. A hit is answered without this, so that most requests make no promise here.
   */
  load(key: string, upstream: UpstreamName, load: () => Promise<AnswerDocument>): Promise<AnswerDocument> {
    const inFlight = this.loading.get(key);
    if (inFlight) {
      this.shared.inc();
      return inFlight;
    }
    this.misses.inc();
    const promise = load()
      .then((doc) => {
        this.entries.set(key, { upstream, doc });
        return doc;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  /** A service imported new data: forget what it said before. */
  dropUpstream(upstream: UpstreamName): void {
    for (const [key, entry] of this.entries.entries())
      if (entry.upstream === upstream) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
