/**
 * The browser half of the authorization code flow, as a user would walk it: authorize URL → sign-in page →
 * consent page → redirect to the client with a code.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { inputValue, TestBrowser, type BrowserResponse } from './browser.js';

export interface FlowClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(baseUrl: string, params: Record<string, string | undefined>): string {
  const url = new URL('/oauth2/authorize', baseUrl);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  return url.href;
}

export async function signIn(browser: TestBrowser, baseUrl: string, loginPage: BrowserResponse, email: string, password: string): Promise<BrowserResponse> {
  return browser.follow(`${baseUrl}/login`, baseUrl, {
    form: { _csrf: inputValue(loginPage.body, '_csrf'), return_to: inputValue(loginPage.body, 'return_to'), email, password },
  });
}

export async function decide(browser: TestBrowser, baseUrl: string, consentPage: BrowserResponse, decision: 'allow' | 'deny'): Promise<BrowserResponse> {
  return browser.request(`${baseUrl}/oauth2/authorize/decision`, {
    form: {
      _csrf: inputValue(consentPage.body, '_csrf'),
      authorization_request: inputValue(consentPage.body, 'authorization_request'),
      decision,
    },
  });
}

/**
 * Runs the whole browser side and returns the redirect back to the client. Signs in when Latch asks, allows
 * on the consent page when it is shown.
 */
export async function authorize(
  browser: TestBrowser,
  baseUrl: string,
  params: Record<string, string | undefined>,
  user: { email: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  let page = await browser.follow(authorizeUrl(baseUrl, params), baseUrl);
  if (page.status === 200 && page.body.includes('action="/login"')) page = await signIn(browser, baseUrl, page, user.email, user.password);
  if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) page = await decide(browser, baseUrl, page, decision);
  assert.ok(page.status === 302 || page.status === 303, `expected a redirect to the client, got ${page.status}: ${page.body.slice(0, 500)}`);
  return new URL(page.headers.get('location') ?? '', baseUrl);
}

export async function exchangeCode(
  baseUrl: string,
  client: FlowClient,
  form: Record<string, string>,
  style: 'basic' | 'post' | 'multipart' = 'basic',
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  let body: string | FormData;
  if (style === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  } else if (style === 'post') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams({ ...form, client_id: client.clientId, client_secret: client.clientSecret }).toString();
  } else {
    body = new FormData();
    for (const [key, value] of Object.entries({ ...form, client_id: client.clientId, client_secret: client.clientSecret })) body.append(key, value);
  }
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json(), headers: response.headers };
}
