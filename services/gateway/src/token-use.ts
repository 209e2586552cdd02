import type { AsyncClient } from '@mdp/grpc';
import type { auth } from '@mdp/proto';
import type { Logger } from '@mdp/telemetry';

/** Most uses sent in one report; the auth service refuses larger batches. */
const MAX_REPORT = 10_000;

/**
 * "Last used" for the tokens page without a write per request: the gateway remembers the latest moment
 * each token was presented and reports them to the auth service every few seconds in one call. A failed
 * report is kept and merged into the next, so a slow or absent auth service loses nothing but freshness.
 */
export class TokenUseReporter {
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly client: AsyncClient<typeof auth.AuthServiceService>,
    private readonly logger: Logger,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  seen(tokenId: string, atMs: number): void {
    if ((this.pending.get(tokenId) ?? 0) < atMs) this.pending.set(tokenId, atMs);
  }

  async flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return this.flushing;
    const batch = [...this.pending].slice(0, MAX_REPORT);
    for (const [id] of batch) this.pending.delete(id);
    this.flushing = this.client
      .recordTokenUse({ uses: batch.map(([token_id, used_at_ms]) => ({ token_id, used_at_ms })) })
      .then(
        () => {},
        (err: Error) => {
          for (const [id, at] of batch) this.seen(id, at);
          this.logger.warn({ err: err.message, tokens: batch.length }, 'token use not reported; retrying');
        },
      )
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
