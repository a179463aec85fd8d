/**
 * Two-step verification in a real browser with JavaScript turned off (Debian's Chromium through
 * playwright-core): set up an authenticator app from the key on the page (codes computed by otpauth, as a
 * phone would), see the recovery codes once, sign in with a code, then with a recovery code. Screenshots of
 * each page under test-artifacts/screenshots/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startAppCallback, type AppCallback } from '../helpers/app-callback.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const browserTest = (name: string, fn: () => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

describe('two-step verification in a real browser without JavaScript', () => {
  let latch: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: { email: string };
  let password: string;
  let totp: TOTP;
  let recoveryCodes: string[] = [];
  let appCallback: AppCallback;

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer();
    appCallback = await startAppCallback();
    browser = await launchChromium();
    context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1000, height: 800 } });
    page = await context.newPage();
    ({ user, password } = await latch.createUser({ email: 'katherine@example.com', name: 'Katherine Johnson' }));
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
    await appCallback?.close();
  });

  const passwordStep = async () => {
    await context.clearCookies();
    await page.goto(`${latch.baseUrl}/login?return_to=%2Faccount`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${latch.baseUrl}/login/two-step`);
  };

  browserTest('set up the app from the key on the page and see the recovery codes once', async () => {
    await page.goto(`${latch.baseUrl}/login`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.goto(`${latch.baseUrl}/account`);
    await page.getByRole('link', { name: 'Set up two-step verification' }).click();
    assert.equal(await page.getByRole('img', { name: /QR code to add Latch/ }).isVisible(), true);
    assert.equal(await page.getByRole('button', { name: 'Add a passkey' }).count(), 0, 'no passkey button without JavaScript');
    assert.match(await page.locator('#passkey-status').innerText(), /needs JavaScript/);
    await screenshot(page, 'two-step-01-set-up');
    const key = (await page.getByLabel('Key to type in instead').inputValue()).replace(/\s/g, '');
    totp = new TOTP({ secret: Secret.fromBase32(key), algorithm: 'SHA1', digits: 6, period: 30 });
    await page.getByLabel('6-digit code from the app').fill('000000' === totp.generate() ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    assert.match(await page.locator('#code-error').innerText(), /not right/);
    await screenshot(page, 'two-step-02-wrong-code');
    await page.getByLabel('6-digit code from the app').fill(totp.generate());
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.getByRole('heading', { name: 'Two-step verification is on' }).waitFor();
    recoveryCodes = (await page.locator('#recovery-codes').innerText()).split('\n').map((line) => line.trim()).filter(Boolean);
    assert.equal(recoveryCodes.length, 10);
    await screenshot(page, 'two-step-03-recovery-codes');
    await page.getByRole('link', { name: 'I have saved my recovery codes' }).click();
    assert.match(await page.locator('body').innerText(), /10 codes are left/);
    await screenshot(page, 'two-step-04-on');
  });

  browserTest('an app asks for a second factor (acr_values) of the password-only session: the second step only, then back to the app', async () => {
    // Still the session of the password sign-in that set the app up: single-factor.
    const app = await latch.createClient({ name: 'Step-up App', redirectUris: [appCallback.url] });
    const { challenge } = pkcePair();
    await page.goto(
      authorizeUrl(latch.baseUrl, {
        client_id: app.clientId,
        redirect_uri: appCallback.url,
        response_type: 'code',
        scope: 'openid profile',
        state: 'st',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        acr_values: 'https://refeds.org/profile/mfa',
      }),
    );
    await page.waitForURL(`${latch.baseUrl}/login/two-step`);
    assert.match(await page.locator('body').innerText(), /The app you are signing in to asks for a second step/);
    assert.equal(await page.getByLabel('Password').count(), 0, 'not the password again');
    await screenshot(page, 'two-step-05a-step-up');
    // A recovery code (the app's codes of this time step are spent): in a step-up it leads back to the app.
    await page.getByRole('link', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${appCallback.url}?`));
    const back = new URL(page.url());
    assert.ok(back.searchParams.get('code'), 'a code for the app');
    assert.equal(back.searchParams.get('state'), 'st');
  });

  browserTest('sign in: the password, then a code from the app', async () => {
    await passwordStep();
    assert.match(await page.locator('body').innerText(), /Enter the 6-digit code from your authenticator app/);
    await screenshot(page, 'two-step-05-code-page');
    // The next step's code: the one of this step was used to turn the app on (each is accepted once).
    await page.getByLabel('6-digit code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${latch.baseUrl}/account`);
    assert.match(await page.locator('body').innerText(), /Two-step verification\s*On/);
  });

  browserTest('sign in: the password, then "Use a recovery code"', async () => {
    await passwordStep();
    await page.getByRole('link', { name: 'Use a recovery code' }).click();
    await screenshot(page, 'two-step-06-recovery-page');
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${latch.baseUrl}/account/two-step`);
    // Ten, less the one of the step-up and this one.
    assert.match(await page.locator('body').innerText(), /8 codes are left/);
  });
});
