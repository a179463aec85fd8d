/**
 * Walking Latch's own pages with the scripted browser: sign in, post a form with the page's CSRF token, read
 * the local outbox. For the HTTP-level page tests; the real-browser tests are in test/browser/.
 */
import assert from 'node:assert/strict';
import { parse as parseHtml } from 'node-html-parser';
import { inputValue, TestBrowser, type BrowserResponse } from './browser.js';
import type { TestServer } from './test-server.js';

export async function signedInBrowser(server: TestServer, email: string, password: string): Promise<TestBrowser> {
  const browser = new TestBrowser();
  const page = await browser.request(`${server.baseUrl}/login`);
  const response = await browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email, password } });
  assert.equal(response.status, 303, `sign-in failed: ${response.status}`);
  return browser;
}

/** GETs `pagePath`, then posts `form` with that page's CSRF token to `action`. */
export async function submitForm(browser: TestBrowser, baseUrl: string, pagePath: string, action: string, form: Record<string, string>): Promise<BrowserResponse> {
  const page = await browser.request(`${baseUrl}${pagePath}`);
  assert.equal(page.status, 200, `GET ${pagePath} gave ${page.status}`);
  return browser.request(`${baseUrl}${action}`, { form: { _csrf: inputValue(page.body, '_csrf'), ...form } });
}

/** The text of the error shown next to the field with this id. */
export function fieldError(html: string, id: string): string | undefined {
  return parseHtml(html).querySelector(`#${id}-error`)?.textContent.trim();
}

/** The value of a read-only input (client id, secret) by its id. */
export function valueById(html: string, id: string): string {
  const value = parseHtml(html).querySelector(`#${id}`)?.getAttribute('value');
  assert.ok(value, `no #${id} with a value`);
  return value;
}

/** The newest link in the outbox mail to `email` whose path is `path` (/verify-email or /reset-password). */
export async function linkFromOutbox(server: TestServer, email: string, path: string): Promise<string> {
  const messages = await server.storage.outbox.listRecent(100);
  for (const message of messages) {
    if (message.to.toLowerCase() !== email.toLowerCase()) continue;
    const link = message.text.split('\n').find((line) => line.startsWith(`${server.config.issuer}${path}?`));
    if (link) return link;
  }
  throw new Error(`no ${path} link in the outbox for ${email}`);
}

/** The page a post/redirect/get answer leads to: asserts the 303 and GETs its Location with the same browser. */
export async function followRedirect(browser: TestBrowser, baseUrl: string, response: BrowserResponse): Promise<BrowserResponse> {
  assert.equal(response.status, 303, `expected a 303 redirect, got ${response.status}: ${response.body.slice(0, 300)}`);
  return browser.request(new URL(response.headers.get('location') ?? '', baseUrl).href);
}
