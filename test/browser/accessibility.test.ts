/**
 * Every page a person sees on Latch, checked with axe-core in Debian's Chromium (issues 17 item 7, 19): no
 * violation of impact serious or critical (test/helpers/accessibility.ts), signed out and signed in, with the
 * errors and notices a page can show. Each page is saved as test-artifacts/screenshots/a11y-*.png.
 *
 * Latch runs with LATCH_ISSUER=http://localhost:PORT, as in the passkey tests: WebAuthn refuses an IP address
 * as relying-party id, and the passkey list is one of the pages. The tests run in order and build on each
 * other: a person signs up, confirms the email, turns on two-step verification, adds a passkey, uses the
 * developer console, is asked for consent, and finally signs out through an app.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAccessibility, type AccessibilityReport } from '../helpers/accessibility.js';
import { startAppCallback } from '../helpers/app-callback.js';
import { launchChromium, screenshot, skipWithoutChromium, solidPng } from '../helpers/chromium.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const browserTest = (name: string, fn: (t: TestContext) => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

const EMAIL = 'mary@example.com';
const PASSWORD = 'correct horse battery staple';
const RP_CALLBACK = 'https://rp.example.test/callback';
const VIEWPORT = { width: 1000, height: 800 };

/**
 * Screenshot first (a failing check still leaves the picture of the page), then axe. The minor and moderate
 * findings, which do not fail the check, are written to the test's diagnostics for people to weigh.
 */
async function checkPage(t: TestContext, page: Page, name: string): Promise<AccessibilityReport> {
  await screenshot(page, `a11y-${name}`);
  const report = await checkAccessibility(page, name);
  for (const violation of report.violations) t.diagnostic(`${name}: ${violation.id} (${violation.impact}) at ${violation.targets.slice(0, 3).join(', ')}`);
  return report;
}

describe('accessibility of every page (axe-core in Chromium)', () => {
  let latch: TestServer;
  let browser: Browser;
  let origin: string;
  /** The signed-in person's browser: signs up, and stays signed in until the last test. */
  let context: BrowserContext;
  let page: Page;
  let totp: TOTP;
  /** TOTP steps already used: Latch accepts each code once. */
  let lastTotpStep = -1;
  let app: { clientId: string; name: string };

  const freshCode = () => {
    const step = Math.max(Math.floor(Date.now() / 30_000), lastTotpStep + 1);
    lastTotpStep = step;
    return totp.generate({ timestamp: step * 30_000 });
  };

  const newContext = async () => {
    const created = await browser.newContext({ viewport: VIEWPORT });
    // A page that is not there fails its test in seconds, not in playwright's 30.
    created.setDefaultTimeout(10_000);
    return created;
  };

  const fillSignIn = async (target: Page, email: string, password: string) => {
    await target.getByLabel('Email').fill(email);
    await target.getByLabel('Password').fill(password);
    await target.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  /** The newest link to `path` in the development outbox page, for `email`. */
  const linkFromOutbox = async (target: Page, email: string, path: string): Promise<string> => {
    await target.goto(`${origin}/dev/outbox`);
    const href = await target.getByRole('article').filter({ hasText: email }).getByRole('link', { name: new RegExp(`${path}\\?token=`) }).first().getAttribute('href');
    assert.ok(href, `no ${path} link for ${email} in the outbox`);
    return href;
  };

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer({ issuerHost: 'localhost' });
    origin = latch.config.issuer;
    browser = await launchChromium();
    context = await newContext();
    page = await context.newPage();
    await page.route('https://rp.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Back at the app</title><main>app</main></html>' }));
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  browserTest('the check itself: a page with an unlabelled field and an image without text fails, naming the rules', async () => {
    const scratch = await newContext();
    try {
      const blank = await scratch.newPage();
      await blank.setContent('<!doctype html><html lang="en"><title>t</title><main><h1>t</h1><input type="text"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>');
      await assert.rejects(checkAccessibility(blank, 'known-bad'), (error: Error) => {
        assert.match(error.message, /known-bad: 2 serious or critical/);
        assert.match(error.message, /label \(critical\): Form elements must have labels\n\s+elements: input/);
        assert.match(error.message, /image-alt \(critical\)/);
        return true;
      });
    } finally {
      await scratch.close();
    }
  });

  browserTest('signed out: the landing page', async (t) => {
    await page.goto(`${origin}/`);
    await checkPage(t, page, '01-landing-signed-out');
  });

  browserTest('the sign-in page, and the same page with the error of a wrong password', async (t) => {
    await latch.createUser({ email: 'someone@example.com', password: 'the right password 1' });
    await page.goto(`${origin}/login`);
    await checkPage(t, page, '02-sign-in');
    await fillSignIn(page, 'someone@example.com', 'the wrong password');
    await page.getByRole('alert').waitFor();
    await checkPage(t, page, '03-sign-in-wrong-password');
  });

  browserTest('the sign-up page, with a field error, then the account page that welcomes the new account', async (t) => {
    await page.goto(`${origin}/signup`);
    await checkPage(t, page, '04-sign-up');
    // Latch names the first problem it finds: here the password.
    await page.getByLabel('Name').fill('Mary Jackson');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#password-error').waitFor();
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    await checkPage(t, page, '05-sign-up-field-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${origin}/account?notice=welcome`);
    assert.match(await page.locator('body').innerText(), /not verified/);
    await checkPage(t, page, '06-account-welcome-unverified');
  });

  browserTest('the development outbox page, confirming the email address, and a link that cannot be used', async (t) => {
    const link = await linkFromOutbox(page, EMAIL, '/verify-email');
    await checkPage(t, page, '07-dev-outbox');
    await page.goto(link);
    await checkPage(t, page, '08-verify-email');
    await page.getByRole('button', { name: 'Confirm email address' }).click();
    await page.getByRole('heading', { name: 'Email address confirmed' }).waitFor();
    await checkPage(t, page, '09-email-confirmed');
    await page.goto(`${origin}/verify-email?token=not-a-real-token`);
    await checkPage(t, page, '10-verify-email-link-not-usable');
  });

  browserTest('forgot password, check your email, choose a new password (with its error), and a reset link that cannot be used', async (t) => {
    // Another person: a reset signs out every session of the account.
    const { user } = await latch.createUser({ email: 'dorothy@example.com', name: 'Dorothy Vaughan' });
    const other = await newContext();
    try {
      const visitor = await other.newPage();
      await visitor.goto(`${origin}/forgot-password`);
      await checkPage(t, visitor, '11-forgot-password');
      await visitor.getByLabel('Email').fill('not an address');
      await visitor.getByRole('button', { name: 'Send reset link' }).click();
      await visitor.locator('#email-error').waitFor();
      await checkPage(t, visitor, '12-forgot-password-error');
      await visitor.getByLabel('Email').fill(user.email);
      await visitor.getByRole('button', { name: 'Send reset link' }).click();
      await visitor.getByRole('heading', { name: 'Check your email' }).waitFor();
      await checkPage(t, visitor, '13-reset-mail-sent');
      await visitor.goto(await linkFromOutbox(visitor, user.email, '/reset-password'));
      await checkPage(t, visitor, '14-reset-password');
      await visitor.getByLabel('New password').fill('short');
      await visitor.getByRole('button', { name: 'Set new password' }).click();
      await visitor.getByLabel('New password').and(visitor.locator('[aria-invalid=true]')).waitFor();
      await checkPage(t, visitor, '15-reset-password-error');
      await visitor.goto(`${origin}/reset-password?token=not-a-real-token`);
      await checkPage(t, visitor, '16-reset-link-not-usable');
    } finally {
      await other.close();
    }
  });

  browserTest('two-step set-up: the page, a wrong code, the recovery codes shown once, the page with the app on', async (t) => {
    await page.goto(`${origin}/account/two-step`);
    await checkPage(t, page, '17-two-step-set-up');
    const key = (await page.getByLabel('Key to type in instead').first().inputValue()).replace(/\s/g, '');
    totp = new TOTP({ secret: Secret.fromBase32(key), algorithm: 'SHA1', digits: 6, period: 30 });
    await page.getByLabel('6-digit code from the app').fill(totp.generate() === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.locator('#code-error').waitFor();
    await checkPage(t, page, '18-two-step-wrong-code');
    await page.getByLabel('6-digit code from the app').fill(freshCode());
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    await page.getByRole('heading', { name: 'Two-step verification is on' }).waitFor();
    await checkPage(t, page, '19-recovery-codes');
    await page.getByRole('link', { name: 'I have saved my recovery codes' }).click();
    await page.waitForURL(`${origin}/account/two-step`);
    await checkPage(t, page, '20-two-step-on');
  });

  browserTest('passkeys: one added with a virtual authenticator, listed on the two-step page; new recovery codes', async (t) => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    try {
      await page.getByLabel('Name for a new passkey').fill('Work laptop');
      // A wrong proof: the script shows the reason beside the field, tied to it as a server-rendered error is.
      const proof = page.locator('#add-passkey-proof');
      await proof.fill('not my password');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.locator('#add-passkey-proof-error').waitFor();
      assert.equal(await proof.getAttribute('aria-invalid'), 'true');
      assert.match((await proof.getAttribute('aria-describedby')) ?? '', /\badd-passkey-proof-error\b/);
      await checkPage(t, page, '21a-passkey-proof-error');
      await proof.fill(PASSWORD);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.waitForURL(`${origin}/account/two-step?notice=passkey-added`);
      await checkPage(t, page, '21-passkey-added');
    } finally {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
      await cdp.detach();
    }
    // Asking for new codes with a wrong proof shows the field's error; the right one shows the new codes.
    const regenerate = page.locator('form[action="/account/two-step/recovery-codes"]');
    await regenerate.getByLabel('Your password or a code from your authenticator app').fill('not my password');
    await regenerate.getByRole('button', { name: 'Get new recovery codes' }).click();
    await page.locator('#regenerate-proof-error').waitFor();
    await checkPage(t, page, '22-two-step-proof-error');
    await regenerate.getByLabel('Your password or a code from your authenticator app').fill(PASSWORD);
    await regenerate.getByRole('button', { name: 'Get new recovery codes' }).click();
    await page.getByRole('heading', { name: 'Your new recovery codes' }).waitFor();
    await checkPage(t, page, '23-recovery-codes-regenerated');
  });

  browserTest('the second step of signing in: the code page, a wrong code, the recovery code page', async (t) => {
    const other = await newContext();
    try {
      const visitor = await other.newPage();
      await visitor.goto(`${origin}/login?return_to=%2Faccount`);
      await fillSignIn(visitor, EMAIL, PASSWORD);
      await visitor.waitForURL(`${origin}/login/two-step`);
      await checkPage(t, visitor, '24-sign-in-second-step');
      await visitor.getByLabel('6-digit code').fill(totp.generate() === '000000' ? '111111' : '000000');
      await visitor.getByRole('button', { name: 'Verify' }).click();
      await visitor.getByRole('alert').or(visitor.locator('[aria-invalid=true]')).first().waitFor();
      await checkPage(t, visitor, '25-sign-in-second-step-wrong-code');
      await visitor.getByRole('link', { name: 'Use a recovery code' }).click();
      await visitor.getByLabel('Recovery code').waitFor();
      await checkPage(t, visitor, '26-sign-in-recovery-code');
      // Signed in in a second browser: the account page lists two sessions.
      await visitor.goto(`${origin}/login/two-step`);
      await visitor.getByLabel('6-digit code').fill(freshCode());
      await visitor.getByRole('button', { name: 'Verify' }).click();
      await visitor.waitForURL(`${origin}/account`);
    } finally {
      await other.close();
    }
  });

  browserTest('the account page: profile with an uploaded avatar, field errors, password change, sessions, activity', async (t) => {
    await page.goto(`${origin}/account`);
    await page.getByLabel('Upload an avatar image').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(96, 96, [46, 125, 50]) });
    await page.getByRole('button', { name: 'Save picture' }).click();
    await page.waitForURL(/notice=avatar-uploaded/);
    assert.match(await page.getByRole('region', { name: 'Where you are signed in' }).innerText(), /This (browser|device)|current/i);
    await checkPage(t, page, '27-account-avatar-sessions-activity');
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.locator('#name-error').waitFor();
    await checkPage(t, page, '28-account-profile-error');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('[aria-invalid=true]').first().waitFor();
    await checkPage(t, page, '29-account-password-errors');
  });

  browserTest('the consent page of an app', async (t) => {
    // Back at a reachable app: a made-up host would leave an error page that interrupts the next navigation.
    const appCallback = await startAppCallback();
    t.after(() => appCallback.close());
    app = await latch.createClient({ name: 'Shuttle Planner', redirectUris: [appCallback.url] });
    await page.goto(
      authorizeUrl(origin, { client_id: app.clientId, redirect_uri: appCallback.url, response_type: 'code', scope: 'openid profile email offline_access', state: 's', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }),
    );
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await checkPage(t, page, '30-consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${appCallback.url}?`));
    await page.goto(`${origin}/account`);
    await checkPage(t, page, '31-account-connected-app');
  });

  browserTest('error pages: an authorize request of an unknown app, a redirect URL that is not registered, a page that does not exist', async (t) => {
    const response = await page.goto(authorizeUrl(origin, { client_id: 'no-such-app', redirect_uri: RP_CALLBACK, response_type: 'code', scope: 'profile' }));
    assert.equal(response?.status(), 400);
    await checkPage(t, page, '32-authorize-error-unknown-client');
    await page.goto(authorizeUrl(origin, { client_id: app.clientId, redirect_uri: 'https://elsewhere.example.test/cb', response_type: 'code', scope: 'profile' }));
    assert.match(await page.locator('main').innerText(), /Shuttle Planner sent you here with a sign-in request that cannot be accepted/);
    await checkPage(t, page, '33-authorize-error-redirect-uri');
    assert.equal((await page.goto(`${origin}/no-such-page`))?.status(), 404);
    await checkPage(t, page, '34-not-found');
  });

  browserTest('the developer console (with field errors), the one-time client secret page, an app page', async (t) => {
    await page.goto(`${origin}/developer`);
    await checkPage(t, page, '35-developer-console');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('not a url');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.locator('#app_name-error').waitFor();
    await checkPage(t, page, '36-developer-console-field-errors');
    await page.getByLabel('App name').fill('Orbit Tracker');
    await page.getByLabel('Redirect URLs', { exact: true }).fill('https://orbit.example.test/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Orbit Tracker is registered' }).waitFor();
    await checkPage(t, page, '37-client-secret-once');
    await page.getByRole('link', { name: /go to the app/ }).click();
    await page.waitForURL(/\/developer\/apps\/[^/]+$/);
    await checkPage(t, page, '38-developer-app');
  });

  browserTest('with JavaScript turned off: the page is checked at its URL in a JavaScript-enabled page', async (t) => {
    const noScript = await browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: false, storageState: await context.storageState() });
    try {
      const visitor = await noScript.newPage();
      await visitor.goto(`${origin}/account/two-step`);
      assert.match(await visitor.locator('#passkey-status').innerText(), /needs JavaScript/);
      const report = await checkPage(t, visitor, '39-two-step-without-javascript');
      assert.equal(report.pageHadJavaScriptOff, true);
      assert.equal(report.checkedUrl, `${origin}/account/two-step`);
    } finally {
      await noScript.close();
    }
  });

  browserTest('at phone width (375 px): the signed-in pages, a new app’s secret and new recovery codes', async (t) => {
    // Narrow screens turn long lines (keys, URLs, code) into regions that scroll sideways: each must be reachable by keyboard.
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await context.storageState() });
    phone.setDefaultTimeout(10_000);
    try {
      const visitor = await phone.newPage();
      const appPath = new URL(page.url()).pathname;
      const failures: string[] = [];
      assert.match(appPath, /^\/developer\/apps\//, 'the previous test ends on an app page');
      for (const [path, name] of [
        ['/', '40-phone-landing'],
        ['/account', '41-phone-account'],
        ['/account/two-step', '42-phone-two-step'],
        ['/developer', '43-phone-developer-console'],
        [appPath, '44-phone-developer-app'],
        ['/dev/outbox', '45-phone-dev-outbox'],
      ] as const) {
        await visitor.goto(`${origin}${path}`);
        // Every page is checked before the test fails, so one run names all the problems.
        await checkPage(t, visitor, name).catch((error: Error) => failures.push(error.message));
      }
      // Two answers to a form post, with long values in code blocks: a new app's secret, new recovery codes.
      await visitor.goto(`${origin}/developer`);
      await visitor.getByLabel('App name').fill('Pocket Orbit');
      await visitor.getByLabel('Redirect URLs', { exact: true }).fill('https://pocket.example.test/a/rather/long/path/to/the/callback');
      await visitor.getByRole('button', { name: 'Register app' }).click();
      await visitor.getByRole('heading', { name: 'Pocket Orbit is registered' }).waitFor();
      await checkPage(t, visitor, '46-phone-client-secret-once').catch((error: Error) => failures.push(error.message));
      await visitor.goto(`${origin}/account/two-step`);
      const regenerate = visitor.locator('form[action="/account/two-step/recovery-codes"]');
      await regenerate.getByLabel('Your password or a code from your authenticator app').fill(PASSWORD);
      await regenerate.getByRole('button', { name: 'Get new recovery codes' }).click();
      await visitor.getByRole('heading', { name: 'Your new recovery codes' }).waitFor();
      await checkPage(t, visitor, '47-phone-recovery-codes').catch((error: Error) => failures.push(error.message));
      assert.deepEqual(failures, []);
    } finally {
      await phone.close();
    }
  });

  browserTest('signed in: the landing page', async (t) => {
    await page.goto(`${origin}/`);
    assert.match(await page.locator('body').innerText(), /Signed in as Mary Jackson/);
    await checkPage(t, page, '48-landing-signed-in');
  });

  browserTest('an app signs the person out (RP-initiated logout): the confirmation page, the signed-out page, a refused request', async (t) => {
    await page.goto(`${origin}/oauth2/logout?post_logout_redirect_uri=${encodeURIComponent('https://elsewhere.example.test/')}&client_id=${app.clientId}`);
    await page.getByRole('heading', { name: 'This sign-out request cannot be followed' }).waitFor();
    await checkPage(t, page, '49-logout-refused');
    await page.goto(`${origin}/oauth2/logout?client_id=${app.clientId}`);
    await page.getByRole('heading', { name: 'Sign out of Latch?' }).waitFor();
    await checkPage(t, page, '50-logout-confirmation');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    await checkPage(t, page, '51-signed-out');
  });
});
