/**
 * The playground in Debian's Chromium (issue 22 item 3): a developer with JavaScript turned off registers an
 * app, opens "Try sign-in", adds the test callback, signs in through the app's real flow, pastes the secret and
 * sees every step with its checks ticked; each page of the way passes axe-core (no serious or critical
 * violation), at desktop and phone widths. Then the console's reload rule and its redirect URL comparison
 * (issue 19 item 4): a loopback URL on another port and path is named as differing in the path.
 * Screenshots: test-artifacts/screenshots/playground-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const browserTest = (name: string, fn: (t: TestContext) => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

async function checkPage(t: TestContext, page: Page, name: string): Promise<void> {
  await screenshot(page, `playground-${name}`);
  const report = await checkAccessibility(page, `playground ${name}`);
  for (const violation of report.violations) t.diagnostic(`${name}: ${violation.id} (${violation.impact}) at ${violation.targets.slice(0, 3).join(', ')}`);
}

describe('the playground and the console in Chromium, without JavaScript', () => {
  let latch: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let clientId = '';
  let clientSecret = '';

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer();
    browser = await launchChromium();
    // Everything below works with scripts off: forms, links and redirects only.
    context = await browser.newContext({ viewport: { width: 1000, height: 800 }, javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    const { user, password } = await latch.createUser({ name: 'Ada Developer' });
    await page.goto(`${latch.baseUrl}/login?return_to=${encodeURIComponent('/developer')}`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${latch.baseUrl}/developer`);
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  browserTest('register an app; the one-time secret page, then "Try sign-in" and adding the test callback', async (t) => {
    await page.getByLabel('App name').fill('Orbit Notes');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('https://orbit.example.test/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Orbit Notes is registered' }).waitFor();
    assert.match(page.url(), /\/developer\/apps\/[^/]+\/new-secret$/, 'post/redirect/get: the secret page has an address of its own');
    clientId = await page.locator('#client_id').inputValue();
    clientSecret = await page.locator('#client_secret').inputValue();
    // A reload finds the secret gone: it leads to the app page, which says why.
    await page.reload();
    await page.waitForURL(/notice=secret-shown/);
    assert.ok(!(await page.locator('body').innerText()).includes(clientSecret));

    await page.getByRole('link', { name: 'Try sign-in' }).click();
    await page.getByRole('heading', { name: 'Try sign-in: Orbit Notes', level: 1 }).waitFor();
    await checkPage(t, page, '1-intro');
    await page.getByRole('button', { name: 'Add the test callback' }).click();
    await page.waitForURL(/notice=callback-added/);
    assert.match(await page.locator('main').innerText(), new RegExp(`Test callback.*${clientId}/playground/callback`, 's'));
  });

  browserTest('the sign-in runs step by step: authorization request, consent, the code and state, the exchange, every check ticked', async (t) => {
    await page.getByRole('button', { name: 'Start a sign-in' }).click();
    await page.getByRole('heading', { name: 'The authorization request' }).waitFor();
    await checkPage(t, page, '2-authorization-request');
    const authorizeUrl = (await page.locator('#playground_authorize_url').innerText()).trim();
    assert.ok(authorizeUrl.includes(`client_id=${clientId}`));

    await page.getByRole('link', { name: 'Continue to sign-in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Back at the redirect URL' }).waitFor();
    assert.match(page.url(), /\/playground$/, 'the code is not left in the address bar');
    assert.match(await page.locator('#playground_code').innerText(), /^latch_ac_/);
    await checkPage(t, page, '3-code-and-state');

    await page.getByLabel('Client secret').fill(clientSecret);
    await page.getByRole('button', { name: 'Exchange the code' }).click();
    await page.getByRole('heading', { name: 'The id_token, decoded and checked' }).waitFor();
    const checks = await page.getByRole('list', { name: 'id_token checks' }).innerText();
    for (const name of ['signature', 'iss', 'aud', 'nonce', 'exp']) assert.match(checks, new RegExp(`✓ Passed ${name}:`));
    assert.match(await page.locator('#playground_user').innerText(), /"name": "Ada Developer"/);
    assert.ok(!(await page.content()).includes(clientSecret), 'the pasted secret is not shown back');
    await checkPage(t, page, '4-all-steps');

    // The same page at a phone's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await checkPage(t, page, '5-all-steps-phone');
    await page.setViewportSize({ width: 1000, height: 800 });
  });
  browserTest('the console names a redirect URL mismatch as the matcher sees it, and reloading after "Add this redirect URL" adds nothing twice', async (t) => {
    await page.goto(`${latch.baseUrl}/developer`);
    await page.getByLabel('App name').fill('Loopback Tool');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('http://127.0.0.1:3000/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Loopback Tool is registered' }).waitFor();
    const loopbackClientId = await page.locator('#client_id').inputValue();
    const sent = 'http://127.0.0.1:8080/auth/callback';
    await page.goto(`${latch.baseUrl}/oauth2/authorize?response_type=code&client_id=${loopbackClientId}&redirect_uri=${encodeURIComponent(sent)}&scope=openid`);
    await page.goto(`${latch.baseUrl}/developer/apps/${loopbackClientId}`);
    const failures = page.getByRole('region', { name: 'Recent failed requests' });
    const text = await failures.innerText();
    assert.match(text, /They differ in\s+the path: \/auth\/callback sent, \/callback registered \(The ports were not compared/);
    await checkPage(t, page, '6-redirect-mismatch');
    await failures.getByRole('button', { name: 'Add this redirect URL' }).click();
    await page.waitForURL(/notice=redirect-added/);
    await page.reload();
    const uris = (await page.getByLabel('Redirect URLs', { exact: true }).inputValue()).split('\n');
    assert.deepEqual(uris, ['http://127.0.0.1:3000/callback', sent], 'added once');
    assert.match(await failures.innerText(), /registered: the same request would pass today/);
  });
});
