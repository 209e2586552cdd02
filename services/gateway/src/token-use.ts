import type { AsyncClient } from '@mdp/grpc';
import type { auth } from '@mdp/proto';
import type { Logger } from '@mdp/telemetry';
import { MAX_TOKEN_USES_PER_CALL as MAX_REPORT } from '@mdp/tokens';

/**
 * "Last used" for the tokens page without a write per request: the gateway remembers the latest moment
 * each token was presented and reports them to the auth service every few seconds, in calls of at most
 * `MAX_TOKEN_USES_PER_CALL`. A failed report is kept and merged into the next, so a slow or absent auth
 * service loses nothing but freshness.
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

  /**
   * Reports the uses pending now, in calls of at most `MAX_REPORT`; a call that fails puts its uses back
   * and ends the flush (the next one retries them). Uses seen while it runs wait for the next.
   */
  async flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return this.flushing;
    this.flushing = this.report(this.pending.size).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async report(count: number): Promise<void> {
    for (let left = count; left > 0 && this.pending.size > 0; ) {
      const batch = this.take(Math.min(left, MAX_REPORT));
      left -= batch.length;
      try {
        await this.client.recordTokenUse({
          uses: batch.map(([token_id, used_at_ms]) => ({ token_id, used_at_ms })),
        });
      } catch (err) {
        for (const [id, at] of batch) this.seen(id, at);
        this.logger.warn(
          { err: (err as Error).message, tokens: batch.length },
          'token use not reported; retrying',
        );
        return;
      }
    }
  }

  /** The first `n` pending uses (in the order their tokens were first noted), no longer pending. */
  private take(n: number): [string, number][] {
    const batch: [string, number][] = [];
    for (const use of this.pending) {
      if (batch.length === n) break;
      batch.push(use);
    }
    for (const [id] of batch) this.pending.delete(id);
    return batch;
  }

  /** Stops the timer and reports every use still pending, those seen during a flush under way too. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }
}
