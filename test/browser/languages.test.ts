/**
 * The German pages in Chromium (issue 19 items 7 and 9): a browser set to German gets the sign-in of an app, the
 * consent page, sign-up, the forgotten-password page, an error page, the account page, the two-step settings, the
 * developer console (its apps, the one-time secret page, an app page, the playground through its steps) and the
 * development outbox in German, at desktop and phone widths:
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

    test(`the developer console, an app, the playground and the outbox in German (${width.name})`, async () => {
      const { user } = await latch.createUser({ password: PASSWORD });
      const context = await browser.newContext({ viewport: width.viewport, locale: 'de-DE' });
      const page = await context.newPage();
      try {
        await page.goto(`${latch.baseUrl}/login?return_to=${encodeURIComponent('/developer')}`);
        await page.getByLabel('E-Mail-Adresse').fill(user.email);
        await page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
        await page.getByRole('heading', { name: 'Ihre Apps' }).waitFor();
        await checkGermanPage(page, `developer-console-${width.name}`);

        await page.getByLabel('Name der App').fill('Orbit Notes');
        await page.getByRole('textbox', { name: 'Weiterleitungs-URLs' }).fill('https://orbit.example.com/cb');
        await page.getByRole('button', { name: 'App registrieren' }).click();
        await page.getByRole('heading', { name: 'Orbit Notes ist registriert' }).waitFor();
        await checkGermanPage(page, `developer-secret-${width.name}`);
        const clientSecret = await page.locator('#client_secret').inputValue();
        await page.getByRole('link', { name: 'Ich habe das Secret gespeichert: zur App' }).click();
        await page.getByRole('heading', { name: 'Integrationsanleitung' }).waitFor();
        await checkGermanPage(page, `developer-app-${width.name}`);

        await page.getByRole('link', { name: 'Anmeldung ausprobieren' }).click();
        await page.getByRole('heading', { name: 'Anmeldung ausprobieren: Orbit Notes' }).waitFor();
        await checkGermanPage(page, `developer-playground-${width.name}`);
        await page.getByRole('button', { name: 'Test-Callback hinzufügen' }).click();
        await page.getByRole('button', { name: 'Anmeldung starten' }).click();
        await page.getByRole('heading', { name: 'Die Autorisierungsanfrage' }).waitFor();
        await page.getByRole('link', { name: 'Weiter zur Anmeldung' }).click();
        await page.getByRole('button', { name: 'Zulassen' }).click();
        await page.getByLabel('Client-Secret').fill(clientSecret);
        await page.getByRole('button', { name: 'Code tauschen' }).click();
        await page.getByRole('heading', { name: 'Das id_token, dekodiert und geprüft' }).waitFor();
        await checkGermanPage(page, `developer-playground-done-${width.name}`);

        await page.goto(`${latch.baseUrl}/dev/outbox`);
        await page.getByRole('heading', { name: 'Entwicklungs-Postausgang' }).waitFor();
        await checkGermanPage(page, `outbox-${width.name}`);
      } finally {
        await context.close();
      }
    });
  }
});
