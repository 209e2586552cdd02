import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { dropSchema, migratedPool, type Pool } from '@mdp/db';
import { generateToken, isWellFormedToken, TAGGED_TOKEN_LENGTH, tokenKeyId } from '@mdp/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../test/bundles.ts';
import { run } from '../src/cli.ts';
import { AdminError, AuthStore, outboxChannel } from '../src/store.ts';
import { decide } from '../src/verify.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@localhost:5432/mdp';
const SECRET = 'cli-test-secret-0123456789';
const schema = `cli_${randomBytes(5).toString('hex')}`;
let pool: Pool;
let store: AuthStore;

beforeAll(async () => {
  pool = await migratedPool({
    url: DATABASE_URL,
    schema,
    dir: new URL('../migrations/', import.meta.url).pathname,
    max: 2,
    applicationName: 'cli-test',
  });
  store = new AuthStore(pool, SECRET, outboxChannel(schema));
});
afterAll(async () => {
  await pool.end();
  await dropSchema(DATABASE_URL, schema);
});

const cli = (...argv: string[]) => run(store, argv);

describe('auth-admin commands', () => {
  it('token-pool: n accounts on a plan, one working token each; --count is bounded', async () => {
    const tokens = (await cli('token-pool', '--plan', 'load-test', '--count', '25')).split('\n');
    expect(tokens.length).toBe(25);
    const owners = new Set<string>();
    for (const token of tokens) {
      const found = await store.findByToken(token);
      expect(found?.plan).toBe('load-test');
      expect(found?.burst_per_minute).toBeNull();
      owners.add(found!.account_id);
    }
    expect(owners.size).toBe(25);
    await expect(cli('token-pool', '--plan', 'load-test', '--count', '0')).rejects.toThrow(/--count/);
    await expect(cli('token-pool', '--plan', 'load-test', '--count', '10001')).rejects.toThrow(/--count/);
  });

  it('plan create --burst none makes a plan without a burst cap; set-caps can give it one back', async () => {
    await cli('plan', 'create', 'soak', '--daily', 'none', '--monthly', 'none', '--burst', 'none');
    expect((await store.listPlans()).find((p) => p.id === 'soak')?.burst_per_minute).toBeNull();
    await cli('plan', 'set-caps', 'soak', '--daily', 'none', '--monthly', 'none', '--burst', '120');
    expect((await store.listPlans()).find((p) => p.id === 'soak')?.burst_per_minute).toBe(120);
    await cli('plan', 'set-caps', 'soak', '--daily', '10', '--monthly', 'none');
    expect((await store.listPlans()).find((p) => p.id === 'soak')?.burst_per_minute).toBe(120);
  });

  it('creates an account, issues a token that verifies, lists it without revealing it', async () => {
    const account = await cli('account', 'create', '--plan', 'pro', '--name', 'Acme');
    expect(account).toMatch(/^[0-9a-f-]{36}$/);
    const token = await cli('token', 'issue', account, '--name', 'ci');
    expect(isWellFormedToken(token)).toBe(true);
    expect((await store.findByToken(token))?.plan).toBe('pro');
    const listing = await cli('token', 'list', account);
    expect(listing).toContain(token.slice(0, 8));
    expect(listing).not.toContain(token.slice(8));
    expect(listing).toMatch(/ci/);
  });

  it('stores only a keyed hash of the token', async () => {
    const account = await cli('account', 'create', '--plan', 'free');
    const token = await cli('token', 'issue', account);
    const { rows } = await pool.query<{ dump: string }>('SELECT row_to_json(t)::text AS dump FROM tokens t');
    const dump = rows.map((r) => r.dump).join('\n');
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(8, 30));
  });

  it('revokes once, by id or by the token itself, and refuses a second time', async () => {
    const account = await cli('account', 'create', '--plan', 'free');
    const token = await cli('token', 'issue', account);
    await cli('token', 'revoke', token);
    await expect(cli('token', 'revoke', token)).rejects.toThrow(/already revoked/);
    const other = await store.issueToken(account);
    await cli('token', 'revoke', other.id);
    await expect(cli('token', 'revoke', other.id)).rejects.toThrow(AdminError);
    await expect(cli('token', 'revoke', '00000000-0000-0000-0000-000000000000')).rejects.toThrow(
      /no such token/,
    );
  });

  it('refuses unknown plans and accounts with a clear message', async () => {
    await expect(cli('account', 'create', '--plan', 'gold')).rejects.toThrow(
      /unknown plan "gold"; plans are: business, free, load-test, pro, (.+, )?unlimited/,
    );
    await expect(cli('token', 'issue', 'not-an-id')).rejects.toThrow(/no account with id not-an-id/);
    await expect(cli('token', 'issue', '11111111-1111-1111-1111-111111111111')).rejects.toThrow(/no account/);
    const account = await cli('account', 'create', '--plan', 'free');
    await expect(cli('account', 'set-plan', account, 'platinum')).rejects.toThrow(/unknown plan "platinum"/);
    await expect(cli('account', 'set-plan', '11111111-1111-1111-1111-111111111111', 'pro')).rejects.toThrow(
      /no account/,
    );
    await expect(cli('account', 'reactivate', account)).rejects.toThrow(/already active/);
  });

  it('refuses bad options', async () => {
    await expect(cli('account', 'create')).rejects.toThrow(/--plan is required/);
    await expect(cli('token', 'issue')).rejects.toThrow(/missing <account-id>/);
    await expect(cli('plan', 'set-caps', 'free', '--daily=-5', '--monthly', 'none')).rejects.toThrow(
      /whole number/,
    );
    await expect(cli('plan', 'set-caps', 'free', '--daily', '10')).rejects.toThrow(/--monthly is required/);
    const account = await cli('account', 'create', '--plan', 'free');
    await expect(cli('token', 'issue', account, '--expires-in', '3 weeks')).rejects.toThrow(
      /30d, 12h or 90m/,
    );
    await expect(cli('token', 'issue', account, '--expires-at', '2001-01-01T00:00:00Z')).rejects.toThrow(
      /in the past/,
    );
    await expect(cli('frobnicate')).rejects.toThrow(/unknown command/);
  });

  it('changes plan caps as data, emitting an event for the gateways', async () => {
    await cli('plan', 'set-caps', 'pro', '--daily', '7000', '--monthly', 'none');
    expect(await cli('plan', 'list')).toMatch(/pro\s+7000\s+-/);
    const { rows } = await pool.query("SELECT payload FROM outbox WHERE subject = 'auth.plan.changed'");
    expect(rows.map((r) => r.payload)).toContainEqual({ plan: 'pro' });
  });
});

const KEY_A = 'a1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'b2:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('tags and the migration from legacy tokens (issue 41)', () => {
  const outcome = async (s: AuthStore, token: string, at = Date.now()) =>
    decide(await s.findByToken(token), at).outcome;
  const VALID = 1;

  it('issues tagged tokens under the first key and records the key', async () => {
    const keyed = new AuthStore(pool, SECRET, outboxChannel(schema), KEY_A);
    const account = await keyed.createAccount('free');
    const { token } = await keyed.issueToken(account);
    expect(token).toHaveLength(TAGGED_TOKEN_LENGTH);
    expect(tokenKeyId(token)).toBe('a1');
    expect(await run(keyed, ['token', 'list', account])).toMatch(/\ba1\b/);
  });

  it('a legacy token keeps working, is listed as outdated, and rotates to a tagged one with a grace period', async () => {
    const account = await store.createAccount('pro');
    const legacy = generateToken();
    const legacyId = await store.storeLegacyToken(account, legacy);
    expect(await outcome(store, legacy)).toBe(VALID);
    expect(await cli('token', 'outdated', '--key', 'legacy')).toContain(legacyId);

    const fresh = await cli('token', 'rotate', legacy, '--grace', '1d');
    expect(tokenKeyId(fresh)).toBe(store.tagKeys.issuing);
    const record = await store.findByToken(fresh);
    expect(record?.account_id).toBe(account);
    expect(await outcome(store, fresh)).toBe(VALID);
    // Both work during the grace day; after it only the new one.
    expect(await outcome(store, legacy)).toBe(VALID);
    expect(await outcome(store, legacy, Date.now() + 86_400_000 + 1_000)).not.toBe(VALID);
    expect(await outcome(store, fresh, Date.now() + 86_400_000 + 1_000)).toBe(VALID);
    // Rotated without grace: revoked at once, and no longer outdated (it is not live).
    const again = await cli('token', 'rotate', fresh);
    expect(await outcome(store, fresh)).not.toBe(VALID);
    expect(await outcome(store, again)).toBe(VALID);
    await expect(cli('token', 'rotate', fresh)).rejects.toThrow(/revoked/);
    await expect(cli('token', 'outdated', '--key', 'nope!')).rejects.toThrow(/--key/);
  });

  it('key rotation: tokens of the old key are listed until rotated, then the old key can go', async () => {
    const before = new AuthStore(pool, SECRET, outboxChannel(schema), KEY_A);
    const account = await before.createAccount('free');
    const old = await before.issueToken(account, { name: 'bot' });
    const overlap = new AuthStore(pool, SECRET, outboxChannel(schema), `${KEY_B},${KEY_A}`);
    expect(overlap.tagKeys.issuing).toBe('b2');
    expect([...overlap.tagKeys.byId.keys()]).toEqual(['b2', 'a1']);
    const listed = await run(overlap, ['token', 'outdated', '--key', 'a1']);
    expect(listed).toContain(old.id);
    expect(listed).not.toContain(old.token.slice(8));
    const fresh = await run(overlap, ['token', 'rotate', old.id]);
    expect(tokenKeyId(fresh)).toBe('b2');
    expect((await overlap.findByToken(fresh))?.account_id).toBe(account);
    expect(await run(overlap, ['token', 'outdated', '--key', 'a1'])).not.toContain(old.id);
  });
});

describe('the real command-line process', () => {
  const exec = promisify(execFile);
  const env = { ...process.env, DATABASE_URL, DB_SCHEMA: schema, TOKEN_HASH_SECRET: SECRET };
  const tool = (...args: string[]) =>
    exec(process.execPath, [...nodeArgsFor('services/auth/src/cli.ts'), ...args], {
      env,
      cwd: process.cwd(),
    });

  it('demo-token prints only the token, on the last line of stdout', async () => {
    const { stdout, stderr } = await tool('demo-token', '--plan', 'free');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(isWellFormedToken(lines.at(-1)!)).toBe(true);
    expect(stderr).toMatch(/account .* on plan free/);
  });

  it('exits 1 with the reason on stderr for a refusal, 2 with usage for a bad command', async () => {
    await expect(tool('account', 'create', '--plan', 'gold')).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/unknown plan "gold"/),
    });
    await expect(tool('nonsense')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/usage: auth-admin/),
    });
  });
});
