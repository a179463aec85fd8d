/**
 * The account page, error pages, the home page, sign-in from an app, consent and a branded Latch in Chromium at
 * desktop and phone widths (issue 19 item 9):
 * axe-core finds no violation and no "needs review" item of serious or critical impact, and nothing is wider
 * than the screen. The pages are saved under test-artifacts/screenshots/account-a11y-*.png for people to look at.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1200, height: 800 } },
  { name: 'phone', viewport: { width: 375, height: 740 } },
] as const;
const PASSWORD = 'correct horse battery staple';
const SERIOUS = new Set(['serious', 'critical']);

interface AxeFinding {
  kind: 'violation' | 'needs review';
  id: string;
  impact: string | null;
  targets: string[];
  summary: string;
}

/** axe's violations and "needs review" (incomplete) items of serious or critical impact on the open page. */
async function seriousFindings(page: Page): Promise<AxeFinding[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core').replace(/axe\.js$/, 'axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate(async (serious: string[]) => {
    type Result = { id: string; impact: string | null; nodes: Array<{ target: unknown[]; impact?: string | null; failureSummary?: string }> };
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Result[]; incomplete: Result[] }> } }).axe;
    const { violations, incomplete } = await axe.run(document, { resultTypes: ['violations', 'incomplete'] });
    // No named functions in here: the test's TypeScript build would wrap them in a helper the page does not have.
    const findings: AxeFinding[] = [];
    for (const [kind, results] of [['violation', violations], ['needs review', incomplete]] as const) {
      for (const result of results) {
        const nodes = result.nodes.filter((node) => serious.includes(node.impact ?? result.impact ?? ''));
        if (nodes.length === 0) continue;
        findings.push({
          kind,
          id: result.id,
          impact: result.impact,
          targets: nodes.map((node) => node.target.map(String).join(' > ')),
          summary: (nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
        });
      }
    }
    return findings;
  }, [...SERIOUS]);
}

async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, `account-a11y-${name}`);
  const findings = await seriousFindings(page);
  assert.deepEqual(
    findings.map((f) => `${f.kind} ${f.id} (${f.impact}) at ${f.targets.slice(0, 3).join(', ')}: ${f.summary}`),
    [],
    `${name}: axe findings of serious or critical impact at ${page.url()}`,
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen`);
}

describe('account, error and branded pages at desktop and phone widths (axe-core, serious "needs review" included)', { skip: skipWithoutChromium }, () => {
  let latch: TestServer;
  let browser: Browser;
  let email: string;
  let appClientId: string;

  before(async () => {
    latch = await startTestServer();
    browser = await launchChromium();
    const { user } = await latch.createUser({ name: 'Dorothy Vaughan', password: PASSWORD, emailVerified: false });
    email = user.email;
    const app = await latch.createClient({ name: 'Orbit Notes', redirectUris: ['https://orbit.example.test/cb'] });
    await latch.storage.clients.update(app.clientId, { homepageUrl: 'https://orbit.example.test/' }, new Date());
    appClientId = app.clientId;
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  const signedInContext = async (viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(`${latch.baseUrl}/login?return_to=%2Faccount`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/account/);
    return { context, page };
  };

  for (const { name, viewport } of WIDTHS) {
    test(`${name}: the account page, with a field error and with a notice beside its section`, async () => {
      const { context, page } = await signedInContext(viewport);
      try {
        await checkPage(page, `${name}-account`);
        // Neither a file nor an address: the error is shown beside the file field.
        await page.getByLabel('Or the address of a picture').fill('');
        await page.getByRole('button', { name: 'Save picture' }).click();
        await page.locator('#avatar_file-error').waitFor();
        await checkPage(page, `${name}-account-picture-error`);
        await page.getByLabel('Name', { exact: true }).fill('Dorothy J. Vaughan');
        await page.getByRole('button', { name: 'Save name' }).click();
        await page.waitForURL(/notice=profile-saved#profile$/);
        assert.equal(await page.locator('#profile [role=status]').innerText(), 'Your name is now Dorothy J. Vaughan.');
        await checkPage(page, `${name}-account-notice`);
      } finally {
        await context.close();
      }
    });

    test(`${name}: error pages, signed in and signed out`, async () => {
      const { context, page } = await signedInContext(viewport);
      try {
        assert.equal((await page.goto(`${latch.baseUrl}/no-such-page`))?.status(), 404);
        assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').first().innerText(), 'Account');
        await checkPage(page, `${name}-not-found-signed-in`);
        await page.goto(authorizeUrl(latch.baseUrl, { response_type: 'code', client_id: appClientId, redirect_uri: 'https://elsewhere.example.test/cb', scope: 'profile' }));
        await page.getByRole('link', { name: 'Back to Orbit Notes' }).waitFor();
        await checkPage(page, `${name}-authorize-error`);
      } finally {
        await context.close();
      }
      const signedOut = await browser.newContext({ viewport });
      try {
        const page = await signedOut.newPage();
        await page.goto(`${latch.baseUrl}/no-such-page`);
        await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
        await checkPage(page, `${name}-not-found-signed-out`);
      } finally {
        await signedOut.close();
      }
    });
  }

  for (const { name, viewport } of WIDTHS) {
    test(`${name}: the home page, sign-in reached from an app, and its consent page`, async () => {
      const context = await browser.newContext({ viewport });
      context.setDefaultTimeout(10_000);
      await context.route('https://orbit.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><html lang="en"><title>Orbit</title><main>ok</main></html>' }));
      try {
        const page = await context.newPage();
        await page.goto(`${latch.baseUrl}/`);
        await checkPage(page, `${name}-home-signed-out`);
        await page.goto(authorizeUrl(latch.baseUrl, { response_type: 'code', client_id: appClientId, redirect_uri: 'https://orbit.example.test/cb', scope: 'openid profile', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }));
        await page.getByLabel('Email').waitFor();
        await checkPage(page, `${name}-sign-in-from-app`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('button', { name: 'Allow' }).waitFor();
        await checkPage(page, `${name}-consent`);
        await page.goto(`${latch.baseUrl}/`);
        await checkPage(page, `${name}-home-signed-in`);
      } finally {
        await context.close();
      }
    });
  }

  test('a branded Latch (name, logo, accent, footer links) at both widths', async () => {
    const branded = await startTestServer({
      env: {
        LATCH_BRAND_NAME: 'Orbit Accounts',
        LATCH_BRAND_LOGO_URL: 'https://cdn.orbit.example.test/logo.svg',
        LATCH_BRAND_ACCENT: '#7c3aed',
        LATCH_BRAND_PRIVACY_URL: 'https://orbit.example.test/privacy',
        LATCH_BRAND_TERMS_URL: 'https://orbit.example.test/terms',
        LATCH_BRAND_HELP_URL: 'https://orbit.example.test/help',
      },
    });
    try {
      for (const { name, viewport } of WIDTHS) {
        const context = await browser.newContext({ viewport });
        await context.route('https://cdn.orbit.example.test/**', (route) =>
          route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><circle cx="14" cy="14" r="12" fill="#7c3aed"/></svg>' }),
        );
        try {
          const page = await context.newPage();
          await page.goto(`${branded.baseUrl}/login`);
          assert.equal(await page.locator('header.site .brand').innerText(), 'Orbit Accounts');
          const accent = await page.getByRole('button', { name: 'Sign in', exact: true }).evaluate((button) => getComputedStyle(button).backgroundColor);
          assert.equal(accent, 'rgb(124, 58, 237)', 'the accent colour reaches the buttons');
          await checkPage(page, `${name}-branded-sign-in`);
        } finally {
          await context.close();
        }
      }
    } finally {
      await branded.stop();
    }
  });
});
