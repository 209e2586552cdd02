import { describe, expect, it } from 'vitest';
import { platform } from './client.ts';
import { SiteSession, uniqueEmail } from './site-session.ts';

const PASSWORD = 'correct horse battery staple';

async function apiStatus(token: string): Promise<number> {
  const res = await fetch(`${platform.baseUrl}/v1/stocks?q=ARAVALIHOU`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Polls until the API refuses the token (revocation reaches gateways by event). */
async function refusedWithin(token: string, ms: number): Promise<number> {
  const until = Date.now() + ms;
  for (;;) {
    const s = await apiStatus(token);
    if (s === 401 || Date.now() > until) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('account site security', () => {
  it('refuses a wrong password in words next to the field, without a session', async () => {
    const a = new SiteSession('198.51.100.10');
    const email = await a.signUp(PASSWORD);
    const b = new SiteSession('198.51.100.10');
    const res = await b.signIn(email, `${PASSWORD}!`);
    expect(res.status).toBe(401);
    expect(res.html).toContain('The e-mail address or the password is wrong.');
    expect(res.html).toMatch(/aria-invalid="true" aria-describedby="f-password-error"/);
    expect(b.cookies.has('mdp_session')).toBe(false);
    // An unknown address reads the same: nobody learns who has an account.
    const c = new SiteSession('198.51.100.10');
    const unknown = await c.signIn(uniqueEmail(), PASSWORD);
    expect(unknown.status).toBe(401);
    expect(unknown.html).toContain('The e-mail address or the password is wrong.');
    expect((await b.get('/account/tokens')).status).toBe(303);
  });

  it('refuses a form without its CSRF token, and nothing happens', async () => {
    const s = new SiteSession('198.51.100.11');
    const email = await s.signUp(PASSWORD);
    await s.get('/account/tokens');
    const res = await s.post('/account/tokens', { _csrf: null, name: 'no csrf' });
    expect(res.status).toBe(403);
    expect(res.html).toContain('This form has expired or was not sent from this site.');
    expect(res.html).not.toContain('mdp_');
    expect((await s.get('/account/tokens')).html).not.toContain('no csrf');

    const anon = new SiteSession('198.51.100.11');
    await anon.get('/account/sign-in');
    expect((await anon.post('/account/sign-in', { _csrf: null, email, password: PASSWORD })).status).toBe(
      403,
    );
    expect(anon.cookies.has('mdp_session')).toBe(false);
    // A token made up by hand is no better than none.
    expect((await s.post('/account/tokens', { _csrf: 'made-up', name: 'forged' })).status).toBe(403);
  });

  it("one account's session cannot act with another's CSRF token nor touch another's tokens", async () => {
    const a = new SiteSession('198.51.100.12');
    const b = new SiteSession('198.51.100.12');
    await a.signUp(PASSWORD);
    await b.signUp(PASSWORD);
    const aToken = await a.createToken('a-laptop');
    await a.get('/account/tokens');
    const aCsrf = a.csrf()!;

    // B's session with a CSRF token minted for A's session: refused (tokens are bound to the session).
    await b.get('/account/tokens');
    expect((await b.post('/account/tokens', { _csrf: aCsrf, name: 'cross' })).status).toBe(403);
    // B's session (with B's own CSRF token) naming A's token: not found, and A's token still works.
    await b.get('/account/tokens');
    const res = await b.post(`/account/tokens/${aToken.id}/revoke`, {});
    expect(res.status).toBe(404);
    expect(await apiStatus(aToken.token)).toBe(200);
    // A's session cookie in B's jar acts as A, never as B: the tokens page lists A's tokens only.
    const mixed = new SiteSession('198.51.100.12');
    mixed.cookies.set('mdp_session', a.cookies.get('mdp_session')!);
    const page = await mixed.get('/account/tokens');
    expect(page.html).toContain('a-laptop');
  });

  it('a signed-out session is dead, and signing out everywhere ends every session', async () => {
    const first = new SiteSession('198.51.100.13');
    const email = await first.signUp(PASSWORD);
    const cookie = first.cookies.get('mdp_session')!;
    await first.get('/account/usage');
    const out = await first.post('/account/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/account/sign-in?done=signed-out');
    const replay = new SiteSession('198.51.100.13');
    replay.cookies.set('mdp_session', cookie);
    const refused = await replay.get('/account/tokens');
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/account/sign-in');

    const laptop = new SiteSession('198.51.100.13');
    const phone = new SiteSession('198.51.100.13');
    expect((await laptop.signIn(email, PASSWORD)).status).toBe(303);
    expect((await phone.signIn(email, PASSWORD)).status).toBe(303);
    expect((await phone.get('/account/tokens')).status).toBe(200);
    await laptop.get('/account/usage');
    expect((await laptop.post('/account/sign-out', { everywhere: '1' })).status).toBe(303);
    expect((await phone.get('/account/tokens')).status).toBe(303);
  });

  it('stops brute force on an account, even with the right password, and tells when to retry', async () => {
    const owner = new SiteSession('198.51.100.14');
    const email = await owner.signUp(PASSWORD);
    const attacker = new SiteSession('198.51.100.15');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attacker.signIn(email, `guess-number-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const blocked = await attacker.signIn(email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.html).toMatch(/Too many attempts\. Try again in \d+ minutes?\./);
    expect(attacker.cookies.has('mdp_session')).toBe(false);
    // From anywhere: the limit is the account's.
    expect((await new SiteSession('198.51.100.16').signIn(email, PASSWORD)).status).toBe(429);
  });

  it('stops one address guessing across many accounts, not other addresses', async () => {
    const owner = new SiteSession('198.51.100.17');
    const email = await owner.signUp(PASSWORD);
    const guesser = new SiteSession('203.0.113.99');
    for (let i = 0; i < 20; i++) expect((await guesser.signIn(uniqueEmail(), PASSWORD)).status).toBe(401);
    expect((await guesser.signIn(email, PASSWORD)).status).toBe(429);
    expect((await new SiteSession('198.51.100.18').signIn(email, PASSWORD)).status).toBe(303);
  });

  it('shows a token once: never in any page after its creation page, which is not cached', async () => {
    const s = new SiteSession('198.51.100.19');
    await s.signUp(PASSWORD);
    const created = await s.createToken('shown-once');
    expect(created.page).toContain(created.token);
    for (const path of ['/account/tokens', '/account/usage', '/account/tokens?done=revoked']) {
      const page = await s.get(path);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain(created.token);
    }
    expect((await s.get('/account/tokens')).html).toContain(`<code>${created.token.slice(0, 8)}`);
    // "Last used" follows the API: gateways report token use every few seconds.
    const lastUsed = async () =>
      /<td [^>]*data-last-used>([^<]*)<\/td>/.exec((await s.get('/account/tokens')).html)?.[1];
    expect(await lastUsed()).toBe('never');
    expect(await apiStatus(created.token)).toBe(200);
    const until = Date.now() + 15_000;
    while ((await lastUsed()) === 'never' && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(await lastUsed()).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} IST$/);
    // The revoke form goes through CSRF too, and revocation reaches the gateway quickly.
    await s.get('/account/tokens');
    const revoked = await s.post(`/account/tokens/${created.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(await refusedWithin(created.token, 5_000)).toBe(401);
    const after = await s.get('/account/tokens?done=revoked');
    expect(after.html).toContain('The token is revoked');
    expect(after.html).not.toContain(created.token);
  });

  it("lets an operator's invitation set the password once, then sign in with it", async () => {
    const invited = new SiteSession('198.51.100.22');
    const path = new URL(platform.invite.url).pathname;
    expect((await invited.get(path)).html).toContain('Set your password');
    const short = await invited.post(path, { password: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toMatch(/id="f-password-error"[^>]*>[^<]*12/);
    const set = await invited.post(path, { password: PASSWORD });
    expect(set.status).toBe(303);
    const usage = await invited.get('/account/usage');
    expect(usage.status).toBe(200);
    expect(usage.html).toContain('<strong data-figure="plan">pro</strong>');
    // The link works once.
    const again = new SiteSession('198.51.100.22');
    await again.get(path);
    const reused = await again.post(path, { password: `${PASSWORD} again` });
    expect(reused.status).toBe(404);
    expect(reused.html).toContain('This invitation is not valid');
    expect((await new SiteSession('198.51.100.22').signIn(platform.invite.email, PASSWORD)).status).toBe(303);
  });

  it('says next to the field what is wrong with a token form, and creates nothing', async () => {
    const s = new SiteSession('198.51.100.23');
    await s.signUp(PASSWORD);
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ name: '', expires: '' }, 'name', /./],
      [{ name: 'x'.repeat(201), expires: '' }, 'name', /200/],
      [{ name: 'bad date', expires: 'next week' }, 'expires', /YYYY-MM-DD/],
      [{ name: 'past', expires: '2020-01-01' }, 'expires', /./],
      [{ name: 'too far', expires: '2099-01-01' }, 'expires', /730/],
    ];
    for (const [form, fieldName, words] of cases) {
      await s.get('/account/tokens');
      const res = await s.post('/account/tokens', form);
      expect(res.status, JSON.stringify(form)).toBe(400);
      const error = new RegExp(`id="f-${fieldName}-error">([^<]+)<`).exec(res.html)?.[1];
      expect(error, JSON.stringify(form)).toMatch(words);
      expect(res.html).not.toMatch(/value="mdp_/);
    }
    expect((await s.get('/account/tokens')).html).toContain('No tokens yet.');
  });

  it('serves its pages with a strict policy and no CORS, and keeps cookies to /account', async () => {
    const s = new SiteSession('198.51.100.20');
    await s.signUp(PASSWORD);
    const res = await fetch(`${platform.baseUrl}/account/sign-in`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const signUp = await new SiteSession('198.51.100.20').get('/account/sign-up');
    const csrfCookie = signUp.headers.getSetCookie().find((c) => c.startsWith('mdp_csrf='))!;
    expect(csrfCookie).toMatch(/Path=\/account/);
    expect(csrfCookie).toMatch(/HttpOnly/);
    const login = new SiteSession('198.51.100.20');
    await login.get('/account/sign-in');
    const body = new URLSearchParams({
      _csrf: login.csrf()!,
      email: 'x@example.com',
      password: 'nope-nope-nope',
    });
    const r = await fetch(`${platform.baseUrl}/account/sign-in`, {
      method: 'POST',
      headers: {
        cookie: [...login.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': '198.51.100.20',
      },
      body: body.toString(),
      redirect: 'manual',
    });
    expect(r.status).toBe(401);
    // Behind TLS (the trusted proxy says https) both cookies are Secure; over plain HTTP they cannot be.
    const tls = { 'x-forwarded-for': '198.51.100.21', 'x-forwarded-proto': 'https' };
    const form = await fetch(`${platform.baseUrl}/account/sign-up`, { headers: tls });
    const csrfSecure = form.headers.getSetCookie().find((c) => c.startsWith('mdp_csrf='))!;
    expect(csrfSecure).toMatch(/; Secure/);
    expect(csrfCookie).not.toMatch(/; Secure/);
    const post = async (path: string, page: Response, fields: Record<string, string>) =>
      fetch(`${platform.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          ...tls,
          cookie: csrfSecure.split(';')[0]!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          _csrf: /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!,
          ...fields,
        }).toString(),
        redirect: 'manual',
      });
    const email = uniqueEmail();
    // Sign-up answers with the sign-in form (no session); signing in from it starts one.
    const signedUp = await post('/account/sign-up', form, { email, password: PASSWORD });
    expect(signedUp.status).toBe(200);
    expect(signedUp.headers.getSetCookie().some((c) => c.startsWith('mdp_session='))).toBe(false);
    const signedIn = await post('/account/sign-in', signedUp, { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('mdp_session='))!;
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\/account/);
    // The API keeps its own rules: CORS for any origin, GET only.
    const api = await fetch(`${platform.baseUrl}/v1/openapi.json`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');
  });
});
