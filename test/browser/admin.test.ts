/**
 * The admin console (issue 16 item 3) in Debian's Chromium with JavaScript turned off: an administrator follows
 * the header's Admin link, searches for an account, disables and enables it, is refused a deletion without the
 * confirmation and then deletes it, looks at every client, filters the event log (a bad filter shown next to its
 * field) and looks at the signing keys. Every page, with its notices and errors, is checked with axe-core (no
 * serious or critical violation; test/helpers/accessibility.ts) and saved as test-artifacts/screenshots/admin-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

async function checkPage(t: TestContext, page: Page, name: string): Promise<void> {
  await screenshot(page, `admin-${name}`);
  const report = await checkAccessibility(page, `admin ${name}`);
  for (const violation of report.violations) t.diagnostic(`${name}: ${violation.id} (${violation.impact}) at ${violation.targets.slice(0, 3).join(', ')}`);
}

describe('the admin console in Chromium, without JavaScript, checked with axe-core', { skip: skipWithoutChromium }, () => {
  let latch: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const admin = { email: 'ops@example.com', password: 'operator passphrase 1' };
  let target: { id: number; email: string };

  before(async () => {
    latch = await startTestServer({ env: { LATCH_REGISTRATION: 'open' } });
    const created = await latch.createUser({ email: admin.email, name: 'Olivia Ops', password: admin.password });
    await latch.storage.users.update(created.user.id, { isAdmin: true }, new Date());
    const person = await latch.createUser({ email: 'walter.wrong@example.com', name: 'Walter Wrongly', emailVerified: false });
    target = { id: person.user.id, email: person.user.email };
    await latch.createClient({ name: 'Payroll (CLI)' });
    const registered = await fetch(`${latch.baseUrl}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Agent Desktop', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(registered.status, 201);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1000, height: 800 }, javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  test('sign in, then the header’s Admin link leads to the users, searchable', async (t) => {
    await page.goto(`${latch.baseUrl}/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
    assert.equal(new URL(page.url()).pathname, '/admin/users');
    await checkPage(t, page, 'users');

    await page.getByLabel('Search by email or name').fill('wrongly');
    await page.getByRole('button', { name: 'Search' }).click();
    assert.equal(await page.getByRole('cell', { name: target.email }).count(), 1);
    assert.equal(await page.getByRole('cell', { name: admin.email }).count(), 0);
    await checkPage(t, page, 'users-search');
  });

  test('an account’s page: disable and enable, each confirmed after the redirect', async (t) => {
    await page.getByRole('link', { name: target.email }).click();
    assert.equal(new URL(page.url()).pathname, `/admin/users/${target.id}`);
    await checkPage(t, page, 'user');

    await page.getByRole('button', { name: 'Disable account' }).click();
    assert.equal(new URL(page.url()).search, '?notice=disabled');
    await page.getByRole('status').filter({ hasText: 'The account is disabled' }).waitFor();
    assert.ok(await latch.storage.users.findById(target.id).then((user) => user?.disabledAt));
    await checkPage(t, page, 'user-disabled');

    await page.getByRole('button', { name: 'Enable account' }).click();
    await page.getByRole('status').filter({ hasText: 'enabled again' }).waitFor();
    assert.equal((await latch.storage.users.findById(target.id))?.disabledAt, null);

    await page.getByRole('button', { name: 'Send confirmation mail again' }).click();
    await page.getByRole('status').filter({ hasText: 'A new confirmation link was mailed' }).waitFor();
  });

  test('delete: refused without the email, shown next to the field; then done', async (t) => {
    await page.getByLabel('Type the account’s email address to confirm').fill('not-the-email@example.com');
    await page.getByRole('button', { name: 'Delete account' }).click();
    assert.match((await page.locator('#confirm_email-error').textContent()) ?? '', /Type walter\.wrong@example\.com to confirm/);
    assert.equal(await page.getByLabel('Type the account’s email address to confirm').getAttribute('aria-invalid'), 'true');
    await checkPage(t, page, 'user-delete-error');

    await page.getByLabel('Type the account’s email address to confirm').fill(target.email);
    await page.getByRole('button', { name: 'Delete account' }).click();
    assert.equal(new URL(page.url()).pathname, '/admin/users');
    await page.getByRole('status').filter({ hasText: 'The account was deleted' }).waitFor();
    assert.equal(await latch.storage.users.findById(target.id), null);
    await checkPage(t, page, 'users-deleted');
  });

  test('clients: the CLI’s and a self-registered one, marked; a client’s page', async (t) => {
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Clients' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Agent Desktop' });
    assert.match((await row.textContent()) ?? '', /Registered itself/);
    assert.match((await page.getByRole('row').filter({ hasText: 'Payroll (CLI)' }).textContent()) ?? '', /Command line/);
    await checkPage(t, page, 'clients');
    await page.getByRole('link', { name: 'Agent Desktop' }).click();
    await page.getByRole('heading', { name: 'Agent Desktop', level: 1 }).waitFor();
    await checkPage(t, page, 'client');
  });

  test('events: filtered, with a bad filter told next to its field; the admin actions above are there', async (t) => {
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Events' }).click();
    await checkPage(t, page, 'events');
    await page.getByLabel('Since').fill('last tuesday');
    await page.getByRole('button', { name: 'Show events' }).click();
    assert.match((await page.locator('#since-error').textContent()) ?? '', /Since must be an ISO 8601 time/);
    await checkPage(t, page, 'events-error');

    await page.getByLabel('Since').fill('1h');
    await page.getByLabel('Type').selectOption('user.deleted');
    await page.getByRole('button', { name: 'Show events' }).click();
    const rows = page.locator('tbody tr');
    assert.equal(await rows.count(), 1);
    assert.match((await rows.first().textContent()) ?? '', new RegExp(`#${target.id} \\(deleted\\).*${admin.email}`));
    await checkPage(t, page, 'events-filtered');
  });

  test('signing keys and their states', async (t) => {
    await page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Signing keys' }).click();
    assert.ok((await page.locator('tbody tr').count()) >= 1);
    assert.ok((await page.getByText('Active: signs new id_tokens').count()) >= 1);
    await checkPage(t, page, 'keys');
  });
});
