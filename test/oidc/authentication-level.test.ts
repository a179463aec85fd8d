/**
 * How a person signed in, told to apps and asked for by them (issue 17 item 5; docs/protocol-decisions.md
 * "Authentication methods and levels"): `amr` (RFC 8176) and `acr` in id_tokens, refreshed ones included;
 * `acr_values` asking for a second factor that the session lacks (a step-up: the second step only, the same
 * sid); a client registered to require a second factor; prompt=none when a step-up would be needed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { registerClient } from '../../src/clients/client-registration.js';
import { ACR } from '../../src/session/authentication-methods.js';
import { inputValue, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { authorizeUrl, decide, exchangeCode, pkcePair, signIn, type FlowClient } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, submitSecondFactor, type TestAuthenticator } from '../helpers/two-step.js';

describe('acr and amr in id_tokens, and step-up through acr_values', () => {
  let server: TestServer;
  let client: FlowClient;
  let strict: FlowClient;
  const redirectUri = 'https://rp.example.com/callback';

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Level App', redirectUris: [redirectUri] });
    const registered = await registerClient(server.storage, { name: 'Strict App', redirectUris: [redirectUri], requireMfa: true }, { developmentMode: false });
    strict = { clientId: registered.client.clientId, clientSecret: registered.clientSecret, redirectUris: [redirectUri] };
  });
  after(async () => server.stop());

  /** Walks the browser from the authorize URL: signs in and allows when asked; stops at the two-step page or the app. */
  async function walk(browser: TestBrowser, as: FlowClient, extra: Record<string, string>, user?: { email: string; password: string }): Promise<{ page: BrowserResponse; verifier: string }> {
    const { verifier, challenge } = pkcePair();
    const params = { client_id: as.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid offline_access', state: 's', nonce: 'n', code_challenge: challenge, code_challenge_method: 'S256', ...extra };
    let page = await browser.follow(authorizeUrl(server.baseUrl, params), server.baseUrl);
    if (page.status === 200 && page.body.includes('action="/login"')) {
      assert.ok(user, 'a sign-in was asked for');
      page = await signIn(browser, server.baseUrl, page, user.email, user.password);
    }
    if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) page = await decide(browser, server.baseUrl, page, 'allow');
    return { page, verifier };
  }

  /** The app's end: the code from the redirect, exchanged; returns the id_token's claims and the refresh token. */
  async function finish(as: FlowClient, page: BrowserResponse, verifier: string): Promise<{ claims: Record<string, unknown>; refreshToken: string }> {
    assert.ok(page.status === 302 || page.status === 303, `a redirect to the app, got ${page.status}: ${page.body.slice(0, 300)}`);
    const location = new URL(page.headers.get('location')!);
    assert.equal(location.origin + location.pathname, redirectUri);
    const code = location.searchParams.get('code');
    assert.ok(code, `a code, got ${location.search}`);
    const response = await exchangeCode(server.baseUrl, as, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return { claims: decodeJwt(response.body.id_token), refreshToken: response.body.refresh_token };
  }

  async function newUser(): Promise<{ email: string; password: string }> {
    const { user, password } = await server.createUser();
    return { email: user.email, password };
  }

  test('a password sign-in: amr ["pwd"], acr sfa; discovery lists the acr values and the claims', async () => {
    const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
    assert.deepEqual(metadata.acr_values_supported, [ACR.singleFactor, ACR.multiFactor, 'phr', 'phrh']);
    for (const claim of ['acr', 'amr', 'auth_time']) assert.ok(metadata.claims_supported.includes(claim), claim);

    const browser = new TestBrowser();
    const { page, verifier } = await walk(browser, client, {}, await newUser());
    const { claims } = await finish(client, page, verifier);
    assert.deepEqual(claims.amr, ['pwd']);
    assert.equal(claims.acr, ACR.singleFactor);
  });

  test('with an authenticator app: amr ["pwd","otp","mfa"], acr mfa; a refreshed id_token keeps both', async () => {
    const user = await newUser();
    const browser = new TestBrowser();
    await signIn(browser, server.baseUrl, await browser.request(`${server.baseUrl}/login`), user.email, user.password);
    const { app } = await enrolAuthenticator(server, browser);
    const fresh = new TestBrowser();
    let { page, verifier } = await walk(fresh, client, {}, user);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('action="/login/two-step"'), 'the second step after the password');
    page = await submitSecondFactor(server, fresh, await app.freshCode());
    page = await fresh.follow(new URL(page.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) page = await decide(fresh, server.baseUrl, page, 'allow');
    const { claims, refreshToken } = await finish(client, page, verifier);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    assert.equal(claims.acr, ACR.multiFactor);

    const refreshed = await exchangeCode(server.baseUrl, client, { grant_type: 'refresh_token', refresh_token: refreshToken });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const again = decodeJwt(refreshed.body.id_token);
    assert.deepEqual(again.amr, ['pwd', 'otp', 'mfa'], 'OIDC Core §12.2: the refreshed id_token describes the same sign-in');
    assert.equal(again.acr, ACR.multiFactor);
  });

  describe('step-up: acr_values asks for more than the session has', () => {
    let user: { email: string; password: string };
    let browser: TestBrowser;
    let app: TestAuthenticator;
    let firstSid: unknown;

    before(async () => {
      // Signed in with the password alone, then an authenticator app added: the session is still single-factor.
      user = await newUser();
      browser = new TestBrowser();
      const { page, verifier } = await walk(browser, client, {}, user);
      firstSid = (await finish(client, page, verifier)).claims.sid;
      ({ app } = await enrolAuthenticator(server, browser));
    });

    test('prompt=none cannot step up: interaction_required, no page', async () => {
      const { page } = await walk(browser, client, { acr_values: ACR.multiFactor, prompt: 'none' });
      const location = new URL(page.headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'interaction_required');
      assert.match(location.searchParams.get('error_description') ?? '', /second factor/);
    });

    test('acr_values=mfa: only the second step is asked for (no password), and the id_token says mfa with the same sid', async () => {
      let { page, verifier } = await walk(browser, client, { acr_values: ACR.multiFactor });
      assert.equal(page.status, 200, page.body.slice(0, 300));
      assert.ok(page.body.includes('action="/login/two-step"'), 'the second step');
      assert.ok(!page.body.includes('name="password"'), 'not the password again');
      assert.match(page.body, /asks for a second step/);
      page = await submitSecondFactor(server, browser, await app.freshCode());
      assert.equal(page.status, 303);
      page = await browser.follow(new URL(page.headers.get('location')!, server.baseUrl).href, server.baseUrl);
      const { claims } = await finish(client, page, verifier);
      assert.equal(claims.acr, ACR.multiFactor);
      assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
      assert.equal(claims.sid, firstSid, 'the same session, raised: apps holding its sid are not signed out');

      // Now the session reaches mfa: the next request asking for it gets a code at once.
      const next = await walk(browser, client, { acr_values: `${ACR.multiFactor} urn:example:unknown` });
      assert.equal((await finish(client, next.page, next.verifier)).claims.acr, ACR.multiFactor);
    });

    test('acr_values=phr without a passkey: nothing can reach it, so the request goes on with the level the session has', async () => {
      const { page, verifier } = await walk(browser, client, { acr_values: 'phr' });
      const { claims } = await finish(client, page, verifier);
      assert.equal(claims.acr, ACR.multiFactor, 'acr_values are voluntary (OIDC Core §3.1.2.1): the acr says what was reached');
    });
  });

  describe('a client that requires two-step verification', () => {
    test('a user without a second factor is sent back with unmet_authentication_requirements, saying what to do', async () => {
      const browser = new TestBrowser();
      const { page } = await walk(browser, strict, {}, await newUser());
      assert.ok(page.status === 302 || page.status === 303, `${page.status}`);
      const location = new URL(page.headers.get('location')!);
      assert.equal(location.origin + location.pathname, redirectUri);
      assert.equal(location.searchParams.get('error'), 'unmet_authentication_requirements');
      assert.match(location.searchParams.get('error_description') ?? '', /Strict App requires two-step verification.*\/account\/two-step/);
      assert.equal(location.searchParams.get('state'), 's');
    });

    test('a user with an authenticator app signs in with it, and the id_token says mfa', async () => {
      const user = await newUser();
      const setup = new TestBrowser();
      await signIn(setup, server.baseUrl, await setup.request(`${server.baseUrl}/login`), user.email, user.password);
      const { app } = await enrolAuthenticator(server, setup);
      // The set-up browser's session is single-factor: the client's requirement steps it up.
      let { page, verifier } = await walk(setup, strict, {});
      assert.ok(page.body.includes('action="/login/two-step"'), 'the second step');
      page = await submitSecondFactor(server, setup, await app.freshCode());
      page = await setup.follow(new URL(page.headers.get('location')!, server.baseUrl).href, server.baseUrl);
      if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) page = await decide(setup, server.baseUrl, page, 'allow');
      const { claims } = await finish(strict, page, verifier);
      assert.equal(claims.acr, ACR.multiFactor);
    });
  });

  test('a consent decision posted for a request the session does not satisfy issues no code', async () => {
    // The consent form is only shown to a session that reaches the level; a decision crafted for another request
    // (here: the strict client's) is validated from scratch, the level included.
    const browser = new TestBrowser();
    const { page } = await walk(browser, client, { prompt: 'consent', scope: 'openid profile' }, await newUser());
    assert.equal(page.status, 303, 'allowed for the ordinary client');
    const consent = await browser.follow(authorizeUrl(server.baseUrl, { client_id: client.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid email', state: 's', prompt: 'consent' }), server.baseUrl);
    assert.ok(consent.body.includes('/oauth2/authorize/decision'));
    const crafted = new URLSearchParams({ client_id: strict.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's' }).toString();
    const decided = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, { form: { _csrf: inputValue(consent.body, '_csrf'), authorization_request: crafted, decision: 'allow' } });
    const location = new URL(decided.headers.get('location') ?? '', server.baseUrl);
    assert.equal(location.searchParams.get('error'), 'unmet_authentication_requirements');
    assert.equal(location.searchParams.get('code'), null);
  });
});
