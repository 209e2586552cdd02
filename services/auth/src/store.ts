import { createHmac } from 'node:crypto';
import { type Pool, withTransaction } from '@mdp/db';
import { type AccountChanged, AUTH_EVENTS, type PlanChanged, type TokenRevoked } from '@mdp/nats';
import {
  DEV_TAG_KEYS,
  generateToken,
  parseTagKeys,
  type TagKeyring,
  TOKEN_PREFIX,
  tokenDisplayPrefix,
  tokenKeyId,
} from '@mdp/tokens';
import type pg from 'pg';
import type { TokenRecord } from './verify.ts';

/**
 * A refusal an administrator (or subscriber) can act on; its message is shown as is. `reason` lets the
 * gRPC handlers give it the right status.
 */
export class AdminError extends Error {
  override name = 'AdminError';
  constructor(
    message: string,
    readonly reason: 'not_found' | 'conflict' | 'invalid' = 'invalid',
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TokenListing {
  id: string;
  display_prefix: string;
  name: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  /** The tag key it was issued under, or `legacy` (issued before tags). */
  key: string;
}

/** A live token not under the current tag key: its owner should rotate it before its key is retired. */
export interface OutdatedToken {
  id: string;
  account_id: string;
  display_prefix: string;
  name: string;
  /** The tag key it was issued under; null: the legacy (CRC32) format. */
  tag_key_id: string | null;
  last_used_at: Date | null;
  expires_at: Date | null;
}

export interface Plan {
  id: string;
  daily_cap: number | null;
  monthly_cap: number | null;
  burst_per_minute: number | null;
}

const PLAN_ID = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Accounts, plans and tokens in the service's own schema. Tokens are looked up by an HMAC of the token
 * under a server-side secret, so a copy of the table is useless without the secret. Every change that
 * gateways must hear about writes its event to the outbox in the same transaction.
 */
export class AuthStore {
  /** Tags new tokens: only tokens made with it are worth a gateway's lookup. */
  readonly tagKeys: TagKeyring;

  constructor(
    readonly pool: Pool,
    private readonly hashSecret: string,
    private readonly outboxChannel: string,
    /** `TOKEN_TAG_KEYS`; the development keys when absent (tests, `make run`). */
    tagKeys: TagKeyring | string = DEV_TAG_KEYS,
  ) {
    this.tagKeys = typeof tagKeys === 'string' ? parseTagKeys(tagKeys) : tagKeys;
  }

  hash(token: string): Buffer {
    return createHmac('sha256', this.hashSecret).update(token).digest();
  }

  /** A keyed hash of another secret or key (a session token, an invite code), apart from token hashes. */
  keyedHash(purpose: string, value: string): Buffer {
    return createHmac('sha256', this.hashSecret).update(`${purpose}\0${value}`).digest();
  }

  async findByToken(token: string): Promise<TokenRecord | undefined> {
    const { rows } = await this.pool.query<TokenRecord>(
      `SELECT t.id AS token_id, t.account_id, a.plan_id AS plan, p.daily_cap, p.monthly_cap, p.burst_per_minute,
              t.expires_at, t.revoked_at, a.status AS account_status
         FROM tokens t JOIN accounts a ON a.id = t.account_id JOIN plans p ON p.id = a.plan_id
        WHERE t.token_hash = $1`,
      [this.hash(token)],
    );
    return rows[0];
  }

  async createAccount(plan: string, name = ''): Promise<string> {
    await this.requirePlan(plan);
    const { rows } = await this.pool.query<{ id: string }>(
      'INSERT INTO accounts (plan_id, name) VALUES ($1, $2) RETURNING id',
      [plan, name],
    );
    return rows[0]!.id;
  }

  /** Issues a token and returns it: the only time it exists outside its owner's hands. */
  async issueToken(
    accountId: string,
    opts: { name?: string; expiresAt?: Date; now?: number } = {},
  ): Promise<{ id: string; token: string; displayPrefix: string }> {
    await this.requireAccount(accountId);
    if (opts.expiresAt && opts.expiresAt.getTime() <= (opts.now ?? Date.now()))
      throw new AdminError('the expiry is in the past');
    const token = generateToken(this.tagKeys);
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO tokens (account_id, token_hash, display_prefix, name, expires_at, tag_key_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [
        accountId,
        this.hash(token),
        tokenDisplayPrefix(token),
        opts.name ?? '',
        opts.expiresAt ?? null,
        tokenKeyId(token)!,
      ],
    );
    return { id: rows[0]!.id, token, displayPrefix: tokenDisplayPrefix(token) };
  }

  /**
   * Stores a token issued before tags, as the platform did (tests of the migration path, and nothing
   * else: the admin tool has no command for it).
   */
  async storeLegacyToken(accountId: string, token: string): Promise<string> {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO tokens (account_id, token_hash, display_prefix, name) VALUES ($1, $2, $3, 'legacy') RETURNING id`,
      [accountId, this.hash(token), tokenDisplayPrefix(token)],
    );
    return rows[0]!.id;
  }

  /**
   * Replaces a token with a new one under the current tag key: same account, name and expiry. The old
   * one is revoked at once, or with `graceMs` expires that much later (never later than it would have),
   * so its owner can switch without a gap. Returns the new token (shown once).
   */
  async rotateToken(
    idOrToken: string,
    opts: { graceMs?: number; now?: number } = {},
  ): Promise<{ id: string; token: string; replaced: string; oldEndsAt: Date }> {
    const oldId = idOrToken.startsWith(TOKEN_PREFIX)
      ? (await this.findByToken(idOrToken))?.token_id
      : idOrToken;
    if (!oldId || !UUID.test(oldId)) throw new AdminError('no such token', 'not_found');
    const now = opts.now ?? Date.now();
    const token = generateToken(this.tagKeys);
    return this.transaction(async (c) => {
      const { rows } = await c.query<{
        account_id: string;
        name: string;
        expires_at: Date | null;
        revoked_at: Date | null;
      }>('SELECT account_id, name, expires_at, revoked_at FROM tokens WHERE id = $1 FOR UPDATE', [oldId]);
      const old = rows[0];
      if (!old) throw new AdminError('no such token', 'not_found');
      if (old.revoked_at)
        throw new AdminError(`token ${oldId} is revoked; issue a new one instead`, 'conflict');
      if (old.expires_at && old.expires_at.getTime() <= now)
        throw new AdminError(`token ${oldId} has expired; issue a new one instead`, 'conflict');
      const inserted = await c.query<{ id: string }>(
        `INSERT INTO tokens (account_id, token_hash, display_prefix, name, expires_at, tag_key_id)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [
          old.account_id,
          this.hash(token),
          tokenDisplayPrefix(token),
          old.name,
          old.expires_at,
          tokenKeyId(token)!,
        ],
      );
      let oldEndsAt: Date;
      if (opts.graceMs && opts.graceMs > 0) {
        const end = now + opts.graceMs;
        oldEndsAt = new Date(old.expires_at ? Math.min(old.expires_at.getTime(), end) : end);
        // Gateways check expiry on every use, cached or not: no event is needed for it to take effect.
        await c.query('UPDATE tokens SET expires_at = $2 WHERE id = $1', [oldId, oldEndsAt]);
      } else {
        oldEndsAt = new Date(now);
        await c.query('UPDATE tokens SET revoked_at = now() WHERE id = $1', [oldId]);
        await this.emit<TokenRevoked>(c, AUTH_EVENTS.tokenRevoked, {
          token_id: oldId,
          account_id: old.account_id,
        });
      }
      return { id: inserted.rows[0]!.id, token, replaced: oldId, oldEndsAt };
    });
  }

  /**
   * Live tokens (not revoked, not expired) not under the issuing tag key: the legacy format, and with
   * `keyId` only those under that key (`legacy` for the legacy format). Most recently used first.
   */
  async outdatedTokens(opts: { keyId?: string } = {}): Promise<OutdatedToken[]> {
    const { rows } = await this.pool.query<OutdatedToken>(
      `SELECT id, account_id, display_prefix, name, tag_key_id, last_used_at, expires_at
         FROM tokens
        WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
          AND tag_key_id IS DISTINCT FROM $1
          AND ($2::text IS NULL OR ($2 = 'legacy' AND tag_key_id IS NULL) OR tag_key_id = $2)
        ORDER BY last_used_at DESC NULLS LAST, created_at, id`,
      [this.tagKeys.issuing, opts.keyId ?? null],
    );
    return rows;
  }

  async listTokens(accountId: string, opts: { newestFirst?: boolean } = {}): Promise<TokenListing[]> {
    await this.requireAccount(accountId);
    const order = opts.newestFirst ? 'created_at DESC, id DESC' : 'created_at, id';
    const { rows } = await this.pool.query<TokenListing>(
      `SELECT id, display_prefix, name, created_at, expires_at, revoked_at, last_used_at,
              coalesce(tag_key_id, 'legacy') AS key
         FROM tokens WHERE account_id = $1 ORDER BY ${order}`,
      [accountId],
    );
    return rows;
  }

  /**
   * Revokes by token id, or by the token itself (for whoever holds a leaked one but not its id). With
   * `accountId`, only a token of that account: another account's token is "no such token", as if it did
   * not exist.
   */
  async revokeToken(idOrToken: string, opts: { accountId?: string } = {}): Promise<void> {
    const tokenId = idOrToken.startsWith(TOKEN_PREFIX)
      ? (await this.findByToken(idOrToken))?.token_id
      : idOrToken;
    if (!tokenId || !UUID.test(tokenId)) throw new AdminError('no such token', 'not_found');
    await this.transaction(async (c) => {
      const { rows } = await c.query<{ account_id: string; revoked_at: Date | null }>(
        'SELECT account_id, revoked_at FROM tokens WHERE id = $1 FOR UPDATE',
        [tokenId],
      );
      const row = rows[0];
      if (!row || (opts.accountId !== undefined && row.account_id !== opts.accountId))
        throw new AdminError('no such token', 'not_found');
      if (row.revoked_at)
        throw new AdminError(
          `token ${tokenId} was already revoked at ${row.revoked_at.toISOString()}`,
          'conflict',
        );
      await c.query('UPDATE tokens SET revoked_at = now() WHERE id = $1', [tokenId]);
      await this.emit<TokenRevoked>(c, AUTH_EVENTS.tokenRevoked, {
        token_id: tokenId,
        account_id: row.account_id,
      });
    });
  }

  async setPlan(accountId: string, plan: string): Promise<void> {
    await this.requirePlan(plan);
    await this.transaction(async (c) => {
      const { rowCount } = await c.query(
        'UPDATE accounts SET plan_id = $2, updated_at = now() WHERE id = $1',
        [accountId, plan],
      );
      if (rowCount === 0) throw new AdminError(`no account with id ${accountId}`, 'not_found');
      await this.emit<AccountChanged>(c, AUTH_EVENTS.accountChanged, {
        account_id: accountId,
        change: 'plan_changed',
      });
    });
  }

  async setSuspended(accountId: string, suspended: boolean): Promise<void> {
    await this.requireAccount(accountId);
    await this.transaction(async (c) => {
      const status = suspended ? 'suspended' : 'active';
      const { rowCount } = await c.query(
        'UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1 AND status <> $2',
        [accountId, status],
      );
      if (rowCount === 0) throw new AdminError(`account ${accountId} is already ${status}`);
      await this.emit<AccountChanged>(c, AUTH_EVENTS.accountChanged, {
        account_id: accountId,
        change: suspended ? 'suspended' : 'reactivated',
      });
    });
  }

  async listPlans(): Promise<Plan[]> {
    return (
      await this.pool.query<Plan>(
        'SELECT id, daily_cap, monthly_cap, burst_per_minute FROM plans ORDER BY id',
      )
    ).rows;
  }

  async createPlan(
    plan: string,
    caps: { daily: number | null; monthly: number | null; burst: number | null },
  ): Promise<void> {
    if (!PLAN_ID.test(plan))
      throw new AdminError(`a plan id is 1-32 of a-z, 0-9, _ and -, starting with a letter: "${plan}"`);
    const { rowCount } = await this.pool.query(
      `INSERT INTO plans (id, daily_cap, monthly_cap, burst_per_minute) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO NOTHING`,
      [plan, caps.daily, caps.monthly, caps.burst],
    );
    if (rowCount === 0) throw new AdminError(`plan "${plan}" already exists; use plan set-caps`);
  }

  async setPlanCaps(
    plan: string,
    /** `burst` undefined keeps the plan's burst cap; null removes it. */
    caps: { daily: number | null; monthly: number | null; burst?: number | null },
  ): Promise<void> {
    await this.requirePlan(plan);
    await this.transaction(async (c) => {
      await c.query(
        `UPDATE plans SET daily_cap = $2, monthly_cap = $3,
                burst_per_minute = CASE WHEN $5 THEN $4 ELSE burst_per_minute END, updated_at = now()
          WHERE id = $1`,
        [plan, caps.daily, caps.monthly, caps.burst ?? null, caps.burst !== undefined],
      );
      await this.emit<PlanChanged>(c, AUTH_EVENTS.planChanged, { plan });
    });
  }

  private async requirePlan(plan: string): Promise<void> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM plans WHERE id = $1', [plan]);
    if (rowCount === 0) {
      const known = (await this.listPlans()).map((p) => p.id).join(', ');
      throw new AdminError(`unknown plan "${plan}"; plans are: ${known}`);
    }
  }

  async requireAccount(accountId: string): Promise<void> {
    const exists =
      UUID.test(accountId) &&
      (await this.pool.query('SELECT 1 FROM accounts WHERE id = $1', [accountId])).rowCount === 1;
    if (!exists) throw new AdminError(`no account with id ${accountId}`, 'not_found');
  }

  private async emit<T>(c: pg.PoolClient, subject: string, payload: T): Promise<void> {
    await c.query('INSERT INTO outbox (subject, payload) VALUES ($1, $2)', [
      subject,
      JSON.stringify(payload),
    ]);
    // Delivered at commit, so the relay wakes only for events that exist.
    await c.query('SELECT pg_notify($1, $2)', [this.outboxChannel, subject]);
  }

  /** Runs `fn` in one transaction on one connection; rolled back when it throws. */
  transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, fn);
  }
}

/** The LISTEN/NOTIFY channel of a schema's outbox (channels are per database, schemas share it). */
export function outboxChannel(schema: string): string {
  return `outbox_${schema}`;
}
