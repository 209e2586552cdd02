import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { metric } from '../metrics.ts';
import { platform } from './client.ts';
import { SiteSession, uniqueEmail } from './site-session.ts';

const exec = promisify(execFile);
const PASSWORD = 'correct horse battery staple';
const opsPort = Number(new URL(platform.gatewayOpsUrl).port);

/** Headers that differ between any two answers, whatever they say. */
const VARYING = new Set(['date', 'request-id', 'x-request-id', 'set-cookie', 'content-length', 'keep-alive']);

/** An answer as a subscriber (or someone probing for accounts) could compare it, its CSRF token aside. */
function comparable(res: Response & { html: string }, email: string) {
  return {
    status: res.status,
    headers: Object.fromEntries([...res.headers].filter(([k]) => !VARYING.has(k))),
    cookies: res.headers
      .getSetCookie()
      .map((c) => c.split('=')[0])
      .sort(),
    body: res.html
      .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value="…"')
      .replaceAll(email, '<email>'),
  };
}

describe('sign-up does not tell whether an address has an account', () => {
  it('answers a new address, the same address again and another new one alike, and signs none in', async () => {
    const address = uniqueEmail();
    const signUp = async (email: string, password: string) => {
      const s = new SiteSession('198.51.100.40');
      await s.get('/account/sign-up');
      return s.post('/account/sign-up', { email, password });
    };
    const first = await signUp(address, PASSWORD);
    const again = await signUp(address, `${PASSWORD} but another`);
    const other = uniqueEmail();
    const fresh = await signUp(other, PASSWORD);

    expect(comparable(again, address)).toEqual(comparable(first, address));
    expect(comparable(fresh, other)).toEqual(comparable(first, address));
    expect(first.status).toBe(200);
    expect(first.headers.getSetCookie().some((c) => c.startsWith('mdp_session='))).toBe(false);
    // The next step, said without saying which case this was: sign in, the address filled in.
    expect(first.html).toContain('<h1>Sign in</h1>');
    expect(first.html).toContain(`If ${address} had no account here, it has one now`);
    expect(first.html).toMatch(new RegExp(`name="email" type="email" value="${address}"`));
    expect(first.html).not.toMatch(/exists|already taken|Sign in instead/i);

    // The first sign-up made the account; the second changed nothing.
    expect((await new SiteSession('198.51.100.41').signIn(address, PASSWORD)).status).toBe(303);
    expect((await new SiteSession('198.51.100.41').signIn(address, `${PASSWORD} but another`)).status).toBe(
      401,
    );
    expect((await new SiteSession('198.51.100.41').signIn(other, PASSWORD)).status).toBe(303);
  });

  it('still says what is wrong with a field, which depends on the form alone', async () => {
    const s = new SiteSession('198.51.100.42');
    await s.get('/account/sign-up');
    const short = await s.post('/account/sign-up', { email: uniqueEmail(), password: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toMatch(/id="f-password-error">[^<]*12/);
  });
});

describe('the gateway counts the site and the reference under their own names', () => {
  it('names each route and says why a form was refused', async () => {
    const series = (labels: Record<string, string>) => metric(opsPort, 'http_requests_total', labels);
    const expected: [Record<string, string>, number][] = [
      [{ route: 'site_sign_in', method: 'GET', status: '200', code: '' }, 2],
      [{ route: 'site_sign_in', method: 'POST', status: '401', code: 'wrong_credentials' }, 1],
      [{ route: 'site_sign_in', method: 'POST', status: '403', code: 'csrf_invalid' }, 1],
      [{ route: 'site_sign_in', method: 'POST', status: '303', code: '' }, 1],
      [{ route: 'site_sign_up', method: 'GET', status: '200', code: '' }, 1],
      [{ route: 'site_sign_up', method: 'POST', status: '200', code: '' }, 1],
      [{ route: 'site_tokens', method: 'GET', status: '303', code: 'sign_in_required' }, 1],
      [{ route: 'site_tokens', method: 'GET', status: '200', code: '' }, 1],
      [{ route: 'site_tokens', method: 'POST', status: '400', code: 'invalid_input' }, 1],
      [{ route: 'site_usage', method: 'GET', status: '200', code: '' }, 1],
      [{ route: 'site_home', method: 'GET', status: '303', code: '' }, 1],
      [{ route: 'site_asset', method: 'GET', status: '200', code: '' }, 1],
      [{ route: 'site_not_found', method: 'GET', status: '404', code: 'page_not_found' }, 1],
      [{ route: 'docs', method: 'GET', status: '200', code: '' }, 1],
      [{ route: 'docs_asset', method: 'GET', status: '200', code: '' }, 1],
    ];
    const before = await Promise.all(expected.map(([labels]) => series(labels)));

    const visitor = new SiteSession('198.51.100.43');
    expect((await visitor.get('/account/tokens')).status).toBe(303);
    expect((await visitor.signIn(uniqueEmail(), PASSWORD)).status).toBe(401);
    await visitor.get('/account/sign-in');
    expect(
      (await visitor.post('/account/sign-in', { _csrf: null, email: uniqueEmail(), password: PASSWORD }))
        .status,
    ).toBe(403);
    const subscriber = new SiteSession('198.51.100.44');
    await subscriber.signUp(PASSWORD);
    expect((await subscriber.get('/account')).status).toBe(303);
    expect((await subscriber.get('/account/tokens')).status).toBe(200);
    expect((await subscriber.post('/account/tokens', { name: '', expires: '' })).status).toBe(400);
    const usage = await subscriber.get('/account/usage');
    expect(usage.status).toBe(200);
    const css = /href="(\/account\/assets\/site\.[0-9a-f]+\.css)"/.exec(usage.html)![1]!;
    expect((await subscriber.get(css)).status).toBe(200);
    expect((await subscriber.get('/account/no-such-page')).status).toBe(404);
    const docs = await fetch(`${platform.baseUrl}/docs`);
    const init = /src="(\/docs\/assets\/init\.[0-9a-f]+\.js)"/.exec(await docs.text())![1]!;
    expect((await fetch(`${platform.baseUrl}${init}`)).status).toBe(200);

    const after = await Promise.all(expected.map(([labels]) => series(labels)));
    // Other files' tests may visit the site at the same time: at least ours are counted, under these.
    expected.forEach(([labels, n], i) => {
      expect(after[i]! - before[i]!, JSON.stringify(labels)).toBeGreaterThanOrEqual(n);
    });
    // No page of the site or the reference is counted as an unknown route any more: every "unmatched"
    // answer is a refusal (the API's 404s and 405s), never a page served or a form answered.
    for (const status of ['200', '303', '401', '403'])
      expect(await series({ route: 'unmatched', status }), `unmatched ${status}`).toBe(0);

    const text = await (await fetch(`${platform.gatewayOpsUrl}/metrics`)).text();
    const names = new Set(
      [...text.matchAll(/^http_requests_total\{route="((?:site|docs)[a-z_]*)"/gm)].map((m) => m[1]!),
    );
    console.log(`site and reference routes in http_requests_total: ${[...names].sort().join(', ')}`);
    expect([...names]).toEqual(
      expect.arrayContaining([
        'site_sign_in',
        'site_sign_up',
        'site_tokens',
        'site_usage',
        'site_home',
        'site_asset',
        'site_not_found',
        'docs',
        'docs_asset',
      ]),
    );
  });
});

describe('HEAD, headers and the icon', () => {
  it('answers HEAD wherever GET answers on the site and the reference: same status and headers, no body', async () => {
    const s = new SiteSession('198.51.100.45');
    await s.signUp(PASSWORD);
    const signIn = await new SiteSession('198.51.100.45').get('/account/sign-in');
    const docs = await (await fetch(`${platform.baseUrl}/docs`)).text();
    const paths = [
      '/account',
      '/account/sign-in',
      '/account/sign-up',
      '/account/tokens',
      '/account/usage',
      '/account/invite/not-a-code',
      '/account/no-such-page',
      /href="(\/account\/assets\/site\.[0-9a-f]+\.css)"/.exec(signIn.html)![1]!,
      /href="(\/account\/assets\/icon\.[0-9a-f]+\.svg)"/.exec(signIn.html)![1]!,
      '/docs',
      /src="(\/docs\/assets\/init\.[0-9a-f]+\.js)"/.exec(docs)![1]!,
    ];
    const cookie = [...s.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const path of paths) {
      const ask = (method: string) =>
        fetch(`${platform.baseUrl}${path}`, { method, headers: { cookie }, redirect: 'manual' });
      const get = await ask('GET');
      const body = Buffer.from(await get.arrayBuffer());
      const head = await ask('HEAD');
      expect(head.status, path).toBe(get.status);
      expect(head.status, path).not.toBe(405);
      // Content-Length is the GET's, as sent (an asset may go compressed: fetch decodes the GET's body).
      for (const name of [
        'content-type',
        'content-length',
        'content-encoding',
        'location',
        'cache-control',
        'content-security-policy',
      ])
        expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
      if (get.headers.get('content-encoding') === null)
        expect(Number(head.headers.get('content-length')), path).toBe(body.length);
      expect((await head.arrayBuffer()).byteLength, path).toBe(0);
    }
  });

  it('refuses HEAD on the API, /v1/openapi.json included, as SPEC 1 says: 405 method_not_allowed, Allow: GET', async () => {
    for (const path of ['/v1/openapi.json', '/v1/stocks?q=ARAVALIHOU']) {
      const head = await fetch(`${platform.baseUrl}${path}`, { method: 'HEAD' });
      expect(head.status, path).toBe(405);
      expect(head.headers.get('allow'), path).toContain('GET');
    }
  });

  it('sends /docs with the security headers of the account pages', async () => {
    const account = await fetch(`${platform.baseUrl}/account/sign-in`);
    for (const method of ['GET', 'HEAD']) {
      const docs = await fetch(`${platform.baseUrl}/docs`, { method });
      expect(docs.status).toBe(200);
      for (const name of ['x-content-type-options', 'referrer-policy']) {
        expect(account.headers.get(name), name).toBeTruthy();
        expect(docs.headers.get(name), `${method} /docs ${name}`).toBe(account.headers.get(name));
      }
      expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(docs.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('serves the icon every page links to, so no page asks for a missing /favicon.ico', async () => {
    const signedOut = new SiteSession('198.51.100.46');
    const signedIn = new SiteSession('198.51.100.46');
    await signedIn.signUp(PASSWORD);
    const pages: [SiteSession, string][] = [
      [signedOut, '/account/sign-in'],
      [signedOut, '/account/sign-up'],
      [signedOut, '/account/invite/not-a-code'],
      [signedIn, '/account/tokens'],
      [signedIn, '/account/usage'],
      [signedIn, '/account/nope'],
    ];
    const icons = new Set<string>();
    for (const [s, path] of pages) {
      const page = await s.get(path);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      const icon = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(page.html)?.[1];
      expect(icon, path).toBeDefined();
      icons.add(icon!);
    }
    const docs = await (await fetch(`${platform.baseUrl}/docs`)).text();
    icons.add(/<link rel="icon" href="([^"]+)"/.exec(docs)?.[1] ?? '/favicon.ico');
    expect(icons.size).toBe(1);
    const res = await fetch(`${platform.baseUrl}${[...icons][0]}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\s*$/);
  });
});

describe("the new-token page's example", () => {
  const zsh = ['/usr/bin/zsh', '/bin/zsh'].find((p) => existsSync(p));

  it('works pasted into bash (and zsh where installed): it sets TOKEN, then calls the API with it', async () => {
    const s = new SiteSession('198.51.100.47');
    await s.signUp(PASSWORD);
    const { token, page } = await s.createToken('shell example');
    const shown = /<code id="try-it">([\s\S]*?)<\/code>/
      .exec(page)![1]!
      .replaceAll('&#39;', "'")
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&amp;', '&');
    const lines = shown.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`export TOKEN='${token}'`);
    expect(lines[1]).toMatch(/^curl -H "Authorization: Bearer \$TOKEN" '[^']+\/v1\/stocks\?q=ARAVALIHOU'$/);
    expect(page).toMatch(/sets <code>TOKEN<\/code>/);

    // Parsed, then run as pasted (no TOKEN in the environment before), in a shell that refuses an
    // unmatched pattern as zsh does (bash's failglob), and in zsh itself when the machine has it.
    await exec('bash', ['-n', '-c', shown]);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' };
    const shells: [string, string[]][] = [['bash', ['-O', 'failglob', '-c', shown]]];
    if (zsh) {
      await exec(zsh, ['-n', '-c', shown]);
      shells.push([zsh, ['-f', '-c', shown]]);
    }
    for (const [shell, args] of shells) {
      const { stdout } = await exec(shell, args, { env });
      const body = JSON.parse(stdout) as { data: { symbol: string }[] };
      expect(body.data[0]?.symbol, shell).toBe('ARAVALIHOU');
    }
  });
});
