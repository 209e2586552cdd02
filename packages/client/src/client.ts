import { type ErrorCode, MdpError } from './errors.ts';
import type { operations } from './generated/openapi.ts';
import { OPERATIONS, type OperationId } from './generated/operations.ts';
import { Pacer } from './pacer.ts';
import { type RateLimitState, readRateLimit } from './rate-limit.ts';
import { isRetryable, type RetryOptions, RetrySchedule } from './retry.ts';

type Parameters_<K extends OperationId> = operations[K]['parameters'];
type PathOf<K extends OperationId> = Parameters_<K> extends { path: infer P } ? P : never;
type QueryOf<K extends OperationId> = Parameters_<K> extends { query?: infer Q } ? Q : never;
type OrEmpty<T> = [T] extends [never] ? {} : [T] extends [undefined] ? {} : NonNullable<T>;

/** A route's path and query parameters as one object (lists as arrays). */
export type Params<K extends OperationId> = OrEmpty<PathOf<K>> & OrEmpty<QueryOf<K>>;

type Body<K extends OperationId> = operations[K]['responses'][200]['content']['application/json'];

/** `data` of a route's 200, as the OpenAPI document types it. */
export type Data<K extends OperationId> = Body<K> extends { data: infer D } ? D : Body<K>;

export interface Meta {
  as_of: string;
  route: string;
  [key: string]: unknown;
}

export interface Result<K extends OperationId> {
  data: Data<K>;
  meta: Meta;
  /** The rate-limit headers of this response (metered routes). */
  rateLimit: RateLimitState | null;
  requestId: string | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Per attempt (default: the client's). */
  timeoutMs?: number;
  retry?: RetryOptions;
}

export interface ClientOptions {
  /** Default `http://localhost:8080`. */
  baseUrl?: string;
  /** The personal API token (sent as `Authorization: Bearer`). */
  token: string;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /**
   * Keep under the burst cap on this side (wait instead of collecting 429s): true for the cap the API
   * reports (60 until it has said), or a number of metered calls per minute.
   */
  pace?: boolean | number;
  fetch?: typeof fetch;
  /** Observes every attempt: for logs and tests. */
  onAttempt?: (attempt: {
    operationId: OperationId;
    attempt: number;
    status: number;
    code?: ErrorCode;
  }) => void;
}

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
type Args<K extends OperationId> =
  RequiredKeys<Params<K>> extends never
    ? [params?: Params<K>, options?: CallOptions]
    : [params: Params<K>, options?: CallOptions];

/** One method per route, named by its operation id. */
export type RouteMethods = {
  [K in Exclude<OperationId, 'getOpenApi'>]: (...args: Args<K>) => Promise<Result<K>>;
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

function asQueryValue(value: unknown): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * The API client: a method per route (`client.getStockQuote({ symbol })`), typed from the OpenAPI
 * document, with SPEC 7's retry rules, timeouts and abort signals on every call, and the rate-limit
 * state of the last response in `rateLimit`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the route methods the interface declares are assigned in the constructor, one per generated operation.
export class MdpClient {
  /** The rate-limit state of the last metered response (null until one arrived). */
  rateLimit: RateLimitState | null = null;
  private readonly baseUrl: string;
  private readonly pacer: Pacer | null;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: ClientOptions) {
    if (!options.token) throw new TypeError('an API token is required');
    this.baseUrl = (options.baseUrl ?? 'http://localhost:8080').replace(/\/$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
      // Answers over 1 KB come compressed, and fetch decodes them. Node's fetch asks for brotli only over
      // https; a browser's fetch ignores this header (it is the browser's to set) and asks for its own.
      'accept-encoding': 'br, gzip',
    };
    this.pacer =
      options.pace === undefined || options.pace === false
        ? null
        : new Pacer(typeof options.pace === 'number' ? options.pace : 60);
    for (const id of Object.keys(OPERATIONS) as OperationId[]) {
      if (id === 'getOpenApi') continue;
      (this as unknown as Record<string, unknown>)[id] = (
        params?: Record<string, unknown>,
        opts?: CallOptions,
      ) => this.call(id, (params ?? {}) as never, opts);
    }
  }

  /** The URL of a call: path parameters in the path, the rest in the query string. */
  url<K extends OperationId>(operationId: K, params: Params<K>): string {
    const op = OPERATIONS[operationId];
    const values = params as Record<string, unknown>;
    let path: string = op.path;
    for (const name of op.path_params) {
      const value = values[name];
      if (value === undefined) throw new TypeError(`${operationId}: missing path parameter ${name}`);
      path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    }
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined || (op.path_params as readonly string[]).includes(name)) continue;
      query.set(name, asQueryValue(value));
    }
    const qs = query.toString().replace(/%2C/g, ',');
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Calls a route by operation id (what every route method does). */
  async call<K extends OperationId>(
    operationId: K,
    params: Params<K>,
    callOptions: CallOptions = {},
  ): Promise<Result<K>> {
    const url = this.url(operationId, params);
    const retry = { ...this.options.retry, ...callOptions.retry };
    const maxAttempts = Math.max(1, retry.maxAttempts ?? 4);
    const maxElapsedMs = retry.maxElapsedMs ?? 30_000;
    const schedule = new RetrySchedule(retry);
    const started = Date.now();
    let toolErrors = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.pacer && OPERATIONS[operationId].units > 0) await this.pacer.take(callOptions.signal);
      let err: MdpError;
      try {
        return await this.attempt(operationId, url, attempt, callOptions);
      } catch (e) {
        if (!(e instanceof MdpError)) throw e;
        err = e;
      }
      const delay = isRetryable(err, toolErrors) ? schedule.nextDelayMs(err) : null;
      if (err.code === 'tool_error') toolErrors++;
      if (delay === null || attempt >= maxAttempts || Date.now() - started + delay > maxElapsedMs) throw err;
      await sleep(delay, callOptions.signal);
    }
  }

  private async attempt<K extends OperationId>(
    operationId: K,
    url: string,
    attempt: number,
    callOptions: CallOptions,
  ): Promise<Result<K>> {
    const timeoutMs = callOptions.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(url, { headers: this.headers, signal });
      text = await res.text();
    } catch (cause) {
      // The caller's own abort is not an error of the API: it propagates as it came.
      if (callOptions.signal?.aborted) throw callOptions.signal.reason;
      const timedOut = timeout.aborted;
      const err = timedOut
        ? new MdpError(0, 'timeout', `no answer within ${timeoutMs} ms`, {}, null, null, null, { cause })
        : new MdpError(
            0,
            'network_error',
            `the API could not be reached: ${(cause as Error).message}`,
            {},
            null,
            null,
            null,
            { cause },
          );
      this.options.onAttempt?.({ operationId, attempt, status: 0, code: err.code });
      throw err;
    }
    const requestId = res.headers.get('request-id');
    const rateLimit = readRateLimit(res.headers);
    if (rateLimit) {
      this.rateLimit = rateLimit;
      if (rateLimit.burstPerMinute !== null && this.options.pace === true)
        this.pacer?.adjust(rateLimit.burstPerMinute);
    }
    let body: {
      data?: unknown;
      meta?: Meta;
      error?: { code: ErrorCode; message: string; details?: Record<string, unknown> };
    };
    try {
      body = JSON.parse(text);
    } catch {
      body = {};
    }
    if (res.status === 200 && body.meta) {
      this.options.onAttempt?.({ operationId, attempt, status: 200 });
      return { data: body.data as Data<K>, meta: body.meta, rateLimit, requestId };
    }
    const retryAfter = res.headers.get('retry-after');
    const code: ErrorCode = body.error?.code ?? (res.status >= 500 ? 'internal_error' : 'invalid_request');
    this.options.onAttempt?.({ operationId, attempt, status: res.status, code });
    throw new MdpError(
      res.status,
      code,
      body.error?.message ?? `HTTP ${res.status}`,
      body.error?.details ?? {},
      retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null,
      requestId,
      code === 'quota_exhausted' ? (rateLimit?.reset ?? null) : null,
    );
  }
}

export interface MdpClient extends RouteMethods {}
