/**
 * The /device pages in Chromium with JavaScript off (issue 18 item 6; RFC 8628 §3.3): a person opens the link a
 * device shows, signs in, checks the code, allows on the consent page, and the device gets its tokens. Each page
 * is checked with axe-core (no serious or critical violation; test/helpers/accessibility.ts) and saved as
 * test-artifacts/screenshots/device-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function checkPage(t: TestContext, page: Page, name: string): Promise<void> {
  await screenshot(page, `device-${name}`);
  const report = await checkAccessibility(page, `device ${name}`);
  for (const violation of report.violations) t.diagnostic(`${name}: ${violation.id} (${violation.impact}) at ${violation.targets.slice(0, 3).join(', ')}`);
}

describe('the /device pages in Chromium (axe-core)', { skip: skipWithoutChromium }, () => {
  let latch: TestServer;
  let browser: Browser;
  let clientId: string;
  let person: { email: string; password: string };

  before(async () => {
    latch = await startTestServer({ database: 'sqlite', env: { LATCH_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
    const { client } = await registerClientOfAnyKind(
      latch.storage,
      { name: 'Terminal Notes CLI', redirectUris: [], isPublic: true, grantTypes: [DEVICE_GRANT, 'refresh_token'] },
      { developmentMode: false },
    );
    clientId = client.clientId;
    const { user, password } = await latch.createUser();
    person = { email: user.email, password };
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  test('sign in from the link, a wrong code, the code, consent, allow: every page passes axe; the device gets its tokens', async (t) => {
    const started = await (
      await fetch(`${latch.baseUrl}/oauth2/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, scope: 'openid profile offline_access' }).toString(),
      })
    ).json();
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 420, height: 800 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    try {
      await page.goto(started.verification_uri_complete);
      assert.match(new URL(page.url()).pathname, /^\/login/);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();

      await page.waitForURL((url) => url.pathname === '/device');
      assert.equal(await page.getByLabel('Code').inputValue(), started.user_code);
      await checkPage(t, page, 'code-prefilled');

      // A typo: the error is next to the field, tied to it for screen readers.
      const typo = started.user_code.startsWith('B') ? `C${started.user_code.slice(1)}` : `B${started.user_code.slice(1)}`;
      await page.getByLabel('Code').fill(typo);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('No device is waiting for this code').waitFor();
      assert.equal(await page.getByLabel('Code').getAttribute('aria-invalid'), 'true');
      await checkPage(t, page, 'code-unknown');

      await page.getByLabel('Code').fill(started.user_code.toLowerCase());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: /Terminal Notes CLI/ }).waitFor();
      await page.getByText(`shows the code ${started.user_code}`).waitFor();
      await checkPage(t, page, 'consent');

      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Device connected' }).waitFor();
      await checkPage(t, page, 'approved');
    } finally {
      await context.close();
    }

    const tokens = await fetch(`${latch.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: clientId }).toString(),
    });
    const body = await tokens.json();
    assert.equal(tokens.status, 200, JSON.stringify(body));
    assert.ok(body.refresh_token && body.id_token);
  });

  test('deny: the page says so, and passes axe', async (t) => {
    const started = await (
      await fetch(`${latch.baseUrl}/oauth2/device_authorization`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId }).toString(),
      })
    ).json();
    const context = await browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    try {
      await page.goto(`${latch.baseUrl}/device`);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/device');
      await checkPage(t, page, 'code-empty');
      await page.getByLabel('Code').fill(started.user_code);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.getByRole('heading', { name: 'Request denied' }).waitFor();
      await checkPage(t, page, 'denied');
    } finally {
      await context.close();
    }
  });
});
