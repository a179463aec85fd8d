/**
 * OpenID Connect on top of the browser flow helpers: run an authorization with scope openid to the token
 * response, and check id_tokens independently with jose against the published JWKS.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { TestBrowser } from './browser.js';
import { authorize, exchangeCode, pkcePair, type FlowClient } from './oauth-flow.js';
import type { TestServer } from './test-server.js';

export interface OidcFlowResult {
  browser: TestBrowser;
  redirect: URL;
  token: { status: number; body: any; headers: Headers };
  nonce: string | undefined;
}

export function randomValue(): string {
  return randomBytes(16).toString('base64url');
}

/** The whole flow with scope openid (PKCE, state, nonce unless `nonce: undefined` is passed), ending at the token response. */
export async function runOidcFlow(
  server: TestServer,
  client: FlowClient,
  user: { email: string; password: string },
  options: { params?: Record<string, string | undefined>; browser?: TestBrowser; style?: 'basic' | 'post' } = {},
): Promise<OidcFlowResult> {
  const browser = options.browser ?? new TestBrowser();
  const { verifier, challenge } = pkcePair();
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0],
    scope: 'openid profile email',
    state: randomValue(),
    nonce: randomValue(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...options.params,
  };
  const redirect = await authorize(browser, server.baseUrl, params, user);
  const code = redirect.searchParams.get('code');
  assert.ok(code, `expected a code, got ${redirect.href}`);
  assert.equal(redirect.searchParams.get('state') ?? undefined, params.state);
  const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, redirect_uri: params.redirect_uri!, code_verifier: verifier }, options.style ?? 'basic');
  return { browser, redirect, token, nonce: params.nonce };
}

export async function fetchJwks(server: TestServer): Promise<{ keys: any[] }> {
  return (await fetch(`${server.baseUrl}/oauth2/jwks`)).json();
}

/** Verifies an id_token as a relying party would: signature against the JWKS, iss, aud, exp, iat. */
export async function verifyIdToken(server: TestServer, idToken: string, clientId: string, algorithms?: string[]): Promise<{ payload: JWTPayload & Record<string, any>; kid: string; alg: string }> {
  const jwks = createLocalJWKSet(await fetchJwks(server));
  const { payload, protectedHeader } = await jwtVerify(idToken, jwks, {
    issuer: server.config.issuer,
    audience: clientId,
    ...(algorithms && { algorithms }),
    requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat'],
  });
  assert.ok(protectedHeader.kid);
  return { payload: payload as JWTPayload & Record<string, any>, kid: protectedHeader.kid, alg: protectedHeader.alg };
}

export function idTokenKid(idToken: string): string | undefined {
  return decodeProtectedHeader(idToken).kid;
}
