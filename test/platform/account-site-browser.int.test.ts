import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { platform } from './client.ts';
import { uniqueEmail } from './site-session.ts';

/** Screenshots of every page, kept as test artefacts (CI keeps .local/artefacts). */
const ARTEFACTS = join(process.cwd(), '.local/artefacts/account-site');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A clipboard in the page that keeps what is written to it in `window.copied`. */
const RECORDING_CLIPBOARD = `window.copied = [];
navigator.clipboard.writeText = async (text) => { window.copied.push(text); };`;

/** Pixels the page is wider than the window (run in the page; the test's tsconfig has no DOM types). */
const HORIZONTAL_OVERFLOW = 'document.documentElement.scrollWidth - window.innerWidth';

let browser: Browser;
/** Requests the pages made to anywhere but the platform: there must be none (no CDN, no fonts). */
const elsewhere: string[] = [];
/** What a page's own load asked of the platform (styles, scripts, images) and was refused: none. */
const refusedLoads: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTEFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

afterAll(async () => {
  await browser?.close();
});

/**
 * What a page asked of the platform and when, printed when its test fails: a step that hangs shows as
 * the request still unanswered (a test timeout says nothing of where it was).
 */
function keepTimeline(page: Page): void {
  const start = Date.now();
  const lines: string[] = [];
  const pending = new Map<Request, number>();
  const at = (t: number) => `+${((t - start) / 1000).toFixed(1)}s`;
  const what = (r: Request) => `${r.method()} ${new URL(r.url()).pathname}`;
  const done = (r: Request, outcome: string) => {
    const sent = pending.get(r) ?? start;
    pending.delete(r);
    lines.push(`${at(sent)} ${what(r)} ${outcome} in ${Date.now() - sent} ms`);
  };
  page.on('request', (r) => pending.set(r, Date.now()));
  page.on('requestfinished', (r) => void r.response().then((res) => done(r, `→ ${res?.status() ?? '?'}`)));
  page.on('requestfailed', (r) => done(r, `failed (${r.failure()?.errorText ?? '?'})`));
  onTestFailed(async () => {
    const open = [...pending].map(([r, t]) => `${at(t)} ${what(r)} unanswered after ${Date.now() - t} ms`);
    console.error(
      `the page at ${at(Date.now())}: ${page.url()}\n${[...lines.slice(-40), ...open].join('\n')}\n${await pageState(page)}`,
    );
  });
}

/**
 * What the page itself says when a test fails: its status lines and whether it has focus, or that its
 * renderer did not answer a script in 2 s (a hung page, where no wait in the test could have ended).
 */
async function pageState(page: Page): Promise<string> {
  const state = page.evaluate(
    `JSON.stringify({ focus: document.hasFocus(), status: [...document.querySelectorAll('[role=status]')].map((e) => e.id + ': ' + e.textContent) })`,
  );
  const silent = new Promise<string>((resolve) =>
    setTimeout(() => resolve('no answer in 2 s'), 2000).unref(),
  );
  return `its renderer: ${await Promise.race([state.catch((e: Error) => `failed (${e.message})`), silent])}`;
}

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  keepTimeline(page);
  const origin = new URL(platform.baseUrl).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  page.on('response', (res) => {
    const type = res.request().resourceType();
    // Documents and the tests' own fetch() calls may be refused on purpose (a wrong password, a revoked token).
    if (res.status() >= 400 && type !== 'document' && type !== 'fetch' && type !== 'xhr')
      refusedLoads.push(`${res.status()} ${type} ${res.url()}`);
  });
  return page;
}

/**
 * The page's icon as a browser finds it (its `<link rel="icon">`, else `/favicon.ico`), fetched: status
 * and type. Browsers fetch it outside the page, where the test's request listener does not see it.
 */
const ICON = `(async () => {
  const href = document.querySelector('link[rel~="icon"]')?.href ?? new URL('/favicon.ico', location.href).href;
  const res = await fetch(href);
  return { href, status: res.status, type: res.headers.get('content-type') };
})()`;

async function expectIcon(page: Page): Promise<void> {
  const icon = (await page.evaluate(ICON)) as { href: string; status: number; type: string };
  expect(icon, page.url()).toMatchObject({ status: 200, type: expect.stringMatching(/^image\//) });
}

/** Each chart's box and its tick labels' boxes and rendered font sizes (CSS px after the SVG's scaling). */
const CHART_LABELS = `[...document.querySelectorAll('figure.chart > svg')].map((svg) => {
  const box = svg.getBoundingClientRect();
  const ticks = [...svg.querySelectorAll('text')].filter((t) => t.classList.contains('tick')).map((t) => {
    const r = t.getBoundingClientRect();
    return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, left: r.left, right: r.right };
  });
  return { id: svg.id, left: box.left, right: box.right, ticks, viewport: window.innerWidth };
})`;

/** The elements that reach past the right edge of the window, innermost last (for a failure's message). */
const BEYOND_SCREEN = `[...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth)
  .slice(-6)
  .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : '') + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')`;

interface ChartLabels {
  id: string;
  left: number;
  right: number;
  ticks: { text: string; px: number; left: number; right: number }[];
  viewport: number;
}

/**
 * The page a navigation ended on is `title`: checked once it has loaded, so an error page fails at once
 * with what it says (a wait for the expected heading would time out saying nothing of it).
 */
async function expectTitle(page: Page, title: string): Promise<void> {
  // The page asked for, or one that says what went wrong (an alert), whichever comes.
  await page.getByRole('heading', { name: title, level: 1 }).or(page.getByRole('alert')).first().waitFor();
  const heading = await page.locator('h1').first().textContent();
  expect(heading, `${page.url()}: ${await page.locator('main').textContent()}`).toBe(title);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

// A journey of some thirty steps in a browser on a machine the whole suite shares: 12 s alone, several
// times that in a busy CI run. Each step's own wait (Playwright's 30 s) fails first, naming the step.
describe('the account web site in a real browser', { timeout: 120_000 }, () => {
  it('signs up, creates a token, uses it, sees the usage, revokes it, and reads /docs', async () => {
    const page = await newPage();
    const email = uniqueEmail();
    const password = 'a long enough passphrase';

    await page.goto(`${platform.baseUrl}/account`);
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await shot(page, '01-sign-in');

    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create the account' }).click();
    // The error is said in words next to the field.
    const passwordError = page.locator('#f-password-error');
    await passwordError.waitFor();
    expect(await passwordError.textContent()).toMatch(/12/);
    await shot(page, '02-sign-up-error');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create the account' }).click();
    // Sign-up says the same whether or not the address had an account, and asks to sign in.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain(`If ${email} had no account here`);
    expect(await page.getByLabel('E-mail address').inputValue()).toBe(email);
    await shot(page, '02-signed-up');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    expect(await page.locator('[data-figure="day-used"]').textContent()).toBe('0');

    // Sign out, then sign in with the keyboard only.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('You are signed out.');
    await page.getByLabel('E-mail address').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Usage' }).waitFor();

    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByLabel('Name').fill('browser test');
    // The copy script held back: until it has run there is no Copy button to press (CI's loaded run
    // clicked one the stylesheet had shown before its script arrived, and nothing happened).
    let releaseCopyScript = () => {};
    const copyScriptHeld = new Promise<void>((resolve) => {
      releaseCopyScript = resolve;
    });
    await page.route('**/account/assets/copy.*.js', async (route) => {
      await copyScriptHeld;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Create the token' }).click();
    await page.getByRole('heading', { name: 'Your new token' }).waitFor();
    const token = await page.locator('#new-token').inputValue();
    // Tagged (issue 41): a 2-character key id, 32 random characters and a 16-character tag.
    expect(token).toMatch(/^mdp_[0-9A-Za-z]{50}$/);
    expect(await page.locator('button[data-copy]').isVisible()).toBe(false);
    releaseCopyScript();
    // The copy button appears with JavaScript, puts the whole token on the clipboard and says so. The
    // clipboard is the page's own, so the test reads what the site's script wrote (what is tested is
    // that script, not the machine's clipboard).
    await page.evaluate(RECORDING_CLIPBOARD);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('#new-token-status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('window.copied')).toEqual([token]);
    await shot(page, '03-token-created');

    // The token works from the page's own JavaScript, as a subscriber's script would call the API.
    const call = await page.evaluate(async (t) => {
      const res = await fetch('/v1/stocks?q=ARAVALIHOU', { headers: { authorization: `Bearer ${t}` } });
      return { status: res.status, body: (await res.json()) as { data: { symbol: string }[] } };
    }, token);
    expect(call.status).toBe(200);
    expect(call.body.data[0]?.symbol).toBe('ARAVALIHOU');

    await page.getByRole('link', { name: 'Done' }).click();
    const row = page.getByRole('row', { name: /browser test/ });
    expect(await row.textContent()).toContain(token.slice(0, 8));
    await shot(page, '04-tokens');

    await page.getByRole('link', { name: 'Usage' }).click();
    await expectTitle(page, 'Usage');
    expect(await page.locator('[data-figure="day-used"]').textContent()).toBe('1');
    expect(await page.locator('[data-figure="plan"]').textContent()).toBe('free');
    // The page says what /v1/me/usage says at the same moment.
    const usage = await page.evaluate(async (t) => {
      const res = await fetch('/v1/me/usage', { headers: { authorization: `Bearer ${t}` } });
      return ((await res.json()) as { data: { day: { used: number; limit: number } } }).data;
    }, token);
    await page.reload();
    await expectTitle(page, 'Usage');
    expect(await page.locator('[data-figure="day-used"]').textContent()).toBe(String(usage.day.used));
    const text = await page.locator('main').textContent();
    expect(text).toContain(`${usage.day.used} used of ${usage.day.limit}`);
    expect(text).toContain('60 requests in any minute');
    expect(await page.locator('#chart-days rect.bar').count()).toBe(30);
    expect(await page.locator('#chart-hours rect.bar').count()).toBe(24);
    await shot(page, '05-usage');

    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('button', { name: 'Revoke browser test' }).click();
    await page.getByText('The token is revoked').waitFor();
    const refused = await page.evaluate(async (t) => {
      for (let i = 0; i < 100; i++) {
        const res = await fetch('/v1/stocks?q=ARAVALIHOU', { headers: { authorization: `Bearer ${t}` } });
        if (res.status === 401) return 401;
        await new Promise((r) => setTimeout(r, 50));
      }
      return 200;
    }, token);
    expect(refused).toBe(401);
    expect(await page.content()).not.toContain(token);
    await shot(page, '06-revoked');

    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL('**/docs');
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await expectIcon(page);
    await shot(page, '07-docs');
    expect(elsewhere).toEqual([]);
    expect(refusedLoads).toEqual([]);
  });

  it('fits a phone with and without tokens: no page wider than the screen, chart labels legible', async () => {
    const page = await newPage({ width: 390, height: 844 });
    const email = uniqueEmail();
    const password = 'a long enough passphrase';
    const seen: string[] = [];
    /** What a subscriber checks on each page: it does not pan sideways, and it has its icon. */
    const fits = async (name: string) => {
      // As the subscriber sees it: styled (a click that navigates does not wait for the stylesheet).
      await page.waitForLoadState('load');
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      // On failure, the message names what reaches past the screen.
      const beyond = width > 390 ? await page.evaluate(BEYOND_SCREEN) : [];
      expect(width, `${name} (${page.url()}): ${JSON.stringify(beyond)}`).toBeLessThanOrEqual(390);
      expect(await page.evaluate(HORIZONTAL_OVERFLOW), name).toBeLessThanOrEqual(0);
      await expectIcon(page);
      await shot(page, `phone-${name}`);
      seen.push(name);
    };

    await page.goto(`${platform.baseUrl}/account/sign-in`);
    await fits('sign-in');
    await page.goto(`${platform.baseUrl}/account/sign-up`);
    await fits('sign-up');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await fits('signed-up');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await fits('usage-before-tokens');
    await page.goto(`${platform.baseUrl}/account/tokens`);
    expect(await page.locator('main').textContent()).toContain('No tokens yet.');
    await fits('tokens-none');

    // A token with a long name and an expiry: the widest row the table has.
    await page.getByLabel('Name').fill('trading bot on the office laptop, second copy');
    await page
      .getByLabel('Expires on (optional)')
      .fill(new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Create the token' }).click();
    await page.getByRole('heading', { name: 'Your new token' }).waitFor();
    await fits('token-created');
    // A clipboard that never answers (a permission prompt left open): after its 2 s the page gives up,
    // selects the token and says how to copy it, rather than leaving the person with no answer.
    await page.evaluate('navigator.clipboard.writeText = () => new Promise(() => {})');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.locator('#new-token-status').filter({ hasText: 'Ctrl+C' }).waitFor({ timeout: 10_000 });
    expect(
      await page.evaluate(
        "(f => f.selectionStart === 0 && f.selectionEnd === f.value.length)(document.getElementById('new-token'))",
      ),
    ).toBe(true);
    const token = await page.locator('#new-token').inputValue();
    const call = await page.evaluate(async (t) => {
      const res = await fetch('/v1/stocks?q=ARAVALIHOU', { headers: { authorization: `Bearer ${t}` } });
      return res.status;
    }, token);
    expect(call).toBe(200);
    await page.getByRole('link', { name: 'Done' }).click();
    await page.getByRole('row', { name: /trading bot/ }).waitFor();
    await fits('tokens');
    // Each token's details and its Revoke button are on the screen, not beyond a sideways scroll.
    const revoke = (await page.getByRole('button', { name: /^Revoke trading bot/ }).boundingBox())!;
    expect(revoke.x).toBeGreaterThanOrEqual(0);
    expect(revoke.x + revoke.width).toBeLessThanOrEqual(390);
    const expires = (await page.getByRole('cell', { name: /IST$/ }).last().boundingBox())!;
    expect(expires.x + expires.width).toBeLessThanOrEqual(390);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await fits('usage');

    // The charts' labels: drawn at a legible size, inside their chart, none over another.
    const charts = (await page.evaluate(CHART_LABELS)) as ChartLabels[];
    expect(charts.map((c) => c.id)).toEqual(['chart-days', 'chart-hours']);
    for (const chart of charts) {
      expect(chart.right, chart.id).toBeLessThanOrEqual(chart.viewport);
      expect(chart.ticks.length, chart.id).toBeGreaterThanOrEqual(4);
      for (const t of chart.ticks) {
        expect(t.px, `${chart.id} "${t.text}"`).toBeGreaterThanOrEqual(11);
        expect(t.left, `${chart.id} "${t.text}"`).toBeGreaterThanOrEqual(chart.left - 0.5);
        expect(t.right, `${chart.id} "${t.text}"`).toBeLessThanOrEqual(chart.right + 0.5);
      }
      const byLeft = [...chart.ticks].sort((a, b) => a.left - b.left);
      for (let i = 1; i < byLeft.length; i++)
        expect(
          byLeft[i]!.left,
          `${chart.id} "${byLeft[i - 1]!.text}" and "${byLeft[i]!.text}"`,
        ).toBeGreaterThan(byLeft[i - 1]!.right);
    }
    // The last bar's label (today, this hour) is there in full.
    const last = charts.map((c) => c.ticks.at(-1)!);
    expect(last[0]!.text).toMatch(/^\d{1,2} [A-Z][a-z]{2}$/);
    expect(last[1]!.text).toMatch(/^\d{2}:00$/);

    await page.goto(`${platform.baseUrl}/account/no-such-page`);
    await fits('not-found');
    await page.goto(`${platform.baseUrl}/docs`);
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await fits('docs');
    expect(seen).toEqual([
      'sign-in',
      'sign-up',
      'signed-up',
      'usage-before-tokens',
      'tokens-none',
      'token-created',
      'tokens',
      'usage',
      'not-found',
      'docs',
    ]);
    expect(elsewhere).toEqual([]);
    expect(refusedLoads).toEqual([]);
  });

  it('lets /docs try a request with a bearer token', async () => {
    // An account of its own: the shared token is leased under every other platform test's load, and a
    // leased account's usage read waits (2 s at most, then a 503) for its shard to record that load too.
    const token = platform.spare.platform[6]!;
    const page = await newPage();
    const sent: { status: number; authorization: string | undefined }[] = [];
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/v1/me/usage')
        sent.push({ status: res.status(), authorization: res.request().headers().authorization });
    });
    // Scalar renders the reference from /v1/openapi.json; the bearer scheme the document declares
    // takes the token, and "Test Request" then "Send" call the platform that served the page.
    await page.goto(`${platform.baseUrl}/docs#tag/account/GET/v1/me/usage`);
    const tryIt = page.getByRole('button', { name: /Test Request \(get \/v1\/me\/usage\)/ });
    await tryIt.waitFor({ timeout: 30_000 });
    await page.locator('input[placeholder="Token"]:visible').first().fill(token);
    await tryIt.click();
    await page.getByRole('button', { name: /^Send/ }).first().click();
    await page.getByText('200 OK').first().waitFor({ timeout: 10_000 });
    await shot(page, '10-docs-try-it');
    expect(sent).toEqual([{ status: 200, authorization: `Bearer ${token}` }]);
    expect(elsewhere).toEqual([]);
    expect(refusedLoads).toEqual([]);
  });
});
