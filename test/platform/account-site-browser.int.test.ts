import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from './client.ts';
import { uniqueEmail } from './site-session.ts';

/** Screenshots of every page, kept as test artefacts (CI keeps .local/artefacts). */
const ARTEFACTS = join(process.cwd(), '.local/artefacts/account-site');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Pixels the page is wider than the window (run in the page; the test's tsconfig has no DOM types). */
const HORIZONTAL_OVERFLOW = 'document.documentElement.scrollWidth - window.innerWidth';

let browser: Browser;
/** Requests the pages made to anywhere but the platform: there must be none (no CDN, no fonts). */
const elsewhere: string[] = [];

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

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const origin = new URL(platform.baseUrl).origin;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

describe('the account web site in a real browser', () => {
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
    await page.getByRole('button', { name: 'Create the token' }).click();
    await page.getByRole('heading', { name: 'Your new token' }).waitFor();
    const token = await page.locator('#new-token').inputValue();
    // Tagged (issue 41): a 2-character key id, 32 random characters and a 16-character tag.
    expect(token).toMatch(/^mdp_[0-9A-Za-z]{50}$/);
    // The copy button appears with JavaScript and says what it did.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page
      .locator('#new-token-status')
      .filter({ hasText: /Copied|Ctrl\+C/ })
      .waitFor();
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
    expect(await page.locator('[data-figure="day-used"]').textContent()).toBe('1');
    expect(await page.locator('[data-figure="plan"]').textContent()).toBe('free');
    // The page says what /v1/me/usage says at the same moment.
    const usage = await page.evaluate(async (t) => {
      const res = await fetch('/v1/me/usage', { headers: { authorization: `Bearer ${t}` } });
      return ((await res.json()) as { data: { day: { used: number; limit: number } } }).data;
    }, token);
    await page.reload();
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
    await shot(page, '07-docs');
    expect(elsewhere).toEqual([]);
  });

  it('is readable on a phone: no horizontal scrolling on the sign-in and usage pages', async () => {
    const page = await newPage({ width: 375, height: 740 });
    await page.goto(`${platform.baseUrl}/account/sign-up`);
    await page.getByLabel('E-mail address').fill(uniqueEmail());
    await page.getByLabel('Password').fill('a long enough passphrase');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    const overflow = await page.evaluate(HORIZONTAL_OVERFLOW);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, '08-usage-phone');
    await page.goto(`${platform.baseUrl}/account/tokens`);
    expect(await page.evaluate(HORIZONTAL_OVERFLOW)).toBeLessThanOrEqual(0);
    await shot(page, '09-tokens-phone');
    expect(elsewhere).toEqual([]);
  });

  it('lets /docs try a request with a bearer token', async () => {
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
    await page.locator('input[placeholder="Token"]:visible').first().fill(platform.token);
    await tryIt.click();
    await page.getByRole('button', { name: /^Send/ }).first().click();
    await page.getByText('200 OK').first().waitFor({ timeout: 10_000 });
    await shot(page, '10-docs-try-it');
    expect(sent).toEqual([{ status: 200, authorization: `Bearer ${platform.token}` }]);
    expect(elsewhere).toEqual([]);
  });
});
