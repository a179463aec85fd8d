/**
 * Short cuts for tests about the token and userinfo endpoints: get a fresh code (or token) through the real
 * browser flow, and send raw token requests whose every byte the test chooses.
 */
import assert from 'node:assert/strict';
import { TestBrowser } from './browser.js';
import { authorize, pkcePair, type FlowClient } from './oauth-flow.js';
import type { TestServer } from './test-server.js';

export interface TestUser {
  email: string;
  password: string;
}

export interface IssuedCode {
  code: string;
  redirectUri: string;
  /** The PKCE verifier, when the code was issued with a challenge. */
  verifier: string | undefined;
  browser: TestBrowser;
}

export async function issueCode(
  server: TestServer,
  client: FlowClient,
  user: TestUser,
  options: { pkce?: boolean; scope?: string; redirectUri?: string; browser?: TestBrowser; state?: string } = {},
): Promise<IssuedCode> {
  const browser = options.browser ?? new TestBrowser();
  const redirectUri = options.redirectUri ?? client.redirectUris[0]!;
  const pkce = options.pkce === false ? undefined : pkcePair();
  const redirect = await authorize(
    browser,
    server.baseUrl,
    {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: redirectUri,
      scope: options.scope ?? 'profile',
      state: options.state ?? 'test-state',
      code_challenge: pkce?.challenge,
      code_challenge_method: pkce ? 'S256' : undefined,
    },
    user,
  );
  const code = redirect.searchParams.get('code');
  assert.ok(code, `expected a code, got ${redirect.href}`);
  return { code, redirectUri, verifier: pkce?.verifier, browser };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

export async function readResponse(response: Response): Promise<RawResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A token request exactly as given: no credentials or content type added. */
export async function postToken(
  baseUrl: string,
  init: { headers?: Record<string, string>; body?: RequestInit['body']; form?: Record<string, string> },
): Promise<RawResponse> {
  const headers = { ...init.headers };
  let body = init.body;
  if (init.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return readResponse(await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', headers, body }));
}

/** client_secret_basic; `encode: false` sends the credentials raw, as arctic and grant do. */
export function basicAuthorization(clientId: string, clientSecret: string, options: { encode?: boolean } = {}): string {
  const encode = options.encode ?? true;
  const pair = encode ? `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}` : `${clientId}:${clientSecret}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

/** The usual successful exchange (client_secret_post) of a code. */
export async function exchangeIssuedCode(server: TestServer, client: FlowClient, issued: IssuedCode): Promise<RawResponse> {
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: issued.redirectUri,
    client_id: client.clientId,
    client_secret: client.clientSecret,
  };
  if (issued.verifier) form.code_verifier = issued.verifier;
  return postToken(server.baseUrl, { form });
}

export async function obtainAccessToken(server: TestServer, client: FlowClient, user: TestUser): Promise<string> {
  const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user));
  assert.equal(response.status, 200, response.text);
  return response.body.access_token as string;
}

export async function callUserinfo(baseUrl: string, authorization?: string, init: { method?: string; path?: string } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  return readResponse(await fetch(`${baseUrl}${init.path ?? '/oauth2/userinfo'}`, { method: init.method ?? 'GET', headers }));
}
