// Admin tool of the auth service: accounts, plans and tokens. Writes go straight to the auth schema;
// the events they imply reach the gateways through the outbox, relayed by the running auth service.
// stdout carries only the value asked for (an id, a token, a table); messages go to stderr.

import { parseArgs } from 'node:util';
import { type Clock, systemClock } from '@mdp/nse-calendar';
import { isEntryPoint, runServiceCli, UsageError } from '@mdp/runtime';
import { normaliseEmail } from './account-rules.ts';
import { AccountStore } from './accounts.ts';
import { authConfig } from './config.ts';
import { AdminError, AuthStore, outboxChannel } from './store.ts';

/** Where the gateway serves the account site under `make run` (its PORT). */
const DEFAULT_SITE_URL = 'http://localhost:8080';

const USAGE = `usage: auth-admin <command> [options]

  account create --plan <plan> [--name <name>]     create an account; prints its id
  account set-plan <account-id> <plan>            move an account to another plan
  account suspend <account-id>                    refuse all of its tokens until reactivated
  account reactivate <account-id>
  account set-password <account-id> <email>       set the account's sign-in to the site: the password is
                                                  read from stdin (first line), never from the command line;
                                                  ends the account's sessions
  account invite <account-id> <email> [--base-url <url>]
                                                  a single-use link (valid 7 days) for the holder of <email>
                                                  to set the password; prints <url>/account/invite/<code>
                                                  (default url ${DEFAULT_SITE_URL})
  token issue <account-id> [--name <name>] [--expires-in <N>d|h|m] [--expires-at <ISO time>]
                                                  issue a token; prints only the token
  token list <account-id>                         the account's tokens, never revealing them
  token revoke <token-id | token>                 revoke a token (at once, on every gateway)
  token rotate <token-id | token> [--grace <N>d|h|m]
                                                  a new token under the current tag key for the same
                                                  account, name and expiry; prints only the new token. The
                                                  old one is revoked at once, or with --grace expires then
  token outdated [--key <id>|legacy]              live tokens not under the current tag key (legacy ones
                                                  and older keys'), most recently used first: whose
                                                  owners must rotate before the old key is retired
  plan list                                       plans and their daily and monthly caps
  plan create <plan> --daily <n|none> --monthly <n|none> [--burst <n|none>]
                                                  add a plan (burst: requests a minute, default 60)
  plan set-caps <plan> --daily <n|none> --monthly <n|none> [--burst <n|none>]
                                                  change a plan's caps (none = unlimited)
  demo-token [--plan <plan>]                      a new account with one token; prints the token last
  token-pool --plan <plan> --count <n>            n new accounts (1-10000) with one token each, for load
                                                  tests spread over many accounts; prints one token a line

Environment: DATABASE_URL, DB_SCHEMA (default auth), TOKEN_HASH_SECRET and TOKEN_TAG_KEYS (both must
match the auth service's).`;

function parseCap(value: string | undefined, flag: string): number | null {
  if (value === undefined) throw new UsageError(`${flag} is required (a whole number, or none)`);
  if (value === 'none') return null;
  if (!/^\d{1,9}$/.test(value))
    throw new UsageError(`${flag} must be a whole number or none, not "${value}"`);
  return Number(value);
}

function parseBurst(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (!/^[1-9]\d{0,8}$/.test(value))
    throw new UsageError(`--burst must be a whole number of at least 1, or none, not "${value}"`);
  return Number(value);
}

function parseDuration(value: string, flag: string): number {
  const m = /^(\d{1,5})([dhm])$/.exec(value);
  if (!m) throw new UsageError(`${flag} must look like 30d, 12h or 90m, not "${value}"`);
  return Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
}

function parseExpiry(expiresIn: string | undefined, expiresAt: string | undefined): Date | undefined {
  if (expiresIn && expiresAt) throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresAt) {
    const at = new Date(expiresAt);
    if (Number.isNaN(at.getTime())) throw new UsageError(`--expires-at is not a date-time: "${expiresAt}"`);
    return at;
  }
  if (!expiresIn) return undefined;
  const m = /^(\d{1,5})([dhm])$/.exec(expiresIn);
  if (!m) throw new UsageError(`--expires-in must look like 30d, 12h or 90m, not "${expiresIn}"`);
  const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
  return new Date(Date.now() + Number(m[1]) * unitMs);
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const keys = Object.keys(rows[0]!);
  const cell = (v: unknown) =>
    v instanceof Date ? v.toISOString() : v === null || v === undefined ? '-' : String(v);
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => cell(r[k]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(keys), ...rows.map((r) => line(keys.map((k) => cell(r[k]))))].join('\n');
}

/** Reads a password from stdin: typed without echo (twice) at a terminal, else the first line piped in. */
async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    const first = await promptHidden('password: ');
    if ((await promptHidden('password again: ')) !== first) throw new UsageError('the passwords differ');
    return first;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError('give the password on stdin, e.g. from a password manager');
  return password;
}

function promptHidden(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (done: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      done();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(new UsageError('cancelled')));
        value = ch === '\u007f' || ch === '\b' ? [...value].slice(0, -1).join('') : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

function siteUrl(value: string | undefined): string {
  const raw = value ?? DEFAULT_SITE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base-url must be an http or https URL, not "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash)
    throw new UsageError(`--base-url must be an http or https URL without query, not "${raw}"`);
  return url.href.replace(/\/+$/, '');
}

/** What a command reads besides its arguments, and where its remarks go; tests give their own. */
export interface CliInput {
  /** The password for `account set-password` (default: stdin). */
  readPassword?: () => Promise<string>;
  clock?: Clock;
  /** A remark for the operator, never part of the answer (default: a line on stderr). */
  say?: (line: string) => void;
}

/** Runs one command against the store; returns what goes to stdout. */
export async function run(store: AuthStore, argv: string[], input: CliInput = {}): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      plan: { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      daily: { type: 'string' },
      monthly: { type: 'string' },
      burst: { type: 'string' },
      count: { type: 'string' },
      'base-url': { type: 'string' },
      grace: { type: 'string' },
      key: { type: 'string' },
    },
  });
  const accounts = () => new AccountStore(store, { clock: input.clock ?? systemClock });
  const say = input.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const [group, action, ...args] = positionals;
  const arg = (i: number, what: string) => {
    const v = args[i];
    if (!v) throw new UsageError(`missing ${what}`);
    return v;
  };
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'account create':
      if (!values.plan) throw new UsageError('--plan is required');
      return store.createAccount(values.plan, values.name);
    case 'account set-plan':
      await store.setPlan(arg(0, '<account-id>'), arg(1, '<plan>'));
      return '';
    case 'account suspend':
      await store.setSuspended(arg(0, '<account-id>'), true);
      return '';
    case 'account reactivate':
      await store.setSuspended(arg(0, '<account-id>'), false);
      return '';
    case 'account set-password': {
      const [account, email] = [arg(0, '<account-id>'), arg(1, '<email>')];
      const password = await (input.readPassword ?? readPasswordFromStdin)();
      await accounts().setPassword(account, email, password);
      say(`account ${account} signs in as ${normaliseEmail(email)}; its sessions ended`);
      return '';
    }
    case 'account invite': {
      const [account, email] = [arg(0, '<account-id>'), arg(1, '<email>')];
      const base = siteUrl(values['base-url']);
      const invite = await accounts().createInvite(account, email);
      say(
        `invite to account ${account} for ${normaliseEmail(email)}: works once, until ${invite.expiresAt.toISOString()}`,
      );
      return `${base}/account/invite/${invite.code}`;
    }
    case 'token issue': {
      const expiresAt = parseExpiry(values['expires-in'], values['expires-at']);
      const issued = await store.issueToken(arg(0, '<account-id>'), { name: values.name, expiresAt });
      return issued.token;
    }
    case 'token list':
      return table((await store.listTokens(arg(0, '<account-id>'))) as unknown as Record<string, unknown>[]);
    case 'token revoke':
      await store.revokeToken(arg(0, '<token-id | token>'));
      return '';
    case 'token rotate': {
      const graceMs = values.grace === undefined ? undefined : parseDuration(values.grace, '--grace');
      const rotated = await store.rotateToken(arg(0, '<token-id | token>'), { graceMs });
      say(
        `token ${rotated.replaced} ${graceMs ? `expires at ${rotated.oldEndsAt.toISOString()}` : 'revoked'}; new token ${rotated.id} under key ${store.tagKeys.issuing}`,
      );
      return rotated.token;
    }
    case 'token outdated': {
      if (values.key !== undefined && !/^([0-9A-Za-z]{2}|legacy)$/.test(values.key))
        throw new UsageError(`--key must be a 2-character key id or legacy, not "${values.key}"`);
      const rows = await store.outdatedTokens({ keyId: values.key });
      return table(
        rows.map((r) => ({ ...r, tag_key_id: r.tag_key_id ?? 'legacy' })) as unknown as Record<
          string,
          unknown
        >[],
      );
    }
    case 'plan list':
      return table((await store.listPlans()) as unknown as Record<string, unknown>[]);
    case 'plan create':
      await store.createPlan(arg(0, '<plan>'), {
        daily: parseCap(values.daily, '--daily'),
        monthly: parseCap(values.monthly, '--monthly'),
        // Absent: SPEC 8's 60 a minute; `none`: no burst cap.
        burst: values.burst === undefined ? 60 : (parseBurst(values.burst) ?? null),
      });
      return '';
    case 'plan set-caps':
      await store.setPlanCaps(arg(0, '<plan>'), {
        daily: parseCap(values.daily, '--daily'),
        monthly: parseCap(values.monthly, '--monthly'),
        burst: parseBurst(values.burst),
      });
      return '';
    case 'demo-token': {
      const account = await store.createAccount(values.plan ?? 'free', 'demo');
      say(`account ${account} on plan ${values.plan ?? 'free'}`);
      return (await store.issueToken(account, { name: 'demo' })).token;
    }
    case 'token-pool': {
      if (!values.plan) throw new UsageError('--plan is required');
      const count = Number(values.count);
      if (!/^\d{1,5}$/.test(values.count ?? '') || count < 1 || count > 10_000)
        throw new UsageError(`--count must be a whole number from 1 to 10000, not "${values.count}"`);
      const tokens: string[] = [];
      for (let i = 0; i < count; i++) {
        const account = await store.createAccount(values.plan, `pool ${i + 1}`);
        tokens.push((await store.issueToken(account, { name: 'pool' })).token);
        if ((i + 1) % 500 === 0) say(`${i + 1} of ${count} tokens issued`);
      }
      return tokens.join('\n');
    }
    default:
      throw new UsageError(
        group ? `unknown command "${[group, action].filter(Boolean).join(' ')}"` : 'no command given',
      );
  }
}

if (isEntryPoint(import.meta.url)) {
  await runServiceCli({
    name: 'auth-admin',
    usage: USAGE,
    defaultSchema: 'auth',
    migrationsDir: new URL('../migrations/', import.meta.url),
    config: authConfig,
    refusal: (err) => (err instanceof AdminError ? err.message : undefined),
    run: ({ argv, pool, config }) =>
      run(
        new AuthStore(pool, config.TOKEN_HASH_SECRET, outboxChannel(config.DB_SCHEMA), config.TOKEN_TAG_KEYS),
        argv,
      ),
  });
}
