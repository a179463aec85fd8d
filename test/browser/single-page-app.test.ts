/**
 * A single-page app in a real browser (issue 18 items 1 and 8; docs/protocol-decisions.md "Public clients and
 * services"): a page served from its own origin sends the person to Latch with PKCE, then calls the token
 * endpoint and userinfo across origins with fetch: the form-urlencoded token request (a simple request) and
 * userinfo with an Authorization header (a preflight) both pass Chromium's CORS checks for the registered origin,
 * and the same page from an origin that is not registered is blocked.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const browserTest = (name: string, fn: () => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

/** The app: / is blank, /callback exchanges the code and calls userinfo, and writes what happened into the page. */
function callbackPage(latchUrl: string, clientId: string): string {
  return `<!doctype html><html><body><script type="module">
const code = new URLSearchParams(location.search).get('code');
try {
  const token = await fetch(${JSON.stringify(latchUrl)} + '/oauth2/token', {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: sessionStorage.getItem('verifier'), client_id: ${JSON.stringify(clientId)}, redirect_uri: location.origin + '/callback' }),
  });
  const tokens = await token.json();
  const userinfo = await fetch(${JSON.stringify(latchUrl)} + '/oauth2/userinfo', { headers: { authorization: 'Bearer ' + tokens.access_token } });
  document.body.dataset.result = JSON.stringify({ tokenStatus: token.status, userinfo: await userinfo.json() });
} catch (error) {
  document.body.dataset.result = JSON.stringify({ error: String(error) });
}
</script></body></html>`;
}

async function startApp(latchUrl: string, clientId: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(request.url?.startsWith('/callback') ? callbackPage(latchUrl, clientId()) : '<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a single-page app calls Latch across origins (Chromium)', () => {
  let latch: TestServer;
  let browser: Browser;
  let registeredApp: { server: Server; origin: string };
  let strangerApp: { server: Server; origin: string };
  let clientId = '';
  let user: { email: string; password: string };

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer();
    registeredApp = await startApp(latch.baseUrl, () => clientId);
    strangerApp = await startApp(latch.baseUrl, () => clientId);
    // A public client whose only redirect URI is on the registered app's origin: the stranger's origin is nobody's.
    const registered = await registerClientOfAnyKind(latch.storage, { name: 'Browser SPA', redirectUris: [`${registeredApp.origin}/callback`], isPublic: true }, { developmentMode: false });
    clientId = registered.client.clientId;
    const created = await latch.createUser();
    user = { email: created.user.email, password: created.password };
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    registeredApp?.server.close();
    strangerApp?.server.close();
    await latch?.stop();
  });

  /** Signs in and allows on Latch's pages, then waits for the app's callback page to report. */
  async function runFlow(page: Page, appOrigin: string, redirectOrigin: string): Promise<Record<string, any>> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await page.goto(`${appOrigin}/`);
    await page.evaluate((value) => sessionStorage.setItem('verifier', value), verifier);
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: `${redirectOrigin}/callback`, scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256' });
    await page.goto(`${latch.baseUrl}/oauth2/authorize?${query}`);
    if (await page.getByLabel('Email').isVisible().catch(() => false)) {
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }
    const allow = page.getByRole('button', { name: 'Allow' });
    if (await allow.isVisible().catch(() => false)) await allow.click();
    await page.waitForURL(`${redirectOrigin}/callback?**`);
    await page.waitForSelector('body[data-result]', { state: 'attached' });
    return JSON.parse((await page.locator('body').getAttribute('data-result')) ?? '{}');
  }

  browserTest('from its registered origin: the token request and userinfo (with a preflight) succeed', async () => {
    const context = await browser.newContext();
    const result = await runFlow(await context.newPage(), registeredApp.origin, registeredApp.origin);
    assert.equal(result.tokenStatus, 200, JSON.stringify(result));
    assert.equal(result.userinfo.email, user.email);
    await context.close();
  });

  browserTest('the same page on an origin that is not registered is blocked by the browser', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The code comes back to the registered callback; the stranger's page then tries to redeem it from its origin.
    const verifier = randomBytes(32).toString('base64url');
    await page.goto(`${strangerApp.origin}/`);
    await page.evaluate((value) => sessionStorage.setItem('verifier', value), verifier);
    await page.goto(`${strangerApp.origin}/callback?code=latch_ac_x`);
    await page.waitForSelector('body[data-result]', { state: 'attached' });
    const result = JSON.parse((await page.locator('body').getAttribute('data-result')) ?? '{}');
    assert.match(result.error ?? '', /Failed to fetch/, JSON.stringify(result));
    await context.close();
  });
});
