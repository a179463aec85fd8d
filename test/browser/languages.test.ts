/**
 * The German pages in Chromium (issue 19 items 7 and 9): a browser set to German gets the sign-in of an app, the
 * consent page, sign-up, the forgotten-password page, an error page, the account page and the two-step settings in
 * German, at desktop and phone widths:
 * `<html lang="de">`, axe-core finds no serious violation, and the longer German words fit the screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1200, height: 800 } },
  { name: 'phone', viewport: { width: 375, height: 740 } },
] as const;
const PASSWORD = 'correct horse battery staple';

async function checkGermanPage(page: Page, name: string): Promise<void> {
  assert.equal(await page.getAttribute('html', 'lang'), 'de', `${name}: <html lang>`);
  await screenshot(page, `de-${name}`);
  await checkAccessibility(page, name);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen`);
}

describe('German pages in Chromium', { skip: skipWithoutChromium }, () => {
  let latch: TestServer;
  let browser: Browser;
  let clientId: string;
  let redirectUri: string;

  before(async () => {
    latch = await startTestServer();
    browser = await launchChromium();
    const client = await latch.createClient({ name: 'Orbit Notes', redirectUris: ['http://127.0.0.1:9/callback'] });
    clientId = client.clientId;
    redirectUri = client.redirectUris[0]!;
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  for (const width of WIDTHS) {
    test(`sign-in from an app, consent, sign-up, forgotten password and an error page in German (${width.name})`, async () => {
      const { user } = await latch.createUser({ password: PASSWORD });
      // Playwright sends Accept-Language from the context's locale.
      const context = await browser.newContext({ viewport: width.viewport, locale: 'de-DE' });
      const page = await context.newPage();
      try {
        const url = authorizeUrl(latch.baseUrl, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirectUri,
          scope: 'openid profile',
          state: 's',
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        });
        await page.goto(url);
        await page.getByRole('heading', { name: 'Anmelden' }).waitFor();
        await checkGermanPage(page, `sign-in-${width.name}`);
        await page.getByLabel('E-Mail-Adresse').fill(user.email);
        await page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
        await page.getByRole('heading', { name: 'Orbit Notes möchte auf Ihr Profil zugreifen' }).waitFor();
        await checkGermanPage(page, `consent-${width.name}`);

        const signUp = await context.newPage();
        await signUp.goto(`${latch.baseUrl}/signup`);
        await checkGermanPage(signUp, `sign-up-${width.name}`);
        await signUp.goto(`${latch.baseUrl}/forgot-password`);
        await checkGermanPage(signUp, `forgot-password-${width.name}`);
        await signUp.goto(`${latch.baseUrl}/oauth2/authorize?client_id=unknown-app&response_type=code`);
        await signUp.getByRole('heading', { name: 'Dieser Anmeldelink funktioniert nicht' }).waitFor();
        await checkGermanPage(signUp, `error-${width.name}`);
        // The account page, with its longer German words, signed in from the flow above.
        await signUp.goto(`${latch.baseUrl}/account`);
        await signUp.getByRole('heading', { name: 'Ihr Konto' }).waitFor();
        await checkGermanPage(signUp, `account-${width.name}`);
        await signUp.goto(`${latch.baseUrl}/account/two-step`);
        await checkGermanPage(signUp, `two-step-settings-${width.name}`);
      } finally {
        await context.close();
      }
    });
  }
});
