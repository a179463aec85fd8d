/**
 * The README's screenshots of the main pages (issue 19 item 8): sign-in reached from an app, consent, the account
 * page and the developer console, in Chromium at 1000 px wide, as a new person sees them.
 *
 * `LATCH_UPDATE_SCREENSHOTS=1 npm test -- test/browser/screenshots.test.ts` walks the pages and writes
 * docs/screenshots/*.png (commit them); without it the test only checks that each file is there, a PNG of that
 * width, so that a README picture never points at nothing. Pictures are not compared pixel by pixel: times and
 * ids on the pages change every run.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

export const SCREENSHOTS = ['sign-in', 'consent', 'account', 'developer-console'] as const;
const DOCS_SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');
const WIDTH = 1000;
const updating = process.env.LATCH_UPDATE_SCREENSHOTS === '1';

const APP_ORIGIN = 'https://orbit-notes.example';
const CALLBACK = `${APP_ORIGIN}/callback`;
const PASSWORD = 'correct horse battery staple';
const IPHONE_SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1';
const DESKTOP_CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The app's logo and the person's picture, served to the browser in place of the made-up sites. */
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="9" fill="#0f766e"/><circle cx="20" cy="20" r="9" fill="none" stroke="#fff" stroke-width="3"/><circle cx="29" cy="11" r="3" fill="#fff"/></svg>';
const AVATAR_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#f4c790"/><circle cx="32" cy="25" r="12" fill="#7a4b2a"/><rect x="14" y="40" width="36" height="24" rx="12" fill="#2f5d8a"/></svg>';

/** Width and height from a PNG's IHDR chunk (PNG spec §11.2.2). */
function pngSize(file: string): { width: number; height: number } {
  const data = readFileSync(file);
  assert.ok(data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${file} is a PNG`);
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

describe('the README screenshots', () => {
  test('docs/screenshots has each main page, a PNG 1000 px wide (LATCH_UPDATE_SCREENSHOTS=1 makes them anew)', { skip: updating && 'making them anew' }, () => {
    for (const name of SCREENSHOTS) {
      const file = join(DOCS_SCREENSHOTS, `${name}.png`);
      assert.ok(existsSync(file), `${file} is missing: run LATCH_UPDATE_SCREENSHOTS=1 npm test -- test/browser/screenshots.test.ts`);
      const { width, height } = pngSize(file);
      assert.equal(width, WIDTH, `${name}.png width`);
      assert.ok(height >= 400 && height <= 4000, `${name}.png height ${height}`);
    }
    const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
    for (const name of SCREENSHOTS) assert.ok(readme.includes(`docs/screenshots/${name}.png`), `README shows ${name}.png`);
  });

  describe('made anew in Chromium', { skip: !updating ? 'set LATCH_UPDATE_SCREENSHOTS=1 to make them' : skipWithoutChromium }, () => {
    let latch: TestServer;
    let browser: Browser;
    let page: Page;
    let origin: string;

    before(async () => {
      latch = await startTestServer({ issuerHost: 'localhost' });
      origin = latch.config.issuer;
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: WIDTH, height: 760 }, userAgent: DESKTOP_CHROME });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
      await context.route(`${APP_ORIGIN}/**`, (route) => {
        const path = new URL(route.request().url()).pathname;
        if (path === '/logo.svg') return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG });
        if (path === '/people/grace.svg') return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: AVATAR_SVG });
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Orbit Notes</title><main>Signed in</main></html>' });
      });
      mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    });
    after(async () => {
      await browser?.close();
      await latch?.stop();
    });

    const save = async (name: (typeof SCREENSHOTS)[number], fullPage = false) => {
      // The pictures show the page, not the browser's focus ring of the last click.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: join(DOCS_SCREENSHOTS, `${name}.png`), fullPage });
    };

    test('sign-in from an app, consent, the account page and the developer console', async () => {
      const { user } = await latch.createUser({ email: 'grace@example.com', name: 'Grace Hopper', password: PASSWORD, emailVerified: true, avatarUrl: `${APP_ORIGIN}/people/grace.svg` });
      const client = await latch.createClient({ name: 'Orbit Notes', redirectUris: [CALLBACK] });
      await latch.storage.clients.update(client.clientId, { homepageUrl: `${APP_ORIGIN}/`, logoUrl: `${APP_ORIGIN}/logo.svg` }, new Date());

      // The same person on a phone, so that the account page lists two devices.
      const phone = await browser.newContext({ userAgent: IPHONE_SAFARI, viewport: { width: 390, height: 800 } });
      const phonePage = await phone.newPage();
      await phonePage.goto(`${origin}/login`);
      await phonePage.getByLabel('Email').fill(user.email);
      await phonePage.getByLabel('Password').fill(PASSWORD);
      await phonePage.getByRole('button', { name: 'Sign in', exact: true }).click();
      await phonePage.waitForURL(/\/account|\/$/);
      await phone.close();

      await page.goto(authorizeUrl(origin, { response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid profile email', state: 's', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
      await page.getByLabel('Email').waitFor();
      await page.getByLabel('Email').fill(user.email);
      await save('sign-in');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();

      await page.getByRole('button', { name: 'Allow' }).waitFor();
      await save('consent');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(/^https:\/\/orbit-notes\.example\/callback\?/);

      await page.goto(`${origin}/account`);
      await page.locator('#apps').getByText('Orbit Notes').waitFor();
      await save('account', true);

      await page.goto(`${origin}/developer`);
      await page.getByLabel('App name').fill('Shuttle Planner');
      await page.getByLabel('Redirect URLs', { exact: true }).fill('https://shuttle.example/callback');
      await page.getByRole('button', { name: 'Register app' }).click();
      await page.getByRole('heading', { name: /Shuttle Planner is registered/ }).waitFor();
      await page.goto(`${origin}/developer`);
      await save('developer-console', true);

      for (const name of SCREENSHOTS) assert.equal(pngSize(join(DOCS_SCREENSHOTS, `${name}.png`)).width, WIDTH);
    });
  });
});
