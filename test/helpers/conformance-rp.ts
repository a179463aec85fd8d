/**
 * A relying party that checks what the OpenID Foundation's conformance suite checks in its server tests
 * (AbstractOIDCCServerTest): discovery, the authorization response (code, state, iss), the token response,
 * the id_token (signature against the JWKS, kid, alg, iss, aud, azp, exp, iat, nonce, sub, at_hash,
 * auth_time) and userinfo (sub consistent with the id_token). Each module test adds its own checks on top.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { inputValue, TestBrowser, type BrowserResponse } from './browser.js';
import { pkcePair, type FlowClient } from './oauth-flow.js';
import type { TestServer } from './test-server.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface ConformanceClient extends FlowClient {
  idTokenAlg?: string;
}

export interface AuthorizationOutcome {
  /** The pages the browser saw before the redirect back, in order ('sign-in', 'consent'). */
  pages: Array<'sign-in' | 'consent'>;
  callback: URL;
  state: string;
  nonce: string | undefined;
  codeVerifier: string | undefined;
  /** The sign-in page, as it was shown (for login_hint checks). */
  signInPage: BrowserResponse | undefined;
}

export interface TokenOutcome {
  status: number;
  headers: Headers;
  body: any;
}

export interface IdTokenClaims extends JWTPayload {
  [claim: string]: unknown;
}

export function random(): string {
  return randomBytes(16).toString('base64url');
}

export async function fetchDiscovery(server: TestServer): Promise<any> {
  const response = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
  assert.equal(response.status, 200);
  return response.json();
}

export class ConformanceRp {
  readonly browser = new TestBrowser();
  constructor(
    readonly server: TestServer,
    readonly client: ConformanceClient,
    readonly account: { email: string; password: string },
  ) {}

  /**
   * Runs the browser through the authorization endpoint: signs in and allows when asked (unless told not to),
   * and returns the redirect back to the client. `method: 'POST'` sends the request as a form.
   */
  async authorize(
    extra: Record<string, string | undefined> = {},
    options: { method?: 'GET' | 'POST'; pkce?: boolean; nonce?: boolean; expectNoPages?: boolean } = {},
  ): Promise<AuthorizationOutcome> {
    const state = random();
    const nonce = options.nonce === false ? undefined : random();
    const pkce = options.pkce ? pkcePair() : undefined;
    const params: Record<string, string> = {};
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: this.client.clientId,
      redirect_uri: this.client.redirectUris[0],
      scope: 'openid',
      state,
      nonce,
      ...(pkce && { code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
      ...extra,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined) params[key] = value;

    const endpoint = `${this.server.baseUrl}/oauth2/authorize`;
    let page =
      options.method === 'POST'
        ? await this.browser.follow(endpoint, this.server.baseUrl, { form: params })
        : await this.browser.follow(`${endpoint}?${new URLSearchParams(params).toString()}`, this.server.baseUrl);
    const pages: AuthorizationOutcome['pages'] = [];
    let signInPage: BrowserResponse | undefined;
    for (let step = 0; step < 4; step++) {
      if (page.status === 200 && page.body.includes('action="/login"')) {
        pages.push('sign-in');
        signInPage = page;
        page = await this.browser.follow(`${this.server.baseUrl}/login`, this.server.baseUrl, {
          form: { _csrf: inputValue(page.body, '_csrf'), return_to: inputValue(page.body, 'return_to'), email: this.account.email, password: this.account.password },
        });
      } else if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) {
        pages.push('consent');
        page = await this.browser.request(`${this.server.baseUrl}/oauth2/authorize/decision`, {
          form: { _csrf: inputValue(page.body, '_csrf'), authorization_request: inputValue(page.body, 'authorization_request'), decision: 'allow' },
        });
      } else break;
    }
    if (options.expectNoPages) assert.deepEqual(pages, [], 'the authorization completed without any page');
    assert.ok(page.status === 302 || page.status === 303, `expected a redirect back to the client, got ${page.status}`);
    const callback = new URL(page.headers.get('location') ?? '', this.server.baseUrl);
    assert.equal(`${callback.origin}${callback.pathname}`, this.client.redirectUris[0], 'back to the registered redirect_uri');
    return { pages, callback, state, nonce, codeVerifier: pkce?.verifier, signInPage };
  }

  /** The checks on a successful authorization response (RFC 6749 §4.1.2, RFC 9207, RFC 6819 §5.1.4.2.2). */
  expectCode(outcome: AuthorizationOutcome): string {
    const { callback } = outcome;
    assert.equal(callback.searchParams.get('error'), null, `${callback.searchParams.get('error')}: ${callback.searchParams.get('error_description')}`);
    const code = callback.searchParams.get('code');
    assert.ok(code, 'a code');
    assert.equal(callback.searchParams.get('state'), outcome.state, 'state returned unchanged');
    assert.equal(callback.searchParams.get('iss'), this.server.config.issuer, 'RFC 9207 iss equals the issuer');
    // EnsureMinimumAuthorizationCodeLength / Entropy: at least 128 bits of randomness.
    const randomPart = code.replace(/^latch_ac_/, '');
    assert.ok(randomPart.length >= 22 && new Set(randomPart).size >= 16, 'the code carries at least 128 random bits');
    return code;
  }

  /** The checks on an error sent back to the client (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6). */
  expectError(outcome: AuthorizationOutcome, ...codes: string[]): string {
    const error = outcome.callback.searchParams.get('error');
    assert.ok(error && codes.includes(error), `expected ${codes.join(' or ')}, got ${error}: ${outcome.callback.searchParams.get('error_description')}`);
    assert.equal(outcome.callback.searchParams.get('code'), null);
    assert.equal(outcome.callback.searchParams.get('state'), outcome.state);
    assert.equal(outcome.callback.searchParams.get('iss'), this.server.config.issuer);
    return error;
  }

  async exchange(code: string, outcome: AuthorizationOutcome, auth: ClientAuthMethod = 'client_secret_basic'): Promise<TokenOutcome> {
    const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: this.client.redirectUris[0]! };
    if (outcome.codeVerifier) form.code_verifier = outcome.codeVerifier;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (auth === 'client_secret_basic') {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(this.client.clientId)}:${encodeURIComponent(this.client.clientSecret)}`).toString('base64')}`;
    } else {
      form.client_id = this.client.clientId;
      form.client_secret = this.client.clientSecret;
    }
    const response = await fetch(`${this.server.baseUrl}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  /** The checks on a successful token response (RFC 6749 §5.1, OIDC Core §3.1.3.3). */
  expectTokens(tokens: TokenOutcome): void {
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    assert.match(tokens.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(tokens.headers.get('cache-control'), 'no-store');
    assert.equal(String(tokens.body.token_type).toLowerCase(), 'bearer');
    assert.equal(typeof tokens.body.access_token, 'string');
    assert.equal(typeof tokens.body.expires_in, 'number');
    assert.equal(typeof tokens.body.id_token, 'string', 'an id_token for scope openid');
  }

  /** The id_token checks of OIDC Core §3.1.3.7, with the signature verified against the published JWKS. */
  async validateIdToken(idToken: string, outcome: AuthorizationOutcome, accessToken?: string): Promise<IdTokenClaims> {
    const discovery = await fetchDiscovery(this.server);
    const header = decodeProtectedHeader(idToken);
    assert.ok(header.kid, 'the id_token names its key (OIDC Core §10.1)');
    assert.equal(header.alg, this.client.idTokenAlg ?? 'RS256', 'RS256 unless the client registered another algorithm');
    assert.ok(discovery.id_token_signing_alg_values_supported.includes(header.alg));
    const jwks = createLocalJWKSet(await (await fetch(discovery.jwks_uri.replace(this.server.config.issuer, this.server.baseUrl))).json());
    const { payload } = await jwtVerify(idToken, jwks, { issuer: discovery.issuer, audience: this.client.clientId, algorithms: [header.alg] });
    const claims = payload as IdTokenClaims;
    const now = Math.floor(Date.now() / 1000);
    assert.equal(claims.aud, this.client.clientId, 'aud is the client id (a single value)');
    if (claims.azp !== undefined) assert.equal(claims.azp, this.client.clientId);
    assert.ok(typeof claims.sub === 'string' && claims.sub.length > 0 && claims.sub.length <= 255, 'sub of at most 255 ASCII characters');
    assert.ok(typeof claims.exp === 'number' && claims.exp > now);
    assert.ok(typeof claims.iat === 'number' && Math.abs(claims.iat - now) <= 300, 'iat is now');
    assert.ok(typeof claims.auth_time === 'number' && claims.auth_time <= now + 5, 'auth_time present and not in the future');
    if (outcome.nonce === undefined) assert.equal(claims.nonce, undefined);
    else assert.equal(claims.nonce, outcome.nonce, 'nonce echoed');
    if (accessToken !== undefined && claims.at_hash !== undefined) {
      const digest = createHash(header.alg === 'EdDSA' ? 'sha512' : 'sha256').update(accessToken).digest();
      assert.equal(claims.at_hash, digest.subarray(0, digest.length / 2).toString('base64url'), 'at_hash matches the access token');
    }
    return claims;
  }

  async userinfo(accessToken: string, method: 'GET' | 'POST' = 'GET'): Promise<{ status: number; headers: Headers; body: any }> {
    const response = await fetch(`${this.server.baseUrl}/oauth2/userinfo`, { method, headers: { authorization: `Bearer ${accessToken}` } });
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  /**
   * The suite's happy flow: authorize, code checks, token exchange, id_token validation and a userinfo GET
   * whose sub matches. Returns everything for the module's own checks.
   */
  async fullFlow(
    extra: Record<string, string | undefined> = {},
    options: Parameters<ConformanceRp['authorize']>[1] & { auth?: ClientAuthMethod } = {},
  ): Promise<{ outcome: AuthorizationOutcome; tokens: TokenOutcome; claims: IdTokenClaims; userinfo: any }> {
    const outcome = await this.authorize(extra, options);
    const code = this.expectCode(outcome);
    const tokens = await this.exchange(code, outcome, options.auth);
    this.expectTokens(tokens);
    const claims = await this.validateIdToken(tokens.body.id_token, outcome, tokens.body.access_token);
    const info = await this.userinfo(tokens.body.access_token);
    assert.equal(info.status, 200);
    assert.match(info.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(info.body.sub, claims.sub, 'userinfo sub equals id_token sub (OIDC Core §5.3.2)');
    return { outcome, tokens, claims, userinfo: info.body };
  }
}
