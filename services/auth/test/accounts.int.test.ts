import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { createClient, PARAM_METADATA_KEY, status, type TypedClient } from '@mdp/grpc';
import { auth } from '@mdp/proto';
import { createLogger, createRegistry, grpcClientMetrics, trace } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { AccountStore, hashPassword } from '../src/accounts.ts';
import { buildApp } from '../src/app.ts';
import { run } from '../src/cli.ts';
import { AuthStore, outboxChannel } from '../src/store.ts';
import { decide } from '../src/verify.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const SECRET = 'accounts-test-secret-0123456789';
const schema = `accounts_${randomBytes(5).toString('hex')}`;
const silent = createLogger('t', 'silent');
const MINUTE = 60_000;
const DAY = 86_400_000;
const O = auth.SignInOutcome;
const PASSWORD = 'correct horse battery staple';

// The service's clock, moved by the tests. It starts at the real time because token revocation is
// stamped by the database's clock.
let now = Date.now();
const clock = () => now;
/** Passwords the service has hashed, counted: a sign-up that skipped the hash would answer sooner. */
let hashes = 0;
const countedHash = (password: string) => {
  hashes += 1;
  return hashPassword(password);
};

let pool: Pool;
let store: AuthStore;
let accounts: AccountStore;
let server: ReturnType<typeof buildApp>;
let client: TypedClient<typeof auth.AuthServiceService>;
let rpc: TypedClient<typeof auth.AuthServiceService>['call'];

beforeAll(async () => {
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 4,
    applicationName: 'accounts-test',
  });
  store = new AuthStore(pool, SECRET, outboxChannel(schema));
  accounts = new AccountStore(store, { clock, hashPassword: countedHash });
  server = buildApp({
    logger: silent,
    tracer: trace.getTracer('t'),
    registry: createRegistry('auth'),
    store,
    accounts,
    clock,
  });
  const port = await server.listen('127.0.0.1', 0);
  client = createClient(auth.AuthServiceService, `127.0.0.1:${port}`, {
    target: 'auth',
    metrics: grpcClientMetrics(createRegistry('client')),
    defaultDeadlineMs: 10_000,
  });
  rpc = client.call;
});
afterAll(async () => {
  client?.close();
  await server?.shutdown(500);
  await pool?.end();
  await dropSchema(DATABASE_URL, schema);
});

/** A fresh e-mail address and client address, so tests never share a rate-limit window. */
const email = (label = 'user') => `${label}.${randomBytes(4).toString('hex')}@example.com`;
const address = () => `10.${[1, 2, 3].map(() => randomBytes(1)[0]!).join('.')}`;

/** The answer to every acceptable sign-up, new address or not: OK, and no session. */
const SIGNED_UP = {
  outcome: O.SIGN_IN_OUTCOME_OK,
  session: undefined,
  retry_after_seconds: 0,
  field: '',
  message: '',
};

/** Signs up a new address, then signs in as the site asks a subscriber to. */
async function signUp(e = email(), client_address = address()) {
  expect(await rpc.signUp({ email: e, password: PASSWORD, client_address })).toEqual(SIGNED_UP);
  const res = await rpc.signIn({ email: e, password: PASSWORD, client_address: address() });
  expect(res.outcome).toBe(O.SIGN_IN_OUTCOME_OK);
  return { email: e, accountId: res.session!.account_id, session: res.session!.session_token };
}

async function grpcError(p: Promise<unknown>) {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: number; details: string; metadata: { get(k: string): unknown[] } } | undefined;
  if (!err) throw new Error('expected the call to fail');
  return { code: err.code, param: err.metadata.get(PARAM_METADATA_KEY)[0], details: err.details };
}

describe('signing up and signing in', () => {
  it('signs up on the free plan without a session, then signs in, with the address in any case', async () => {
    const e = email('Asha');
    const signedUp = await rpc.signUp({
      email: `  ${e.toUpperCase()} `,
      password: PASSWORD,
      client_address: address(),
    });
    expect(signedUp).toEqual(SIGNED_UP);
    const up = await rpc.signIn({ email: e, password: PASSWORD, client_address: address() });
    expect(up.outcome).toBe(O.SIGN_IN_OUTCOME_OK);
    expect(up.session!.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(up.session!.expires_at_ms).toBe(now + 30 * DAY);

    const session = await rpc.getSession({ session_token: up.session!.session_token });
    expect(session).toMatchObject({
      valid: true,
      account_id: up.session!.account_id,
      email: e.toLowerCase(),
      plan: 'free',
      daily_cap: 50,
      burst_per_minute: 60,
    });
    expect(session.monthly_cap).toBeUndefined();
    expect(session.session_id).toMatch(/^[0-9a-f-]{36}$/);

    const again = await rpc.signIn({ email: e.toUpperCase(), password: PASSWORD, client_address: address() });
    expect(again.outcome).toBe(O.SIGN_IN_OUTCOME_OK);
    expect(again.session!.account_id).toBe(up.session!.account_id);
    expect(again.session!.session_token).not.toBe(up.session!.session_token);
  });

  it('stores neither the password nor the session token', async () => {
    const { session } = await signUp();
    const dump = (
      await pool.query<{ d: string }>(
        `SELECT (SELECT json_agg(c)::text FROM credentials c) || (SELECT json_agg(s)::text FROM sessions s) AS d`,
      )
    ).rows[0]!.d;
    expect(dump).not.toContain(PASSWORD);
    expect(dump).not.toContain(session);
    expect(dump).toContain('$argon2id$v=19$m=19456,t=2,p=1$');
  });

  it('answers an address already signed up as a new one, in answer and in time, and changes nothing', async () => {
    const { email: e, accountId } = await signUp();
    const accounts = async () => Number((await pool.query('SELECT count(*) AS n FROM accounts')).rows[0].n);
    const before = await accounts();
    const hashesOf = async (who: string, password = 'another password 123') => {
      const before = hashes;
      const res = await rpc.signUp({ email: who, password, client_address: address() });
      return { res, hashed: hashes - before };
    };
    // The taken address, in any case and with any password (its own included).
    const taken = [await hashesOf(e.toUpperCase()), await hashesOf(e), await hashesOf(e, PASSWORD)];
    for (const r of taken) expect(r.res).toEqual(SIGNED_UP);
    expect(await accounts()).toBe(before);
    // Its own password still signs in to the same account; the one sign-up tried does not.
    expect(
      (await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).session!.account_id,
    ).toBe(accountId);
    expect(
      (await rpc.signIn({ email: e, password: 'another password 123', client_address: address() })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS);

    const fresh = [await hashesOf(email()), await hashesOf(email()), await hashesOf(email())];
    for (const r of fresh) expect(r.res).toEqual(SIGNED_UP);
    expect(await accounts()).toBe(before + 3);
    // Time is what would tell them apart, and a clock under test load cannot show it reliably; the work
    // can: each sign-up, taken address or new, hashes its password once (tens of milliseconds) before
    // writing, where a taken address that returned early would hash nothing.
    expect(taken.map((r) => r.hashed)).toEqual([1, 1, 1]);
    expect(fresh.map((r) => r.hashed)).toEqual([1, 1, 1]);
  });

  it('says which field is at fault, in words', async () => {
    expect(
      await rpc.signUp({ email: 'not-an-address', password: PASSWORD, client_address: address() }),
    ).toMatchObject({
      outcome: O.SIGN_IN_OUTCOME_INVALID_INPUT,
      field: 'email',
      message: 'Enter an e-mail address such as name@example.com.',
    });
    expect(
      await rpc.signUp({ email: email(), password: 'too short', client_address: address() }),
    ).toMatchObject({
      outcome: O.SIGN_IN_OUTCOME_INVALID_INPUT,
      field: 'password',
      message: expect.stringMatching(/at least 12 characters/),
    });
    expect(await rpc.signIn({ email: email(), password: '', client_address: address() })).toMatchObject({
      outcome: O.SIGN_IN_OUTCOME_INVALID_INPUT,
      field: 'password',
    });
  });

  it('does not tell an unknown address from a wrong password, in answer or in time', async () => {
    const { email: known } = await signUp();
    const timed = async (e: string) => {
      const t0 = performance.now();
      const res = await rpc.signIn({ email: e, password: 'wrong password 123', client_address: address() });
      return { res, ms: performance.now() - t0 };
    };
    const wrong = [await timed(known), await timed(known), await timed(known)];
    const unknown = [await timed(email()), await timed(email()), await timed(email())];
    for (const r of [...wrong, ...unknown])
      expect(r.res).toEqual({
        outcome: O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS,
        session: undefined,
        retry_after_seconds: 0,
        field: '',
        message: '',
      });
    // Both check a password hash (tens of milliseconds); without the dummy hash an unknown address
    // would answer in a millisecond or two.
    const fastest = (rs: { ms: number }[]) => Math.min(...rs.map((r) => r.ms));
    expect(fastest(unknown)).toBeGreaterThan(fastest(wrong) / 3);
  });

  it('refuses a suspended account with the right password, and wrongly with the wrong one', async () => {
    const { email: e, accountId } = await signUp();
    await store.setSuspended(accountId, true);
    expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).outcome).toBe(
      O.SIGN_IN_OUTCOME_SUSPENDED,
    );
    expect(
      (await rpc.signIn({ email: e, password: `${PASSWORD}!`, client_address: address() })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS);
  });
});

describe('rate limits', () => {
  it('after 5 failures for an address, refuses even the right password until 15 minutes have passed', async () => {
    const { email: e } = await signUp();
    for (let i = 0; i < 5; i++) {
      const res = await rpc.signIn({ email: e, password: `wrong ${i} password`, client_address: address() });
      expect(res.outcome).toBe(O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS);
    }
    now += 5 * MINUTE;
    const refused = await rpc.signIn({ email: e, password: PASSWORD, client_address: address() });
    expect(refused.outcome).toBe(O.SIGN_IN_OUTCOME_RATE_LIMITED);
    expect(refused.session).toBeUndefined();
    expect(refused.retry_after_seconds).toBeGreaterThan(595);
    expect(refused.retry_after_seconds).toBeLessThanOrEqual(600);
    // An unknown address is limited the same way, so the limit tells nothing either.
    const unknown = email();
    for (let i = 0; i < 5; i++)
      await rpc.signIn({ email: unknown, password: 'x'.repeat(12), client_address: address() });
    expect(
      (await rpc.signIn({ email: unknown, password: 'x'.repeat(12), client_address: address() })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_RATE_LIMITED);

    now += 10 * MINUTE;
    expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).outcome).toBe(
      O.SIGN_IN_OUTCOME_OK,
    );
  });

  it('a successful sign-in takes back the failures counted for the account', async () => {
    const { email: e } = await signUp();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++)
        await rpc.signIn({ email: e, password: 'a wrong password', client_address: address() });
      expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).outcome).toBe(
        O.SIGN_IN_OUTCOME_OK,
      );
    }
  });

  it('after 20 failures from a client address, refuses it (any account) until the window ends', async () => {
    const { email: e } = await signUp();
    const from = address();
    for (let i = 0; i < 20; i++) {
      const res = await rpc.signIn({ email: email(), password: 'a wrong password', client_address: from });
      expect(res.outcome).toBe(O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS);
    }
    const refused = await rpc.signIn({ email: e, password: PASSWORD, client_address: from });
    expect(refused).toMatchObject({ outcome: O.SIGN_IN_OUTCOME_RATE_LIMITED, retry_after_seconds: 900 });
    // Another address is not affected, nor is the account (the refused attempt did not count against it).
    expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).outcome).toBe(
      O.SIGN_IN_OUTCOME_OK,
    );
    now += 15 * MINUTE;
    expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: from })).outcome).toBe(
      O.SIGN_IN_OUTCOME_OK,
    );
  });

  it('an IPv6 client is limited by its /64', async () => {
    const { email: e } = await signUp();
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:1`;
    for (let i = 0; i < 20; i++)
      await rpc.signIn({
        email: email(),
        password: 'a wrong password',
        client_address: `${prefix}::${i + 1}`,
      });
    expect(
      (await rpc.signIn({ email: e, password: PASSWORD, client_address: `${prefix}::ffff` })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_RATE_LIMITED);
    now += 15 * MINUTE;
  });

  it('allows 10 sign-ups an hour from one address', async () => {
    const from = address();
    for (let i = 0; i < 10; i++) await signUp(email(), from);
    const refused = await rpc.signUp({ email: email(), password: PASSWORD, client_address: from });
    expect(refused).toMatchObject({ outcome: O.SIGN_IN_OUTCOME_RATE_LIMITED, retry_after_seconds: 3600 });
    now += 60 * MINUTE;
    await signUp(email(), from);
  });

  it('counts concurrent failures exactly: no more than 5 of 12 simultaneous guesses are checked', async () => {
    const { email: e } = await signUp();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rpc.signIn({ email: e, password: `guess number ${i}`, client_address: address() }),
      ),
    );
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS)).toHaveLength(5);
    expect(outcomes.filter((o) => o === O.SIGN_IN_OUTCOME_RATE_LIMITED)).toHaveLength(7);
    now += 15 * MINUTE;
  });
});

describe('sessions', () => {
  it('expire after 30 days', async () => {
    const { session } = await signUp();
    now += 30 * DAY - 1;
    expect((await rpc.getSession({ session_token: session })).valid).toBe(true);
    now += 1;
    expect(await rpc.getSession({ session_token: session })).toEqual({
      valid: false,
      session_id: '',
      account_id: '',
      email: '',
      plan: '',
    });
  });

  it('sign out ends one session; everywhere ends them all', async () => {
    const { email: e, session: first } = await signUp();
    const signIn = async () =>
      (await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).session!.session_token;
    const second = await signIn();
    const third = await signIn();
    await rpc.signOut({ session_token: first, everywhere: false });
    expect((await rpc.getSession({ session_token: first })).valid).toBe(false);
    expect((await rpc.getSession({ session_token: second })).valid).toBe(true);
    // Signing out twice, or an unknown session, is no error.
    await rpc.signOut({ session_token: first, everywhere: false });
    await rpc.signOut({ session_token: 'nonsense', everywhere: true });
    // An ended session cannot end the others.
    await rpc.signOut({ session_token: first, everywhere: true });
    expect((await rpc.getSession({ session_token: second })).valid).toBe(true);

    const other = await signUp();
    await rpc.signOut({ session_token: second, everywhere: true });
    for (const s of [second, third]) expect((await rpc.getSession({ session_token: s })).valid).toBe(false);
    expect((await rpc.getSession({ session_token: other.session })).valid).toBe(true);
  });

  it("a suspended account's sessions are not valid while it is suspended", async () => {
    const { accountId, session } = await signUp();
    await store.setSuspended(accountId, true);
    expect((await rpc.getSession({ session_token: session })).valid).toBe(false);
    await store.setSuspended(accountId, false);
    expect((await rpc.getSession({ session_token: session })).valid).toBe(true);
  });

  it('ended sessions are deleted a day after they end; live ones stay', async () => {
    const ended = await signUp();
    await rpc.signOut({ session_token: ended.session, everywhere: false });
    const live = await signUp();
    const count = async (s: { accountId: string }) =>
      Number(
        (await pool.query('SELECT count(*) FROM sessions WHERE account_id = $1', [s.accountId])).rows[0]
          .count,
      );
    now += DAY + 1;
    await accounts.purgeExpired();
    expect(await count(ended)).toBe(0);
    expect(await count(live)).toBe(1);
    expect((await rpc.getSession({ session_token: live.session })).valid).toBe(true);
  });

  it('carries the caps of the plan as it is now', async () => {
    const { accountId, session } = await signUp();
    await store.setPlan(accountId, 'pro');
    expect(await rpc.getSession({ session_token: session })).toMatchObject({
      valid: true,
      plan: 'pro',
      daily_cap: 5000,
      monthly_cap: 100000,
    });
  });
});

describe('invites', () => {
  it('sets the password once and signs in; the code then no longer works', async () => {
    const accountId = await store.createAccount('pro', 'Invited Ltd');
    const e = email('Invited');
    const { code, expiresAt } = await accounts.createInvite(accountId, e.toUpperCase());
    expect(expiresAt.getTime()).toBe(now + 7 * DAY);

    const short = await rpc.acceptInvite({ invite_code: code, password: 'short', client_address: address() });
    expect(short).toMatchObject({ outcome: O.SIGN_IN_OUTCOME_INVALID_INPUT, field: 'password' });

    const accepted = await rpc.acceptInvite({
      invite_code: code,
      password: PASSWORD,
      client_address: address(),
    });
    expect(accepted.outcome).toBe(O.SIGN_IN_OUTCOME_OK);
    expect(accepted.session!.account_id).toBe(accountId);
    expect(await rpc.getSession({ session_token: accepted.session!.session_token })).toMatchObject({
      valid: true,
      email: e.toLowerCase(),
      plan: 'pro',
    });
    const again = await rpc.acceptInvite({
      invite_code: code,
      password: 'another password',
      client_address: address(),
    });
    expect(again.outcome).toBe(O.SIGN_IN_OUTCOME_INVITE_INVALID);
    expect((await rpc.signIn({ email: e, password: PASSWORD, client_address: address() })).outcome).toBe(
      O.SIGN_IN_OUTCOME_OK,
    );
    expect(
      (await rpc.signIn({ email: e, password: 'another password', client_address: address() })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS);
  });

  it('expires after 7 days; a new invite replaces the earlier one', async () => {
    const accountId = await store.createAccount('free');
    const e = email();
    const first = await accounts.createInvite(accountId, e);
    const second = await accounts.createInvite(accountId, e);
    expect(
      (await rpc.acceptInvite({ invite_code: first.code, password: PASSWORD, client_address: address() }))
        .outcome,
    ).toBe(O.SIGN_IN_OUTCOME_INVITE_INVALID);
    now += 7 * DAY;
    expect(
      (await rpc.acceptInvite({ invite_code: second.code, password: PASSWORD, client_address: address() }))
        .outcome,
    ).toBe(O.SIGN_IN_OUTCOME_INVITE_INVALID);
    const third = await accounts.createInvite(accountId, e);
    now += 7 * DAY - 1;
    expect(
      (await rpc.acceptInvite({ invite_code: third.code, password: PASSWORD, client_address: address() }))
        .outcome,
    ).toBe(O.SIGN_IN_OUTCOME_OK);
  });

  it('of two simultaneous acceptances, exactly one signs in', async () => {
    const accountId = await store.createAccount('free');
    const { code } = await accounts.createInvite(accountId, email());
    const results = await Promise.all(
      [1, 2].map(() =>
        rpc.acceptInvite({ invite_code: code, password: PASSWORD, client_address: address() }),
      ),
    );
    expect(results.map((r) => r.outcome).sort()).toEqual([
      O.SIGN_IN_OUTCOME_OK,
      O.SIGN_IN_OUTCOME_INVITE_INVALID,
    ]);
  });

  it('refuses a made-up code, and counts it against the client address', async () => {
    const from = address();
    for (let i = 0; i < 20; i++) {
      const res = await rpc.acceptInvite({
        invite_code: randomBytes(32).toString('base64url'),
        password: PASSWORD,
        client_address: from,
      });
      expect(res.outcome).toBe(O.SIGN_IN_OUTCOME_INVITE_INVALID);
    }
    expect(
      (await rpc.acceptInvite({ invite_code: 'x', password: PASSWORD, client_address: from })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_RATE_LIMITED);
    now += 15 * MINUTE;
  });

  it('will not invite an address that signs in to another account', async () => {
    const { email: taken } = await signUp();
    const accountId = await store.createAccount('free');
    await expect(accounts.createInvite(accountId, taken)).rejects.toThrow(
      /already signs in to another account/,
    );
    await expect(accounts.createInvite(accountId, 'nope')).rejects.toThrow(/such as name@example.com/);
    await expect(accounts.createInvite('11111111-1111-1111-1111-111111111111', email())).rejects.toThrow(
      /no account/,
    );
  });
});

describe("a subscriber's tokens", () => {
  const verify = async (token: string) => decide(await store.findByToken(token), now).outcome;

  it('creates a token shown once, lists tokens newest first, and revokes only its own', async () => {
    const { accountId } = await signUp();
    const other = await signUp();
    const expiresAt = now + 30 * DAY;
    const first = await rpc.createToken({
      account_id: accountId,
      name: ' laptop ',
      expires_at_ms: expiresAt,
    });
    expect(first.token).toMatch(/^mdp_/);
    expect(first.display_prefix).toBe(first.token.slice(0, 8));
    expect(await verify(first.token)).toBe(auth.VerifyOutcome.VERIFY_OUTCOME_VALID);
    const second = await rpc.createToken({ account_id: accountId, name: 'trading bot' });

    const { tokens } = await rpc.listTokens({ account_id: accountId });
    expect(tokens.map((t) => t.token_id)).toEqual([second.token_id, first.token_id]);
    expect(tokens[1]).toMatchObject({
      name: 'laptop',
      display_prefix: first.display_prefix,
      expires_at_ms: expiresAt,
    });
    expect(tokens[1]!.last_used_at_ms).toBeUndefined();
    expect(tokens[1]!.revoked_at_ms).toBeUndefined();
    expect(JSON.stringify(tokens)).not.toContain(first.token);
    expect((await rpc.listTokens({ account_id: other.accountId })).tokens).toEqual([]);

    // Another account's token: NOT_FOUND, and it keeps working.
    expect(
      await grpcError(rpc.revokeToken({ account_id: other.accountId, token_id: first.token_id })),
    ).toMatchObject({
      code: status.NOT_FOUND,
    });
    expect(await verify(first.token)).toBe(auth.VerifyOutcome.VERIFY_OUTCOME_VALID);

    await rpc.revokeToken({ account_id: accountId, token_id: first.token_id });
    expect(await verify(first.token)).toBe(auth.VerifyOutcome.VERIFY_OUTCOME_REVOKED);
    const { rows } = await pool.query(
      "SELECT payload FROM outbox WHERE subject = 'auth.token.revoked' AND payload->>'token_id' = $1",
      [first.token_id],
    );
    expect(rows.map((r) => r.payload)).toEqual([{ token_id: first.token_id, account_id: accountId }]);
    expect((await rpc.listTokens({ account_id: accountId })).tokens[1]!.revoked_at_ms).toBeGreaterThan(0);

    expect(
      await grpcError(rpc.revokeToken({ account_id: accountId, token_id: first.token_id })),
    ).toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: expect.stringMatching(/already revoked/),
    });
    for (const token_id of ['00000000-0000-0000-0000-000000000000', 'not-an-id', second.token])
      expect((await grpcError(rpc.revokeToken({ account_id: accountId, token_id }))).code).toBe(
        status.NOT_FOUND,
      );
    expect(await verify(second.token)).toBe(auth.VerifyOutcome.VERIFY_OUTCOME_VALID);
  });

  it('refuses a bad name or expiry with the field at fault', async () => {
    const { accountId } = await signUp();
    expect(await grpcError(rpc.createToken({ account_id: accountId, name: 'n'.repeat(201) }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'name',
      details: 'A token name has at most 200 characters.',
    });
    expect(await grpcError(rpc.createToken({ account_id: accountId, name: '' }))).toMatchObject({
      param: 'name',
    });
    for (const expires_at_ms of [now, now - DAY, now + 800 * DAY])
      expect(
        await grpcError(rpc.createToken({ account_id: accountId, name: 'x', expires_at_ms })),
      ).toMatchObject({
        code: status.INVALID_ARGUMENT,
        param: 'expires_at_ms',
      });
    expect((await rpc.listTokens({ account_id: accountId })).tokens).toEqual([]);
    expect((await grpcError(rpc.createToken({ account_id: 'nobody', name: 'x' }))).code).toBe(
      status.NOT_FOUND,
    );
    expect(
      (await grpcError(rpc.listTokens({ account_id: '11111111-1111-1111-1111-111111111111' }))).code,
    ).toBe(status.NOT_FOUND);
  });

  it('records when tokens were last used, only ever moving forward', async () => {
    const { accountId } = await signUp();
    const a = await rpc.createToken({ account_id: accountId, name: 'a' });
    const b = await rpc.createToken({ account_id: accountId, name: 'b' });
    const lastUsed = async () =>
      Object.fromEntries(
        (await rpc.listTokens({ account_id: accountId })).tokens.map((t) => [t.token_id, t.last_used_at_ms]),
      );
    const t0 = now - 10 * MINUTE;
    await rpc.recordTokenUse({
      uses: [
        { token_id: a.token_id, used_at_ms: t0 },
        { token_id: a.token_id, used_at_ms: t0 + 5_000 },
        { token_id: '00000000-0000-0000-0000-000000000000', used_at_ms: t0 },
        { token_id: 'not-a-token-id', used_at_ms: t0 },
      ],
    });
    expect(await lastUsed()).toEqual({ [a.token_id]: t0 + 5_000, [b.token_id]: undefined });

    // An older report (a slower gateway) changes nothing; a newer one moves it; the future is now.
    await rpc.recordTokenUse({
      uses: [
        { token_id: a.token_id, used_at_ms: t0 + 1_000 },
        { token_id: b.token_id, used_at_ms: t0 + 2_000 },
      ],
    });
    expect(await lastUsed()).toEqual({ [a.token_id]: t0 + 5_000, [b.token_id]: t0 + 2_000 });
    await rpc.recordTokenUse({ uses: [{ token_id: b.token_id, used_at_ms: now + DAY }] });
    expect((await lastUsed())[b.token_id]).toBe(now);
    expect(await accounts.recordTokenUse([{ tokenId: b.token_id, usedAtMs: now }])).toBe(0);
  });

  it('takes at most 10,000 uses a call', async () => {
    const { accountId } = await signUp();
    const a = await rpc.createToken({ account_id: accountId, name: 'a' });
    const uses = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ token_id: a.token_id, used_at_ms: now - n + i }));
    await rpc.recordTokenUse({ uses: uses(10_000) });
    expect((await rpc.listTokens({ account_id: accountId })).tokens[0]!.last_used_at_ms).toBe(now - 1);
    expect(await grpcError(rpc.recordTokenUse({ uses: uses(10_001) }))).toMatchObject({
      code: status.INVALID_ARGUMENT,
      param: 'uses',
    });
  });

  it('a suspended account cannot create tokens', async () => {
    const { accountId } = await signUp();
    await store.setSuspended(accountId, true);
    expect((await grpcError(rpc.createToken({ account_id: accountId, name: 'x' }))).code).toBe(
      status.FAILED_PRECONDITION,
    );
  });
});

describe('admin commands', () => {
  const cli = (argv: string[], password?: string) =>
    run(store, argv, { clock, readPassword: async () => password ?? PASSWORD });

  it('account set-password sets the sign-in and ends the sessions', async () => {
    const { accountId, session } = await signUp();
    const e = email('Renamed');
    expect(await cli(['account', 'set-password', accountId, e], 'a brand new password')).toBe('');
    expect((await rpc.getSession({ session_token: session })).valid).toBe(false);
    const res = await rpc.signIn({ email: e, password: 'a brand new password', client_address: address() });
    expect(res.outcome).toBe(O.SIGN_IN_OUTCOME_OK);
    expect((await rpc.getSession({ session_token: res.session!.session_token })).email).toBe(e.toLowerCase());

    await expect(cli(['account', 'set-password', accountId, e], 'short')).rejects.toThrow(/at least 12/);
    await expect(cli(['account', 'set-password', accountId, 'nope'])).rejects.toThrow(
      /such as name@example.com/,
    );
    const other = await signUp();
    await expect(cli(['account', 'set-password', other.accountId, e])).rejects.toThrow(
      /already signs in to another account/,
    );
    await expect(cli(['account', 'set-password', accountId])).rejects.toThrow(/missing <email>/);
  });

  it('account invite prints a link to the site that works once', async () => {
    const accountId = await store.createAccount('free');
    const e = email();
    const link = await cli(['account', 'invite', accountId, e]);
    expect(link).toMatch(/^http:\/\/localhost:8080\/account\/invite\/[A-Za-z0-9_-]{43}$/);
    const other = await cli(['account', 'invite', accountId, e, '--base-url', 'https://data.example.in/']);
    expect(other).toMatch(/^https:\/\/data\.example\.in\/account\/invite\/[A-Za-z0-9_-]{43}$/);
    const code = other.split('/').at(-1)!;
    expect(
      (await rpc.acceptInvite({ invite_code: code, password: PASSWORD, client_address: address() })).outcome,
    ).toBe(O.SIGN_IN_OUTCOME_OK);
    await expect(cli(['account', 'invite', accountId, e, '--base-url', 'ftp://x'])).rejects.toThrow(
      /--base-url/,
    );
  });

  it('the real process reads the password from stdin, and exits 1 when it is refused', async () => {
    const env = { ...process.env, DATABASE_URL, DB_SCHEMA: schema, TOKEN_HASH_SECRET: SECRET };
    const tool = (args: string[], stdin: string) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [...nodeArgsFor('services/auth/src/cli.ts'), ...args], {
          env,
          cwd: process.cwd(),
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(stdin);
      });
    const accountId = await store.createAccount('free');
    const e = email();
    const ok = await tool(['account', 'set-password', accountId, e], 'piped in password\n');
    expect(ok).toMatchObject({ code: 0, stdout: '' });
    expect(ok.stderr).toContain(`signs in as ${e}`);
    expect(ok.stderr).not.toContain('piped in password');
    expect(
      (await accounts.signIn({ email: e, password: 'piped in password', clientAddress: address() })).outcome,
    ).toBe('ok');

    const short = await tool(['account', 'set-password', accountId, e], 'short\n');
    expect(short).toMatchObject({ code: 1, stdout: '' });
    expect(short.stderr).toMatch(/at least 12 characters/);
    const empty = await tool(['account', 'set-password', accountId, e], '');
    expect(empty.code).toBe(2);

    const invited = await tool(['account', 'invite', accountId, e], '');
    expect(invited.code).toBe(0);
    expect(invited.stdout.trim()).toMatch(/^http:\/\/localhost:8080\/account\/invite\/[A-Za-z0-9_-]{43}$/);
    // Several runs of the real CLI, each compiling its TypeScript: over 30 s on a machine under load.
  }, 120_000);
});
