/** The OpenID Connect parameters of the authorization request (OIDC Core §3.1.2.1–3.1.2.6). */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { SignJWT } from 'jose';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { authorize, authorizeUrl, decide, exchangeCode, signIn, type FlowClient } from '../helpers/oauth-flow.js';
import { randomValue, runOidcFlow, verifyIdToken } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Account = { email: string; password: string };

function isSignInPage(page: BrowserResponse): boolean {
  return page.status === 200 && page.body.includes('action="/login"');
}
function isConsentPage(page: BrowserResponse): boolean {
  return page.status === 200 && page.body.includes('/oauth2/authorize/decision');
}
function redirectTarget(page: BrowserResponse, baseUrl: string): URL {
  assert.ok(page.status === 302 || page.status === 303, `expected a redirect to the client, got ${page.status}: ${pageText(page.body).slice(0, 300)}`);
  return new URL(page.headers.get('location') ?? '', baseUrl);
}

describe('OpenID Connect authorization request', () => {
  let server: TestServer;
  let client: FlowClient;
  let account: Account;
  let userId: number;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient();
    const { user, password } = await server.createUser();
    account = { email: user.email, password };
    userId = user.id;
  });
  afterEach(() => mock.timers.reset());
  after(async () => server.stop());

  const params = (extra: Record<string, string | undefined> = {}) => ({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0],
    scope: 'openid profile',
    state: randomValue(),
    nonce: randomValue(),
    ...extra,
  });

  /** A browser with a session and a remembered consent for `client`, and the first id_token. */
  async function signedInBrowser(): Promise<{ browser: TestBrowser; idToken: string; authTime: number }> {
    const flow = await runOidcFlow(server, client, account);
    const idToken = flow.token.body.id_token as string;
    const { payload } = await verifyIdToken(server, idToken, client.clientId);
    return { browser: flow.browser, idToken, authTime: payload.auth_time as number };
  }

  async function expectError(browser: TestBrowser, extra: Record<string, string | undefined>, error: string): Promise<URL> {
    const sent = params(extra);
    const page = await browser.follow(authorizeUrl(server.baseUrl, sent), server.baseUrl);
    const target = redirectTarget(page, server.baseUrl);
    assert.equal(`${target.origin}${target.pathname}`, client.redirectUris[0]);
    assert.equal(target.searchParams.get('error'), error, target.searchParams.get('error_description') ?? '');
    assert.equal(target.searchParams.get('state'), sent.state);
    assert.equal(target.searchParams.get('iss'), server.config.issuer);
    assert.equal(target.searchParams.get('code'), null);
    return target;
  }

  describe('prompt', () => {
    test('prompt=none without a session → login_required, without any page', async () => {
      await expectError(new TestBrowser(), { prompt: 'none' }, 'login_required');
    });

    test('prompt=none with a session and a remembered consent → a code, silently', async () => {
      const { browser } = await signedInBrowser();
      const page = await browser.request(authorizeUrl(server.baseUrl, params({ prompt: 'none' })));
      assert.ok(redirectTarget(page, server.baseUrl).searchParams.get('code'));
    });

    test('prompt=none with a session but no consent for this client → consent_required', async () => {
      const { browser } = await signedInBrowser();
      const other = await server.createClient({ name: 'Other App' });
      const sent = { ...params({ prompt: 'none' }), client_id: other.clientId, redirect_uri: other.redirectUris[0] };
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, sent)), server.baseUrl);
      assert.equal(target.searchParams.get('error'), 'consent_required');
    });

    test('prompt=login forces a new sign-in, and the id_token then has a later auth_time', async () => {
      const { browser, authTime } = await signedInBrowser();
      mock.timers.enable({ apis: ['Date'], now: Date.now() + 5000 });
      const sent = params({ prompt: 'login' });
      const loginPage = await browser.follow(authorizeUrl(server.baseUrl, sent), server.baseUrl);
      assert.ok(isSignInPage(loginPage), 'the sign-in page, although the browser has a session');
      const afterSignIn = await signIn(browser, server.baseUrl, loginPage, account.email, account.password);
      const code = redirectTarget(afterSignIn, server.baseUrl).searchParams.get('code');
      assert.ok(code, 'the sign-in satisfies prompt=login: no second sign-in page');
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code });
      const { payload } = await verifyIdToken(server, token.body.id_token, client.clientId);
      assert.ok((payload.auth_time as number) >= authTime + 5, `auth_time ${payload.auth_time} later than ${authTime}`);
    });

    test('prompt=select_account shows the sign-in page too (one account per session: sign in as someone else)', async () => {
      const { browser } = await signedInBrowser();
      assert.ok(isSignInPage(await browser.follow(authorizeUrl(server.baseUrl, params({ prompt: 'select_account' })), server.baseUrl)));
    });

    test('prompt=consent shows the consent page although consent is remembered', async () => {
      const { browser } = await signedInBrowser();
      const page = await browser.follow(authorizeUrl(server.baseUrl, params({ prompt: 'consent' })), server.baseUrl);
      assert.ok(isConsentPage(page));
      const target = redirectTarget(await decide(browser, server.baseUrl, page, 'allow'), server.baseUrl);
      assert.ok(target.searchParams.get('code'));
    });

    for (const bad of ['bogus', 'none login', 'none consent', 'login create']) {
      test(`malformed prompt "${bad}" → invalid_request`, async () => {
        await expectError(new TestBrowser(), { prompt: bad }, 'invalid_request');
      });
    }
  });

  describe('max_age', () => {
    test('a session older than max_age needs a new sign-in; with prompt=none that is login_required', async () => {
      const { browser, authTime } = await signedInBrowser();
      mock.timers.enable({ apis: ['Date'], now: Date.now() + 3000 });
      await expectError(browser, { max_age: '1', prompt: 'none' }, 'login_required');
      const loginPage = await browser.follow(authorizeUrl(server.baseUrl, params({ max_age: '1' })), server.baseUrl);
      assert.ok(isSignInPage(loginPage));
      const code = redirectTarget(await signIn(browser, server.baseUrl, loginPage, account.email, account.password), server.baseUrl).searchParams.get('code');
      assert.ok(code);
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code });
      const { payload } = await verifyIdToken(server, token.body.id_token, client.clientId);
      assert.ok((payload.auth_time as number) > authTime);
    });

    test('a session younger than max_age is used as it is', async () => {
      const { browser, authTime } = await signedInBrowser();
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params({ max_age: '10000' }))), server.baseUrl);
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code: target.searchParams.get('code')! });
      assert.equal((await verifyIdToken(server, token.body.id_token, client.clientId)).payload.auth_time, authTime);
    });

    test('max_age=0 always asks for a sign-in, once', async () => {
      const { browser } = await signedInBrowser();
      const loginPage = await browser.follow(authorizeUrl(server.baseUrl, params({ max_age: '0' })), server.baseUrl);
      assert.ok(isSignInPage(loginPage));
      assert.ok(redirectTarget(await signIn(browser, server.baseUrl, loginPage, account.email, account.password), server.baseUrl).searchParams.get('code'));
    });

    for (const bad of ['-1', 'abc', '1.5', '1e3', ' 10', '99999999999']) {
      test(`malformed max_age "${bad}" → invalid_request`, async () => {
        await expectError(new TestBrowser(), { max_age: bad }, 'invalid_request');
      });
    }
  });

  describe('nonce', () => {
    test('a nonce longer than 512 characters → invalid_request', async () => {
      await expectError(new TestBrowser(), { nonce: 'n'.repeat(513) }, 'invalid_request');
    });
    test('a nonce with control characters → invalid_request', async () => {
      await expectError(new TestBrowser(), { nonce: 'abc\ndef' }, 'invalid_request');
    });
    test('a nonce sent twice → invalid_request', async () => {
      const url = new URL(authorizeUrl(server.baseUrl, params()));
      url.searchParams.append('nonce', 'second');
      const target = redirectTarget(await new TestBrowser().follow(url.href, server.baseUrl), server.baseUrl);
      assert.equal(target.searchParams.get('error'), 'invalid_request');
    });
  });

  describe('id_token_hint', () => {
    test('with prompt=none and the same user signed in → a code', async () => {
      const { browser, idToken } = await signedInBrowser();
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params({ prompt: 'none', id_token_hint: idToken }))), server.baseUrl);
      assert.ok(target.searchParams.get('code'), target.href);
    });

    test('naming another user than the one signed in → login_required with prompt=none, else the sign-in page', async () => {
      const { idToken } = await signedInBrowser();
      const { user: other, password } = await server.createUser();
      const browser = new TestBrowser();
      await authorize(browser, server.baseUrl, params(), { email: other.email, password });
      await expectError(browser, { prompt: 'none', id_token_hint: idToken }, 'login_required');
      const page = await browser.follow(authorizeUrl(server.baseUrl, params({ id_token_hint: idToken })), server.baseUrl);
      assert.ok(isSignInPage(page));
      assert.equal(inputValue(page.body, 'email'), account.email, 'the hinted user is pre-filled');
    });

    test('an expired id_token_hint is still a valid hint', async () => {
      const { browser, idToken } = await signedInBrowser();
      mock.timers.enable({ apis: ['Date'], now: Date.now() + 2 * 3600 * 1000 });
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params({ prompt: 'none', id_token_hint: idToken }))), server.baseUrl);
      assert.ok(target.searchParams.get('code'), target.searchParams.get('error_description') ?? '');
    });

    test('a tampered hint, a hint for another client, a foreign key or a garbage value → invalid_request', async () => {
      const { browser, idToken } = await signedInBrowser();
      const [header, payload, signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: String(userId + 1) })).toString('base64url')}.${signature}`;
      const otherKid = `${Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'unknown-kid' })).toString('base64url')}.${payload}.${signature}`;
      const { generateKeyPair } = await import('jose');
      const foreign = await generateKeyPair('RS256');
      const kid = JSON.parse(Buffer.from(header!, 'base64url').toString()).kid;
      const foreignSigned = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(foreign.privateKey);
      const otherClient = await server.createClient({ name: 'Second' });
      for (const hint of [tampered, otherKid, foreignSigned, 'not.a.jwt', 'garbage']) {
        await expectError(browser, { prompt: 'none', id_token_hint: hint }, 'invalid_request');
      }
      const sent = { ...params({ prompt: 'none', id_token_hint: idToken }), client_id: otherClient.clientId, redirect_uri: otherClient.redirectUris[0] };
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, sent)), server.baseUrl);
      assert.equal(target.searchParams.get('error'), 'invalid_request', 'a hint issued to another client');
    });

    test('a hint signed by a key that was retired is refused', async () => {
      const { browser, idToken } = await signedInBrowser();
      const env = { LATCH_DATABASE_URL: server.config.databaseUrl, ...(server.config.databaseSchema && { LATCH_DATABASE_SCHEMA: server.config.databaseSchema }), LATCH_SECRET: server.config.secret };
      assert.equal((await runLatchCli(['keys', 'rotate', '--alg', 'RS256', '--lead-seconds', '0'], env)).code, 0);
      const kid = JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString()).kid;
      const retired = await runLatchCli(['keys', 'retire', kid], env);
      assert.equal(retired.code, 0, retired.stderr);
      await server.signingKeys.refresh();
      const target = await expectError(browser, { prompt: 'none', id_token_hint: idToken }, 'invalid_request');
      assert.match(target.searchParams.get('error_description') ?? '', /JWKS/);
      // New id_tokens come from the new key and work as hints.
      const fresh = await runOidcFlow(server, client, account, { browser });
      const ok = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params({ prompt: 'none', id_token_hint: fresh.token.body.id_token }))), server.baseUrl);
      assert.ok(ok.searchParams.get('code'));
    });
  });

  describe('other parameters', () => {
    test('login_hint pre-fills the email on the sign-in page', async () => {
      const page = await new TestBrowser().follow(authorizeUrl(server.baseUrl, params({ login_hint: 'someone@example.com' })), server.baseUrl);
      assert.ok(isSignInPage(page));
      assert.equal(inputValue(page.body, 'email'), 'someone@example.com');
    });

    test('display, ui_locales, claims_locales, acr_values, claims and unknown parameters are accepted', async () => {
      const { browser } = await signedInBrowser();
      const extra = {
        display: 'popup',
        ui_locales: 'fr-CA fr en',
        claims_locales: 'de',
        acr_values: '1 2',
        claims: JSON.stringify({ userinfo: { name: { essential: true } } }),
        extra: 'foobar',
      };
      const target = redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params(extra))), server.baseUrl);
      assert.ok(target.searchParams.get('code'), target.searchParams.get('error_description') ?? '');
    });

    test('request → request_not_supported; request_uri → request_uri_not_supported', async () => {
      await expectError(new TestBrowser(), { request: 'eyJhbGciOiJub25lIn0.eyJzY29wZSI6Im9wZW5pZCJ9.' }, 'request_not_supported');
      await expectError(new TestBrowser(), { request_uri: 'https://client.example.org/request.jwt' }, 'request_uri_not_supported');
    });

    test('response_mode other than query → invalid_request', async () => {
      await expectError(new TestBrowser(), { response_mode: 'form_post' }, 'invalid_request');
      const { browser } = await signedInBrowser();
      assert.ok(redirectTarget(await browser.request(authorizeUrl(server.baseUrl, params({ response_mode: 'query' }))), server.baseUrl).searchParams.get('code'));
    });
  });

  describe('POST /oauth2/authorize', () => {
    test('a form-encoded authorization request runs the same flow as GET', async () => {
      const browser = new TestBrowser();
      const sent = params();
      const posted = await browser.request(`${server.baseUrl}/oauth2/authorize`, { form: sent as Record<string, string> });
      assert.equal(posted.status, 303);
      let page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
      if (isSignInPage(page)) page = await signIn(browser, server.baseUrl, page, account.email, account.password);
      if (isConsentPage(page)) page = await decide(browser, server.baseUrl, page, 'allow');
      const target = redirectTarget(page, server.baseUrl);
      assert.equal(target.searchParams.get('state'), sent.state);
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code: target.searchParams.get('code')! });
      assert.equal((await verifyIdToken(server, token.body.id_token, client.clientId)).payload.nonce, sent.nonce);
    });

    test('errors of a POSTed request are reported as for GET: unregistered redirect_uri on a page, others redirected', async () => {
      const browser = new TestBrowser();
      const bad = await browser.follow(`${server.baseUrl}/oauth2/authorize`, server.baseUrl, { form: { ...(params() as Record<string, string>), redirect_uri: 'https://evil.example.net/cb' } });
      assert.equal(bad.status, 400);
      // The page speaks plain words (issue 19 item 2); the reason is in the log and the developer console.
      assert.match(pageText(bad.body), /sent you here with a sign-in request that cannot be accepted/);
      const prompted = await browser.follow(`${server.baseUrl}/oauth2/authorize`, server.baseUrl, { form: { ...(params() as Record<string, string>), prompt: 'none' } });
      assert.equal(redirectTarget(prompted, server.baseUrl).searchParams.get('error'), 'login_required');
    });
  });
});
