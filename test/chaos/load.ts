// A bounded, paced, closed-loop HTTP load on one route: N clients, each sending its next request when
// the previous one has ended and its share of the target rate allows. Every response is kept as a
// sample (times, status, Retry-After, error code) so a fault's effect can be read off afterwards.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** How one request ended: an HTTP status, or no response at all. */
export type Outcome = number | 'connection_error' | 'timeout';

export interface Sample {
  client: number;
  /** performance.now() milliseconds. */
  start: number;
  end: number;
  outcome: Outcome;
  /** For connection errors, the socket error code (ECONNREFUSED, ECONNRESET…). */
  errno?: string;
  retryAfter?: string;
  /** `error.code` of a JSON error body. */
  code?: string;
  /** Sent with a token the gateway had never seen (see ClientLoad.useColdTokens). */
  cold: boolean;
  /** The gateway's id of the request (its `request-id` header), when an answer came. */
  requestId?: string;
}

export interface LoadOptions {
  baseUrl: string;
  path: string;
  clients: number;
  /** Target requests a second over all clients (pacing, not a promise). */
  ratePerSecond: number;
  /** Warm tokens, used round-robin. */
  tokens: string[];
  /** A request still unanswered after this long is aborted and counted as a timeout. */
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ClientLoad {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loops: Promise<void>[] = [];
  private readonly agent: Agent;
  private cold: string[] = [];
  private next = 0;
  private nextCold = 0;

  constructor(private readonly o: LoadOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: o.clients });
    const url = new URL(o.path, o.baseUrl);
    const intervalMs = (o.clients * 1000) / o.ratePerSecond;
    for (let client = 0; client < o.clients; client++) {
      this.loops.push(
        (async () => {
          // Spread the clients' first requests over one interval.
          await sleep((intervalMs * client) / o.clients);
          while (this.running) {
            const began = performance.now();
            this.samples.push(await this.one(client, url));
            const wait = intervalMs - (performance.now() - began);
            if (wait > 0) await sleep(wait);
          }
        })(),
      );
    }
  }

  /**
   * From now on the even-numbered clients send tokens the gateway has not verified yet, so a request
   * needs the auth service (and its Postgres); the odd ones keep their verified tokens.
   */
  useColdTokens(tokens: string[]): void {
    this.cold = tokens;
  }

  private token(client: number): { token: string; cold: boolean } {
    if (this.cold.length > 0 && client % 2 === 0) {
      return { token: this.cold[this.nextCold++ % this.cold.length]!, cold: true };
    }
    return { token: this.o.tokens[this.next++ % this.o.tokens.length]!, cold: false };
  }

  private one(client: number, url: URL): Promise<Sample> {
    const { token, cold } = this.token(client);
    const start = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (s: Omit<Sample, 'client' | 'start' | 'end' | 'cold'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ client, start, end: performance.now(), cold, ...s });
      };
      const req = request(
        url,
        { agent: this.agent, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          const status = res.statusCode ?? 0;
          const retryAfter = res.headers['retry-after'];
          const id = res.headers['request-id'];
          const requestId = typeof id === 'string' ? { requestId: id } : {};
          if (status === 200) {
            res.resume();
            res.once('end', () => finish({ outcome: 200, ...requestId }));
            res.once('error', (err) => finish({ outcome: 'connection_error', errno: errno(err) }));
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('error', (err) => finish({ outcome: 'connection_error', errno: errno(err) }));
          res.once('end', () => {
            let code: string | undefined;
            try {
              code = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.error?.code;
            } catch {
              code = undefined;
            }
            finish({
              outcome: status,
              ...requestId,
              ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}),
              ...(code !== undefined ? { code: String(code) } : {}),
            });
          });
        },
      );
      const timer = setTimeout(() => {
        finish({ outcome: 'timeout' });
        req.destroy();
      }, this.o.timeoutMs);
      req.once('error', (err) => finish({ outcome: 'connection_error', errno: errno(err) }));
      req.end();
    });
  }

  /** Stops sending and resolves once every request in flight has ended. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.agent.destroy();
  }
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}
