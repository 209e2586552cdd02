import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '@mdp/nse-calendar';
import { MAX_TOKEN_USES_PER_CALL } from '@mdp/tokens';
import { type Algorithm, hash, verify } from '@node-rs/argon2';
import type pg from 'pg';
import {
  addressKey,
  checkEmail,
  checkNewPassword,
  checkTokenExpiry,
  checkTokenName,
  INVITE_LIFETIME_MS,
  isSecretShaped,
  normaliseEmail,
  normalisePassword,
  RATE_LIMITS,
  type RateLimit,
  retryAfterSeconds,
  SESSION_LIFETIME_MS,
} from './account-rules.ts';
import { AdminError, type AuthStore, type TokenListing } from './store.ts';

/** OWASP's argon2id settings (19 MiB, 2 passes, 1 lane): about 50 ms a hash on our machines. */
const PASSWORD_HASH_OPTIONS = {
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;
/** Hashes a password with today's settings: the one way a password becomes a stored hash. */
export const hashPassword = (password: string): Promise<string> => hash(password, PASSWORD_HASH_OPTIONS);

/** The PHC prefix of a hash made with today's settings; an older one is rehashed at the next sign-in. */
const CURRENT_HASH_PREFIX = '$argon2id$v=19$m=19456,t=2,p=1$';

/** Plan of every account made by signing up. */
const SIGN_UP_PLAN = 'free';

/** A field of a request that is not acceptable, with what is wrong in words. */
export class InvalidInput extends AdminError {
  override name = 'InvalidInput';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message, 'invalid');
  }
}

export interface SessionGrant {
  /** The cookie value: handed out once, stored only as a keyed hash. */
  token: string;
  accountId: string;
  expiresAtMs: number;
}

export type SignInResult =
  | { outcome: 'ok'; session: SessionGrant }
  | { outcome: 'wrong_credentials' }
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  | { outcome: 'invalid_input'; field: 'email' | 'password'; message: string }
  | { outcome: 'email_taken' }
  | { outcome: 'invite_invalid' }
  | { outcome: 'suspended' };

/**
 * What a sign-up comes to. `accepted` whether the address was new (`created`: the account is made) or
 * had an account already (nothing changes): the caller must answer both alike, and neither signs in.
 */
export type SignUpResult =
  | { outcome: 'accepted'; created: boolean }
  | { outcome: 'rate_limited'; retryAfterSeconds: number }
  | { outcome: 'invalid_input'; field: 'email' | 'password'; message: string };

export interface SessionInfo {
  sessionId: string;
  accountId: string;
  email: string;
  plan: string;
  dailyCap: number | null;
  monthlyCap: number | null;
  burstPerMinute: number | null;
}

export interface TokenUse {
  tokenId: string;
  usedAtMs: number;
}

type Queryable = pg.Pool | pg.PoolClient;
type Taken = { ok: true; windowStart: Date } | { ok: false; retryAfterSeconds: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNIQUE_VIOLATION = '23505';
const isEmailTaken = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === UNIQUE_VIOLATION &&
  (err as { constraint?: string }).constraint === 'credentials_email_key';

/** 32 random bytes, base64url: a session token or an invite code. */
const newSecret = () => randomBytes(32).toString('base64url');

async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * The account web site's side of the auth schema: sign-in credentials, sessions, invites, the rate limits
 * of signing in, and a subscriber's own tokens. Tokens are issued and revoked through `AuthStore`, so a
 * revocation here reaches the gateways through the same outbox event. Secrets handed out (session
 * tokens, invite codes) are stored only as keyed hashes; passwords only as argon2id hashes. Times come
 * from the injected clock, so expiries and rate windows are testable.
 */
export class AccountStore {
  private readonly pool: pg.Pool;
  private readonly clock: Clock;
  private readonly hashPassword: typeof hashPassword;
  /** A hash of a password nobody knows, to check against when the e-mail address is unknown. */
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly tokens: AuthStore,
    opts: { clock?: Clock; hashPassword?: typeof hashPassword } = {},
  ) {
    this.pool = tokens.pool;
    this.clock = opts.clock ?? systemClock;
    this.hashPassword = opts.hashPassword ?? hashPassword;
    this.dummyHash = this.hashPassword(newSecret());
    // Awaited at each unknown-address sign-in; a failure then fails that call, not the process.
    this.dummyHash.catch(() => {});
  }

  /**
   * Creates an account on the free plan with these credentials, unless the address has one; signs
   * nothing in. A new address and a taken one go the same way, so that neither the answer nor its time
   * tells them apart: the password is hashed and both rows are written, and the unique index on the
   * address refuses the second of a taken one, which rolls the account back.
   */
  async signUp(req: { email: string; password: string; clientAddress: string }): Promise<SignUpResult> {
    const email = checkEmail(req.email);
    if (!email.ok) return { outcome: 'invalid_input', field: 'email', message: email.message };
    const password = checkNewPassword(req.password);
    if (!password.ok) return { outcome: 'invalid_input', field: 'password', message: password.message };
    const now = this.clock();
    const taken = await this.take(RATE_LIMITS.signUpAddress, addressKey(req.clientAddress), now);
    if (!taken.ok) return { outcome: 'rate_limited', retryAfterSeconds: taken.retryAfterSeconds };
    const passwordHash = await this.hashPassword(password.value);
    try {
      await this.tokens.transaction(async (c) => {
        const { rows } = await c.query<{ id: string }>(
          'INSERT INTO accounts (plan_id, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id',
          [SIGN_UP_PLAN, new Date(now)],
        );
        await c.query(
          `INSERT INTO credentials (account_id, email, password_hash, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $4)`,
          [rows[0]!.id, email.value, passwordHash, new Date(now)],
        );
      });
    } catch (err) {
      if (isEmailTaken(err)) return { outcome: 'accepted', created: false };
      throw err;
    }
    return { outcome: 'accepted', created: true };
  }

  /**
   * Signs in with an e-mail address and password. An unknown address and a wrong password are the same
   * outcome and take the same time (the password is checked against a dummy hash). Failures count
   * against the client address and the e-mail address; past either limit every attempt is refused,
   * right password or not, until that window ends.
   */
  async signIn(req: { email: string; password: string; clientAddress: string }): Promise<SignInResult> {
    const email = checkEmail(req.email);
    if (!email.ok) return { outcome: 'invalid_input', field: 'email', message: email.message };
    if (req.password === '')
      return { outcome: 'invalid_input', field: 'password', message: 'Enter your password.' };
    const now = this.clock();
    const limited = await this.takeSignInAttempt(req.clientAddress, email.value, now);
    if (!limited.ok) return { outcome: 'rate_limited', retryAfterSeconds: limited.retryAfterSeconds };

    const found = await this.credentialsOf(email.value);
    const password = normalisePassword(req.password);
    const matches = await verifyPassword(found?.password_hash ?? (await this.dummyHash), password);
    if (!found || !matches) return { outcome: 'wrong_credentials' };

    // Not a failure after all; and the account's owner has shown they know the password.
    await limited.undo();
    if (found.status !== 'active') return { outcome: 'suspended' };
    if (!found.password_hash.startsWith(CURRENT_HASH_PREFIX)) {
      await this.pool.query('UPDATE credentials SET password_hash = $2 WHERE account_id = $1', [
        found.account_id,
        await this.hashPassword(password),
      ]);
    }
    return { outcome: 'ok', session: await this.startSession(this.pool, found.account_id, now) };
  }

  /**
   * Sets the password of an invited account (and the invited e-mail address as its sign-in) and signs
   * it in. The code is single use and expires; an unknown, used or expired code counts as a failed
   * sign-in of the client address.
   */
  async acceptInvite(req: { code: string; password: string; clientAddress: string }): Promise<SignInResult> {
    const password = checkNewPassword(req.password);
    if (!password.ok) return { outcome: 'invalid_input', field: 'password', message: password.message };
    const now = this.clock();
    const address = addressKey(req.clientAddress);
    const taken = await this.take(RATE_LIMITS.signInAddress, address, now);
    if (!taken.ok) return { outcome: 'rate_limited', retryAfterSeconds: taken.retryAfterSeconds };

    const codeHash = this.tokens.keyedHash('invite', req.code);
    const open = async (q: Queryable, lock: boolean) =>
      (
        await q.query<{ id: string; account_id: string; email: string; status: string }>(
          `SELECT i.id, i.account_id, i.email, a.status
             FROM invites i JOIN accounts a ON a.id = i.account_id
            WHERE i.code_hash = $1 AND i.used_at IS NULL AND i.expires_at > $2
            ${lock ? 'FOR UPDATE OF i' : ''}`,
          [codeHash, new Date(now)],
        )
      ).rows[0];
    const invite = isSecretShaped(req.code) ? await open(this.pool, false) : undefined;
    if (!invite) return { outcome: 'invite_invalid' };
    await this.giveBack(RATE_LIMITS.signInAddress, address, taken.windowStart);
    if (invite.status !== 'active') return { outcome: 'suspended' };

    const passwordHash = await this.hashPassword(password.value);
    try {
      return await this.tokens.transaction(async (c): Promise<SignInResult> => {
        // Locked and read again: of two acceptances of one code, exactly one signs in.
        const still = await open(c, true);
        if (!still) return { outcome: 'invite_invalid' };
        await c.query('UPDATE invites SET used_at = $2 WHERE id = $1', [still.id, new Date(now)]);
        await this.writeCredentials(c, still.account_id, still.email, passwordHash, now);
        return { outcome: 'ok', session: await this.startSession(c, still.account_id, now) };
      });
    } catch (err) {
      if (isEmailTaken(err)) return { outcome: 'email_taken' };
      throw err;
    }
  }

  /** The session's account, or undefined for an unknown, expired or ended session or a suspended account. */
  async getSession(token: string): Promise<SessionInfo | undefined> {
    if (!isSecretShaped(token)) return undefined;
    const { rows } = await this.pool.query<SessionInfo & { status: string }>(
      `SELECT s.id AS "sessionId", s.account_id AS "accountId", coalesce(c.email, '') AS email,
              a.plan_id AS plan, p.daily_cap AS "dailyCap", p.monthly_cap AS "monthlyCap",
              p.burst_per_minute AS "burstPerMinute", a.status
         FROM sessions s
         JOIN accounts a ON a.id = s.account_id
         JOIN plans p ON p.id = a.plan_id
         LEFT JOIN credentials c ON c.account_id = s.account_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2`,
      [this.tokens.keyedHash('session', token), new Date(this.clock())],
    );
    const row = rows[0];
    if (row?.status !== 'active') return undefined;
    const { status: _status, ...session } = row;
    return session;
  }

  /**
   * Ends the session, or with `everywhere` every live session of its account (only a live session may
   * do that). Ending an unknown or ended session is not an error.
   */
  async signOut(token: string, everywhere: boolean): Promise<void> {
    if (!isSecretShaped(token)) return;
    const now = new Date(this.clock());
    const tokenHash = this.tokens.keyedHash('session', token);
    if (everywhere) {
      await this.pool.query(
        `UPDATE sessions SET revoked_at = $2
          WHERE revoked_at IS NULL
            AND account_id = (SELECT account_id FROM sessions
                               WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2)`,
        [tokenHash, now],
      );
    } else {
      await this.pool.query(
        'UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL',
        [tokenHash, now],
      );
    }
  }

  /** Issues a token to the account; the token is returned this once. */
  async createToken(
    accountId: string,
    opts: { name: string; expiresAtMs?: number },
  ): Promise<{ id: string; token: string; displayPrefix: string }> {
    const now = this.clock();
    const name = checkTokenName(opts.name);
    if (!name.ok) throw new InvalidInput('name', name.message);
    const expiry = checkTokenExpiry(opts.expiresAtMs, now);
    if (!expiry.ok) throw new InvalidInput('expires_at_ms', expiry.message);
    const status = await this.accountStatus(accountId);
    if (status !== 'active') throw new AdminError(`account ${accountId} is suspended`, 'conflict');
    return this.tokens.issueToken(accountId, { name: name.value, expiresAt: expiry.value, now });
  }

  /** The account's tokens, newest first, with when each was last presented. */
  async listTokens(accountId: string): Promise<TokenListing[]> {
    return this.tokens.listTokens(accountId, { newestFirst: true });
  }

  /** Revokes one of the account's tokens; another account's token is "no such token" and stays valid. */
  async revokeToken(accountId: string, tokenId: string): Promise<void> {
    if (!UUID.test(tokenId)) throw new AdminError('no such token', 'not_found');
    await this.tokens.revokeToken(tokenId, { accountId });
  }

  /**
   * Moves each token's last use forward to what a gateway saw, in one statement for the whole batch. A
   * time never moves backwards, and one from a clock ahead of ours is taken as now. Rows are locked in id
   * order so that batches of several gateways never deadlock. Resolves to how many tokens moved.
   */
  async recordTokenUse(uses: readonly TokenUse[]): Promise<number> {
    if (uses.length > MAX_TOKEN_USES_PER_CALL)
      throw new InvalidInput('uses', `at most ${MAX_TOKEN_USES_PER_CALL} uses a call, not ${uses.length}`);
    const valid = uses.filter(
      (u) => UUID.test(u.tokenId) && Number.isSafeInteger(u.usedAtMs) && u.usedAtMs > 0,
    );
    if (valid.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `WITH batch AS (
         SELECT id, timestamptz 'epoch' + least(max(at_ms), $3) * interval '1 millisecond' AS used_at
           FROM unnest($1::uuid[], $2::bigint[]) AS u (id, at_ms) GROUP BY id
       ), locked AS (
         SELECT t.id, b.used_at FROM tokens t JOIN batch b ON b.id = t.id
          WHERE t.last_used_at IS NULL OR t.last_used_at < b.used_at
          ORDER BY t.id FOR UPDATE OF t
       )
       UPDATE tokens t SET last_used_at = l.used_at FROM locked l
        WHERE t.id = l.id AND (t.last_used_at IS NULL OR t.last_used_at < l.used_at)`,
      [valid.map((u) => u.tokenId), valid.map((u) => u.usedAtMs), this.clock()],
    );
    return rowCount ?? 0;
  }

  /**
   * An operator sets the sign-in of an account: its e-mail address and password. Every session of the
   * account ends, since whoever knew the old password may hold one.
   */
  async setPassword(accountId: string, rawEmail: string, rawPassword: string): Promise<void> {
    const email = checkEmail(rawEmail);
    if (!email.ok) throw new InvalidInput('email', email.message);
    const password = checkNewPassword(rawPassword);
    if (!password.ok) throw new InvalidInput('password', password.message);
    await this.tokens.requireAccount(accountId);
    const passwordHash = await this.hashPassword(password.value);
    try {
      await this.tokens.transaction((c) =>
        this.writeCredentials(c, accountId, email.value, passwordHash, this.clock()),
      );
    } catch (err) {
      if (isEmailTaken(err))
        throw new AdminError(
          `the e-mail address ${email.value} already signs in to another account`,
          'conflict',
        );
      throw err;
    }
  }

  /**
   * An operator invites the holder of `email` to set the password of an account. Earlier open invites of
   * the account stop working. Returns the code (shown once, stored as a keyed hash) and its expiry.
   */
  async createInvite(accountId: string, rawEmail: string): Promise<{ code: string; expiresAt: Date }> {
    const email = checkEmail(rawEmail);
    if (!email.ok) throw new InvalidInput('email', email.message);
    await this.tokens.requireAccount(accountId);
    const owner = await this.credentialsOf(email.value);
    if (owner && owner.account_id !== accountId)
      throw new AdminError(
        `the e-mail address ${email.value} already signs in to another account`,
        'conflict',
      );
    const now = this.clock();
    const code = newSecret();
    const expiresAt = new Date(now + INVITE_LIFETIME_MS);
    await this.tokens.transaction(async (c) => {
      await c.query('DELETE FROM invites WHERE account_id = $1 AND used_at IS NULL', [accountId]);
      await c.query(
        `INSERT INTO invites (code_hash, account_id, email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [this.tokens.keyedHash('invite', code), accountId, email.value, new Date(now), expiresAt],
      );
    });
    return { code, expiresAt };
  }

  /**
   * Deletes what can no longer matter: sessions and invites ended more than a day ago, and rate windows
   * long closed. Safe to run from every replica.
   */
  async purgeExpired(): Promise<void> {
    const cutoff = new Date(this.clock() - 86_400_000);
    await this.pool.query('DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $1', [cutoff]);
    await this.pool.query('DELETE FROM invites WHERE expires_at < $1 OR used_at < $1', [cutoff]);
    await this.pool.query('DELETE FROM attempt_counters WHERE window_start < $1', [cutoff]);
  }

  private async credentialsOf(
    email: string,
  ): Promise<{ account_id: string; password_hash: string; status: string } | undefined> {
    const { rows } = await this.pool.query<{ account_id: string; password_hash: string; status: string }>(
      `SELECT c.account_id, c.password_hash, a.status
         FROM credentials c JOIN accounts a ON a.id = c.account_id
        WHERE lower(c.email) = lower($1)`,
      [normaliseEmail(email)],
    );
    return rows[0];
  }

  private async accountStatus(accountId: string): Promise<string> {
    const { rows } = UUID.test(accountId)
      ? await this.pool.query<{ status: string }>('SELECT status FROM accounts WHERE id = $1', [accountId])
      : { rows: [] };
    if (!rows[0]) throw new AdminError(`no account with id ${accountId}`, 'not_found');
    return rows[0].status;
  }

  /** Sets the account's sign-in and ends its sessions (the password changed). */
  private async writeCredentials(
    c: pg.PoolClient,
    accountId: string,
    email: string,
    passwordHash: string,
    now: number,
  ): Promise<void> {
    await c.query(
      `INSERT INTO credentials (account_id, email, password_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (account_id) DO UPDATE
         SET email = excluded.email, password_hash = excluded.password_hash, updated_at = excluded.updated_at`,
      [accountId, email, passwordHash, new Date(now)],
    );
    await c.query('UPDATE sessions SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [
      accountId,
      new Date(now),
    ]);
  }

  private async startSession(q: Queryable, accountId: string, now: number): Promise<SessionGrant> {
    const token = newSecret();
    const expiresAtMs = now + SESSION_LIFETIME_MS;
    await q.query(
      'INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
      [this.tokens.keyedHash('session', token), accountId, new Date(now), new Date(expiresAtMs)],
    );
    return { token, accountId, expiresAtMs };
  }

  /**
   * Counts a sign-in attempt against the client address and the e-mail address before the password is
   * checked, so that concurrent guesses cannot overrun a limit; `undo` takes it back when it succeeded.
   */
  private async takeSignInAttempt(
    clientAddress: string,
    email: string,
    now: number,
  ): Promise<{ ok: true; undo: () => Promise<void> } | { ok: false; retryAfterSeconds: number }> {
    const address = addressKey(clientAddress);
    const byAddress = await this.take(RATE_LIMITS.signInAddress, address, now);
    if (!byAddress.ok) return byAddress;
    const byEmail = await this.take(RATE_LIMITS.signInEmail, email, now);
    if (!byEmail.ok) {
      await this.giveBack(RATE_LIMITS.signInAddress, address, byAddress.windowStart);
      return byEmail;
    }
    return {
      ok: true,
      undo: async () => {
        await this.giveBack(RATE_LIMITS.signInAddress, address, byAddress.windowStart);
        await this.pool.query('DELETE FROM attempt_counters WHERE scope = $1 AND key_hash = $2', [
          RATE_LIMITS.signInEmail.scope,
          this.rateKey(RATE_LIMITS.signInEmail, email),
        ]);
      },
    };
  }

  private rateKey(limit: RateLimit, key: string): Buffer {
    return this.tokens.keyedHash(`rate:${limit.scope}`, key);
  }

  /**
   * Counts one attempt in the key's window unless the window is full: one statement, so replicas and
   * concurrent calls agree. A window opens at the first attempt after the previous one closed.
   */
  private async take(limit: RateLimit, key: string, now: number): Promise<Taken> {
    const keyHash = this.rateKey(limit, key);
    const { rows } = await this.pool.query<{ window_start: Date }>(
      `INSERT INTO attempt_counters AS c (scope, key_hash, window_start, attempts) VALUES ($1, $2, $3, 1)
       ON CONFLICT (scope, key_hash) DO UPDATE SET
         window_start = CASE WHEN c.window_start <= $3::timestamptz - $4::double precision * interval '1 millisecond'
                             THEN excluded.window_start ELSE c.window_start END,
         attempts = CASE WHEN c.window_start <= $3::timestamptz - $4::double precision * interval '1 millisecond'
                         THEN 1 ELSE c.attempts + 1 END
       WHERE c.window_start <= $3::timestamptz - $4::double precision * interval '1 millisecond' OR c.attempts < $5
       RETURNING window_start`,
      [limit.scope, keyHash, new Date(now), limit.windowMs, limit.max],
    );
    if (rows[0]) return { ok: true, windowStart: rows[0].window_start };
    const full = await this.pool.query<{ window_start: Date }>(
      'SELECT window_start FROM attempt_counters WHERE scope = $1 AND key_hash = $2',
      [limit.scope, keyHash],
    );
    const start = full.rows[0]?.window_start.getTime() ?? now;
    return { ok: false, retryAfterSeconds: retryAfterSeconds(start, limit.windowMs, now) };
  }

  private async giveBack(limit: RateLimit, key: string, windowStart: Date): Promise<void> {
    await this.pool.query(
      `UPDATE attempt_counters SET attempts = attempts - 1
        WHERE scope = $1 AND key_hash = $2 AND window_start = $3 AND attempts > 0`,
      [limit.scope, this.rateKey(limit, key), windowStart],
    );
  }
}
