/**
 * The consent page of a request for an API (RFC 8707 resource; issue 18 item 5), in Chromium with axe-core: each API
 * named with its address and the scopes asked of it, no accessibility violation of impact serious or critical, and
 * nothing wider than a phone's screen with a long API address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { runLatchCli } from '../helpers/cli.js';
import { pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REDIRECT_URI = 'http://127.0.0.1:33418/callback';
const API = 'https://notes-service.internal-platform.example.com/api/v2/workspaces/shared-notebooks/mcp';

describe('consent page of a request for an API (Chromium, axe-core)', { skip: skipWithoutChromium }, () => {
  let latch: TestServer;
  let browser: Browser;
  let user: { email: string; password: string };
  let client: Awaited<ReturnType<TestServer['createClient']>>;

  before(async () => {
    latch = await startTestServer();
    const created = await latch.createUser();
    user = { email: created.user.email, password: created.password };
    client = await latch.createClient({ name: 'Orbit Notes', redirectUris: [REDIRECT_URI] });
    const registered = await runLatchCli(['resource', 'create', '--identifier', API, '--scope', 'notes:read', '--scope', 'notes:write', '--name', 'Shared Notebooks'], {
      LATCH_DATABASE_URL: latch.config.databaseUrl,
      LATCH_SECRET: latch.config.secret,
      ...(latch.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: latch.config.databaseSchema } : {}),
    });
    assert.equal(registered.code, 0, registered.stderr);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  for (const viewport of [
    { name: 'desktop', width: 1000, height: 800 },
    { name: 'phone', width: 360, height: 740 },
  ]) {
    test(`${viewport.name}: the API named with its address and scopes, no serious accessibility violation, nothing wider than the screen`, async () => {
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      const url = new URL('/oauth2/authorize', latch.baseUrl);
      for (const [name, value] of Object.entries({ client_id: client.clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid profile notes:read notes:write', resource: API, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })) {
        url.searchParams.set(name, value);
      }
      await page.goto(url.href);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      const item = (await page.locator('ul.scopes li', { hasText: 'Shared Notebooks' }).innerText()).replace(/\s+/g, ' ');
      assert.match(item, /Access to Shared Notebooks \(https:\/\/notes-service\.internal-platform\.example\.com\/api\/v2\/workspaces\/shared-notebooks\/mcp\) with the permissions notes:read, notes:write, on your behalf/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
      await screenshot(page, `a11y-consent-resource-${viewport.name}`);
      await checkAccessibility(page, `consent for an API (${viewport.name})`);
      await context.close();
    });
  }
});
