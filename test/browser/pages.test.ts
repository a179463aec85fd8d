/**
 * Latch's pages in a real browser (Debian's Chromium through playwright-core), as a person uses them: sign up,
 * verify the email from the development outbox, register an app in the developer console, sign in to the
 * example client and allow or decline, remove the app's access, reset a password. Every page visited is
 * saved as a screenshot under test-artifacts/screenshots/ for people to look at.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot, skipWithoutChromium, solidPng } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startExampleClient, type RunningExampleClient } from '../../examples/client/server.mjs';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'seven brown owls sing at dawn';
const EMAIL = 'ada@example.com';

// Each test carries the skip reason, so that a machine without Chromium reports every browser test as skipped.
const browserTest = (name: string, fn: () => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

describe('Latch in a real browser', () => {
  let latch: TestServer;
  let browser: Browser;
  let app: { clientId: string; clientSecret: string };
  let client: RunningExampleClient;
  /** Access tokens the client app received, recorded from its back-channel calls. */
  const issuedAccessTokens: string[] = [];

  const newPage = async (options: { javaScriptEnabled?: boolean; viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1100, height: 800 }, javaScriptEnabled: options.javaScriptEnabled ?? true });
    return { context, page: await context.newPage() };
  };

  const signInOnLatch = async (page: Page, email: string, password: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  /** Opens the link in the newest mail with this subject, from the development outbox page. */
  const openLinkFromOutbox = async (page: Page, subject: string, path: string) => {
    await page.goto(`${latch.baseUrl}/dev/outbox`);
    const mail = page.getByRole('article').filter({ hasText: subject }).first();
    await mail.getByRole('link', { name: new RegExp(`${path}\\?token=`) }).click();
  };

  let signedUp: { context: BrowserContext; page: Page };

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await client?.close();
    await browser?.close();
    await latch?.stop();
  });

  browserTest('sign up with a clear message for a weak password, then verify the email from the development outbox', async () => {
    signedUp = await newPage();
    const { page } = signedUp;
    await page.goto(latch.baseUrl);
    await screenshot(page, '01-home');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await screenshot(page, '02-sign-up');

    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('password');
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match(await page.locator('#password-error').innerText(), /at least 10 characters/);
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name').inputValue(), 'Ada Lovelace', 'the other fields keep what was typed');
    await screenshot(page, '03-sign-up-weak-password');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/account/);
    assert.match(await page.getByRole('status').innerText(), /We sent you a mail/);
    assert.match(await page.locator('body').innerText(), /not verified/);
    await screenshot(page, '04-account-after-sign-up');

    await page.goto(`${latch.baseUrl}/dev/outbox`);
    await screenshot(page, '05-dev-outbox');
    await openLinkFromOutbox(page, 'Confirm your email address', '/verify-email');
    await page.waitForURL(/\/verify-email\?token=/);
    await screenshot(page, '06-verify-email');
    await page.getByRole('button', { name: 'Confirm email address' }).click();
    await page.getByRole('heading', { name: 'Email address confirmed' }).waitFor();
    await screenshot(page, '07-email-confirmed');
    assert.equal((await latch.storage.users.findByEmail(EMAIL))?.emailVerified, true);
  });

  browserTest('upload an avatar on the account page; it is served from Latch and shown', async () => {
    const { page } = signedUp;
    await page.goto(`${latch.baseUrl}/account`);
    await page.getByLabel('Upload an avatar image').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(96, 96, [46, 125, 50]) });
    await page.getByRole('button', { name: 'Save picture' }).click();
    await page.waitForURL(/notice=avatar-uploaded/);
    const avatar = page.locator('img.avatar');
    const src = (await avatar.getAttribute('src')) ?? '';
    assert.ok(src.startsWith(`${latch.baseUrl}/avatars/`), src);
    assert.ok(await avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 96), 'the image loads');

    await page.getByLabel('Upload an avatar image').setInputFiles({ name: 'not-an-image.png', mimeType: 'image/png', buffer: Buffer.from('<svg onload="alert(1)"/>') });
    await page.getByRole('button', { name: 'Save picture' }).click();
    assert.match(await page.locator('#avatar_file-error').innerText(), /not a PNG, JPEG, GIF or WebP/);
    await page.goto(`${latch.baseUrl}/account`);
    await screenshot(page, '08-account');
  });

  browserTest('register an app in the developer console; the secret is shown once with a copy button and a warning', async () => {
    const { page } = signedUp;
    await page.goto(`${latch.baseUrl}/developer`);
    await screenshot(page, '09-developer-console');
    await page.getByLabel('App name').fill('Example App');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('http://127.0.0.1/callback');
    await page.getByLabel('Homepage URL (optional)').fill('https://example.com');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Example App is registered' }).waitFor();
    const clientId = await page.locator('#client_id').inputValue();
    const clientSecret = await page.locator('#client_secret').inputValue();
    assert.match(clientSecret, /^latch_cs_/);
    assert.match(await page.getByRole('note').innerText(), /only time Latch shows it.*back end/s);
    assert.equal(await page.getByRole('button', { name: 'Copy' }).first().isVisible(), true, 'the copy buttons appear with JavaScript');
    await screenshot(page, '10-app-registered-secret-once');
    app = { clientId, clientSecret };

    await page.getByRole('link', { name: /go to the app/ }).click();
    await page.waitForURL(new RegExp(`/developer/apps/${clientId}$`));
    const text = await page.locator('body').innerText();
    assert.ok(!text.includes(clientSecret), 'the app page never shows the secret again');
    // The curl section is a collapsed <details> (innerText leaves it out): read its text whole.
    const guide = (await page.locator('main').textContent()) ?? '';
    assert.ok(!guide.includes(clientSecret), 'not even in a collapsed section');
    assert.ok(guide.includes(`${latch.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}`), 'the guide has the real authorize URL');
    await screenshot(page, '11-developer-app');

    // The example client from examples/client, on a free port; the loopback redirect URI matches any port.
    client = await startExampleClient({
      issuer: latch.config.issuer,
      port: 0,
      logger: false,
      clientId,
      clientSecret,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (String(input).endsWith('/oauth2/token') && response.ok) {
          const body = (await response.clone().json()) as { access_token: string };
          issuedAccessTokens.push(body.access_token);
        }
        return response;
      },
    });
  });

  browserTest('Deny on the consent page sends the person back to the app, which says they did not allow it', async () => {
    const { context, page } = await newPage();
    await page.goto(client.url);
    await page.getByRole('link', { name: 'Sign in with Latch' }).click();
    await page.waitForURL(/\/login\?/);
    await screenshot(page, '12-sign-in');
    await signInOnLatch(page, EMAIL, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await screenshot(page, '13-consent');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(new RegExp(`^${client.url}/callback`));
    assert.match(await page.locator('#error').innerText(), /did not allow/);
    await screenshot(page, '14-client-after-deny');
    await context.close();
  });

  browserTest('sign in and Allow: the example client shows the user', async () => {
    const { context, page } = await newPage();
    await page.goto(client.url);
    await page.getByRole('link', { name: 'Sign in with Latch' }).click();
    await signInOnLatch(page, EMAIL, PASSWORD);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${client.url}/`);
    assert.equal(await page.locator('#user-name').innerText(), 'Ada Lovelace');
    assert.equal(await page.locator('#user-email').innerText(), EMAIL);
    // The avatar uploaded to Latch shows on the client's own page (served with CORP cross-origin).
    assert.ok(await page.locator('img').first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 96), 'the Latch-hosted avatar loads in the client app');
    await screenshot(page, '15-client-signed-in');
    assert.equal(issuedAccessTokens.length, 1);
    await context.close();
  });

  browserTest('Remove access on the account page: the app’s token stops working', async () => {
    const token = issuedAccessTokens.at(-1) ?? '';
    const userinfo = () => fetch(`${latch.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await userinfo()).status, 200);

    const { page } = signedUp;
    await page.goto(`${latch.baseUrl}/account`);
    assert.match(await page.getByRole('region', { name: 'Connected apps' }).innerText(), /Example App[\s\S]*Can see: Your email address, name and avatar/);
    await screenshot(page, '16-account-connected-app');
    await page.getByRole('button', { name: 'Remove access for Example App' }).click();
    await page.waitForURL(/notice=access-removed/);
    assert.match(await page.getByRole('region', { name: 'Connected apps' }).innerText(), /not allowed any app/);
    assert.equal((await userinfo()).status, 401);
  });

  browserTest('a redirect_uri mismatch appears in the console with the comparison, and one click registers it', async () => {
    const { page } = signedUp;
    const wrong = 'http://localhost:4000/auth/callback';
    await page.goto(`${latch.baseUrl}/oauth2/authorize?response_type=code&client_id=${app.clientId}&redirect_uri=${encodeURIComponent(wrong)}&scope=profile`);
    // The person reads plain words (issue 19 item 2); the technical reason is in the console below.
    assert.match(await page.locator('body').innerText(), /This sign-in link does not work/);
    await screenshot(page, '17-authorize-error-page');

    await page.goto(`${latch.baseUrl}/developer/apps/${app.clientId}`);
    const failures = page.getByRole('region', { name: 'Recent failed requests' });
    assert.ok((await failures.innerText()).includes(wrong));
    await screenshot(page, '18-developer-failed-request');
    await failures.getByRole('button', { name: 'Add this redirect URL' }).first().click();
    await page.waitForURL(/notice=redirect-added/);
    assert.match(await page.getByLabel('Redirect URLs', { exact: true }).inputValue(), /localhost:4000\/auth\/callback/);
  });

  browserTest('password reset: forgot password, link from the outbox, new password, sign in with it', async () => {
    const { context, page } = await newPage();
    await page.goto(`${latch.baseUrl}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await screenshot(page, '19-forgot-password');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await screenshot(page, '20-check-your-email');

    await openLinkFromOutbox(page, 'Reset your Latch password', '/reset-password');
    await page.waitForURL(/\/reset-password\?token=/);
    await screenshot(page, '21-reset-password');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(/\/login\?notice=password-reset/);
    assert.match(await page.getByRole('status').innerText(), /password was changed/);
    await screenshot(page, '22-sign-in-after-reset');
    assert.equal(await page.getByLabel('Email').inputValue(), EMAIL);
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${latch.baseUrl}/`);
    assert.match(await page.locator('body').innerText(), /Signed in as Ada Lovelace/);
    await context.close();
  });

  browserTest('pages fit a phone-width screen without sideways scrolling', async () => {
    const { context, page } = await newPage({ viewport: { width: 375, height: 740 } });
    await page.goto(`${latch.baseUrl}/login`);
    await signInOnLatch(page, EMAIL, NEW_PASSWORD);
    await page.waitForURL(`${latch.baseUrl}/`);
    for (const [path, name] of [
      ['/login', '23-phone-sign-in'],
      ['/account', '24-phone-account'],
      [`/developer/apps/${app.clientId}`, '25-phone-developer-app'],
    ] as const) {
      await page.goto(`${latch.baseUrl}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at 375px`);
      await screenshot(page, name);
    }
    await context.close();
  });

  browserTest('with JavaScript turned off, forms still work and copy buttons stay hidden', async () => {
    const { context, page } = await newPage({ javaScriptEnabled: false });
    await page.goto(`${latch.baseUrl}/login?return_to=${encodeURIComponent('/developer')}`);
    await signInOnLatch(page, EMAIL, NEW_PASSWORD);
    await page.waitForURL(`${latch.baseUrl}/developer`);
    await page.getByLabel('App name').fill('No-JS App');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('https://nojs.example.com/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'No-JS App is registered' }).waitFor();
    assert.match(await page.locator('#client_secret').inputValue(), /^latch_cs_/);
    assert.equal(await page.getByRole('button', { name: 'Copy' }).count(), 0, 'no copy button without JavaScript');
    await context.close();
  });

  browserTest('keyboard focus is visible on form fields and buttons', async () => {
    const { context, page } = await newPage();
    await page.goto(`${latch.baseUrl}/login`);
    await page.getByLabel('Email').focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement;
      const style = getComputedStyle(element);
      return { id: element.id, outlineStyle: style.outlineStyle, outlineWidth: style.outlineWidth };
    });
    assert.equal(focused.id, 'password');
    assert.notEqual(focused.outlineStyle, 'none', 'the focused field has an outline');
    assert.notEqual(focused.outlineWidth, '0px');
    await screenshot(page, '26-keyboard-focus');
    await context.close();
  });

  browserTest('an app sends the person to Latch to sign out: Latch asks, one press of Sign out (no JavaScript), and back at the app with its state', async () => {
    await latch.storage.clients.update(app.clientId, { postLogoutRedirectUris: [`${client.url}/`] }, new Date());
    const { context, page } = await newPage({ javaScriptEnabled: false });
    await page.goto(client.url);
    await page.getByRole('link', { name: 'Sign in with Latch' }).click();
    await signInOnLatch(page, EMAIL, NEW_PASSWORD);
    if (await page.getByRole('button', { name: 'Allow' }).isVisible()) await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${client.url}/`);

    const logout = new URL(`${latch.baseUrl}/oauth2/logout`);
    logout.search = new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: `${client.url}/`, state: 'back from latch' }).toString();
    await page.goto(logout.href);
    await page.getByRole('heading', { name: 'Sign out of Latch?' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Example App asks to sign you out of Latch/);
    await screenshot(page, '27-logout-confirmation');
    // The form's answer redirects to the app: the page's CSP form-action must let the browser follow it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${client.url}/?state=back+from+latch`);

    await page.goto(`${latch.baseUrl}/account`);
    await page.waitForURL(/\/login\?return_to=/);
    await context.close();
  });
});
