import type { auth } from '@mdp/proto';
import { ACCOUNT_BOUNDS as B } from '@mdp/tokens';
import { ASSETS } from './assets.ts';
import { type Html, html } from './html.ts';
import { csrfField, field, formatIst, notice, page, type SignedIn } from './layout.ts';

/** What a form said was wrong, by field name; `form` is for what belongs to no single field. */
export type FormErrors = Partial<Record<'email' | 'password' | 'name' | 'expires' | 'form', string>>;

const PASSWORD_HINT = `${B.passwordMinLength} to ${B.passwordMaxLength} characters. A passphrase of a few words is fine.`;

export function signInPage(o: { csrf: string; email?: string; errors?: FormErrors; info?: string }): string {
  const e = o.errors ?? {};
  return page(
    'Sign in',
    html`${notice(e.form, 'bad')}${notice(o.info)}
<form class="card" method="post" action="/account/sign-in" novalidate>
  ${csrfField(o.csrf)}
  ${field({ name: 'email', label: 'E-mail address', type: 'email', value: o.email ?? '', autocomplete: 'username', required: true, maxLength: B.emailMaxLength, error: e.email })}
  ${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true, maxLength: B.passwordMaxLength, error: e.password })}
  <button type="submit">Sign in</button>
</form>
<p>No account yet? <a href="/account/sign-up">Create one</a>; it starts on the free plan.</p>`,
  );
}

/**
 * Sign-up's answer to every form it accepts, whether or not the address already had an account: the
 * same status, the same words (they name only what was typed) and no session, so that nobody learns
 * from it who has an account here. The next step is signing in, with the address filled in.
 */
export function signedUpPage(o: { csrf: string; email: string }): string {
  return signInPage({
    csrf: o.csrf,
    email: o.email,
    info: `If ${o.email} had no account here, it has one now, on the free plan, with the password you chose. If it had one already, nothing about it has changed. Either way, sign in with its password below.`,
  });
}

export function signUpPage(o: { csrf: string; email?: string; errors?: FormErrors }): string {
  const e = o.errors ?? {};
  return page(
    'Create an account',
    html`${notice(e.form, 'bad')}
<form class="card" method="post" action="/account/sign-up" novalidate>
  ${csrfField(o.csrf)}
  ${field({ name: 'email', label: 'E-mail address', type: 'email', value: o.email ?? '', autocomplete: 'email', required: true, maxLength: B.emailMaxLength, error: e.email })}
  ${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, minLength: B.passwordMinLength, maxLength: B.passwordMaxLength, hint: PASSWORD_HINT, error: e.password })}
  <button type="submit">Create the account</button>
</form>
<p>Already have one? <a href="/account/sign-in">Sign in</a>.</p>`,
  );
}

export function invitePage(o: { csrf: string; code: string; errors?: FormErrors }): string {
  const e = o.errors ?? {};
  return page(
    'Set your password',
    html`${notice(e.form, 'bad')}
<p>An operator has created an account for you. Choose a password to sign in.</p>
<form class="card" method="post" action="/account/invite/${encodeURIComponent(o.code)}" novalidate>
  ${csrfField(o.csrf)}
  ${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, minLength: B.passwordMinLength, maxLength: B.passwordMaxLength, hint: PASSWORD_HINT, error: e.password })}
  <button type="submit">Set the password and sign in</button>
</form>`,
  );
}

function tokenState(t: auth.TokenInfo, now: number): string {
  if (t.revoked_at_ms !== undefined) return `revoked ${formatIst(t.revoked_at_ms)}`;
  if (t.expires_at_ms !== undefined && t.expires_at_ms <= now) return 'expired';
  return 'active';
}

function createTokenForm(csrf: string, errors: FormErrors, name = '', expires = ''): Html {
  return html`<form class="card" method="post" action="/account/tokens" novalidate>
  ${csrfField(csrf)}
  ${field({ name: 'name', label: 'Name', type: 'text', value: name, required: true, maxLength: B.tokenNameMaxLength, hint: 'Say where it will be used, e.g. "laptop" or "trading bot".', error: errors.name })}
  ${field({ name: 'expires', label: 'Expires on (optional)', type: 'date', value: expires, hint: `The token stops working at the end of this day (IST), at most ${B.tokenExpiryMaxDays} days from today. Leave empty for no expiry.`, error: errors.expires })}
  <button type="submit">Create the token</button>
</form>`;
}

export function tokensPage(o: {
  user: SignedIn;
  tokens: auth.TokenInfo[];
  now: number;
  info?: string;
  errors?: FormErrors;
  name?: string;
  expires?: string;
}): string {
  const e = o.errors ?? {};
  const rows = o.tokens.map((t) => {
    const state = tokenState(t, o.now);
    return html`<tr role="row">
  <td role="cell" data-label="Name">${t.name || '(unnamed)'}</td>
  <td role="cell" data-label="Starts with"><code>${t.display_prefix}…</code></td>
  <td role="cell" data-label="Created">${formatIst(t.created_at_ms)}</td>
  <td role="cell" data-label="Last used" data-last-used>${t.last_used_at_ms === undefined ? 'never' : formatIst(t.last_used_at_ms)}</td>
  <td role="cell" data-label="Expires">${t.expires_at_ms === undefined ? 'never' : formatIst(t.expires_at_ms)}</td>
  <td role="cell" data-label="State">${state}</td>
  <td role="cell" class="action">${
    state === 'active'
      ? html`<form method="post" action="/account/tokens/${t.token_id}/revoke">${csrfField(o.user.csrf)}<button type="submit" class="danger" aria-label="Revoke ${t.name || t.display_prefix}">Revoke</button></form>`
      : ''
  }</td>
</tr>`;
  });
  return page(
    'API tokens',
    html`${notice(o.info, 'good')}${notice(e.form, 'bad')}
<p>Send a token as <code>Authorization: Bearer &lt;token&gt;</code>. A token is shown once, when it is created; only its first characters are kept for you to recognise it. Revoking one stops it at every gateway within a second.</p>
<h2>Your tokens</h2>
${
  o.tokens.length === 0
    ? html`<p>No tokens yet.</p>`
    : // On a phone each token is a card of labelled lines (the stylesheet's table.stack); the roles keep
      // it a table for screen readers whatever its display.
      html`<div class="table-wrap"><table class="stack" role="table">
<thead role="rowgroup"><tr role="row"><th role="columnheader" scope="col">Name</th><th role="columnheader" scope="col">Starts with</th><th role="columnheader" scope="col">Created</th><th role="columnheader" scope="col">Last used</th><th role="columnheader" scope="col">Expires</th><th role="columnheader" scope="col">State</th><th role="columnheader" scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody role="rowgroup">${rows}</tbody></table></div>`
}
<h2>Create a token</h2>
${createTokenForm(o.user.csrf, e, o.name, o.expires)}`,
    o.user,
  );
}

/** A word for a POSIX shell (bash, zsh): single-quoted, so nothing in it is expanded or globbed. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The token page's example, as lines to paste into bash or zsh: the token in an environment variable
 * first, then a call that reads it. The URL is quoted (zsh reads an unquoted `?` as a pattern and stops
 * with "no matches found").
 */
function tryItCommands(token: string, origin: string): string {
  return [
    `export TOKEN=${shellQuote(token)}`,
    `curl -H "Authorization: Bearer $TOKEN" ${shellQuote(`${origin}/v1/stocks?q=ARAVALIHOU`)}`,
  ].join('\n');
}

/** The one page that ever holds a token: not cached, not redirected to, never shown again. */
export function tokenCreatedPage(o: {
  user: SignedIn;
  name: string;
  token: string;
  expiresAtMs?: number;
  /** Where the API is, as the browser reached it, for the example. */
  origin: string;
}): string {
  return page(
    'Your new token',
    html`<section class="card">
<p><strong>Copy it now: it will not be shown again.</strong> Anyone holding it can spend your quota; keep it out of code repositories.</p>
<label for="new-token">Token “${o.name}”${o.expiresAtMs === undefined ? '' : `, expires ${formatIst(o.expiresAtMs)}`}</label>
<div class="token-box">
  <input id="new-token" type="text" readonly value="${o.token}" autocomplete="off" spellcheck="false">
  <button type="button" data-copy="new-token" hidden>Copy</button>
</div>
<p id="new-token-status" role="status" class="hint"></p>
<p>Try it in a terminal (bash or zsh): the first line sets <code>TOKEN</code> to this token, the second calls the API with it.</p>
<pre class="example"><code id="try-it">${tryItCommands(o.token, o.origin)}</code></pre>
</section>
<p><a class="button" href="/account/tokens">Done</a></p>`,
    o.user,
    [ASSETS.copyJs.path],
  );
}

export function errorPage(status: number, message: string, user?: SignedIn): string {
  return page(
    status >= 500 ? 'Something went wrong' : 'That did not work',
    html`${notice(message, 'bad')}<p><a href="/account">Back to your account</a></p>`,
    user,
  );
}
