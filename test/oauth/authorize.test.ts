/**
 * GET /oauth2/authorize and the consent decision (RFC 6749 §4.1.1–4.1.2.1, RFC 9207; docs/protocol-decisions.md
 * "Authorization request", "redirect_uri matching", "Scope", "Consent", "PKCE").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { authorize, authorizeUrl, decide, pkcePair, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REDIRECT_URI = 'https://app.example.com/callback';

describe('GET /oauth2/authorize', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: { email: string; password: string };

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({
      name: 'Authorize Test App',
      redirectUris: [REDIRECT_URI, 'https://app.example.com/cb?tenant=a', 'http://127.0.0.1/loopback', 'http://[::1]:8080/v6', 'http://localhost:8080/local'],
    });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  /** A raw GET of the authorize endpoint with the query exactly as given, redirects not followed. */
  async function getAuthorize(query: string, browser?: TestBrowser): Promise<BrowserResponse> {
    const url = `${server.baseUrl}/oauth2/authorize${query === '' ? '' : `?${query}`}`;
    if (browser) return browser.request(url);
    const response = await fetch(url, { redirect: 'manual' });
    return { status: response.status, url, headers: response.headers, body: await response.text() };
  }

  function query(params: Record<string, string | undefined>): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined) search.append(key, value);
    return search.toString();
  }

  const valid = () => ({ response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, scope: 'profile', state: 'st-123' });

  function assertErrorPage(response: BrowserResponse, code: string): void {
    assert.equal(response.status, 400, response.body.slice(0, 300));
    assert.equal(response.headers.get('location'), null, 'an error page never redirects');
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    // A person reads this page (issue 19 item 2): plain words, never the OAuth code or parameter names; the code is
    // in the log line and the developer console under the request id the page shows.
    const text = pageText(response.body);
    assert.ok(!text.includes(code) && !/redirect_uri|client_id/.test(text), `page speaks to people, without ${code} or parameter names`);
    assert.match(text, /This sign-in link does not work/);
    const requestId = response.headers.get('x-request-id');
    assert.ok(requestId && pageText(response.body).includes(requestId), 'page shows the request id');
  }

  function assertErrorRedirect(response: BrowserResponse, code: string, options: { redirectUri?: string; state?: string | null } = {}): URL {
    assert.equal(response.status, 302, response.body.slice(0, 300));
    const location = new URL(response.headers.get('location') ?? '');
    assert.equal(`${location.origin}${location.pathname}`, options.redirectUri ?? REDIRECT_URI);
    assert.equal(location.searchParams.get('error'), code);
    assert.ok(location.searchParams.get('error_description'), 'error_description is set');
    assert.equal(location.searchParams.get('state'), options.state === undefined ? 'st-123' : options.state);
    assert.equal(location.searchParams.get('iss'), server.config.issuer);
    assert.equal(location.searchParams.get('code'), null);
    return location;
  }

  describe('client_id and redirect_uri problems show an error page and never redirect', () => {
    test('no parameters at all', async () => {
      assertErrorPage(await getAuthorize(''), 'invalid_request');
    });
    test('missing client_id', async () => {
      const { client_id: _omitted, ...params } = valid();
      assertErrorPage(await getAuthorize(query(params)), 'invalid_request');
    });
    test('unknown client_id', async () => {
      assertErrorPage(await getAuthorize(query({ ...valid(), client_id: 'no-such-client' })), 'invalid_request');
    });
    test('missing redirect_uri', async () => {
      const { redirect_uri: _omitted, ...params } = valid();
      assertErrorPage(await getAuthorize(query(params)), 'invalid_request');
    });
    test('unregistered redirect_uri, and the page names no registered URI', async () => {
      const response = await getAuthorize(query({ ...valid(), redirect_uri: 'https://evil.example.net/callback' }));
      assertErrorPage(response, 'invalid_request');
      for (const registered of client.redirectUris) assert.ok(!response.body.includes(registered), `page must not reveal ${registered}`);
      // The app is named, and its homepage would be the way back; the technical reason is for its developer.
      assert.match(pageText(response.body), /Authorize Test App sent you here with a sign-in request that cannot be accepted/);
    });
    test('duplicated client_id', async () => {
      assertErrorPage(await getAuthorize(`${query(valid())}&client_id=${client.clientId}`), 'invalid_request');
    });
    test('duplicated redirect_uri', async () => {
      assertErrorPage(await getAuthorize(`${query(valid())}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`), 'invalid_request');
    });
    test('errors that would otherwise redirect stay on the page when redirect_uri is bad', async () => {
      assertErrorPage(await getAuthorize(query({ ...valid(), response_type: 'token', redirect_uri: 'https://evil.example.net/' })), 'invalid_request');
    });
  });

  describe('redirect_uri matching is exact string comparison', () => {
    const rejected: Array<[string, string]> = [
      ['trailing slash added', `${REDIRECT_URI}/`],
      ['path case changed', 'https://app.example.com/Callback'],
      ['host case changed', 'https://APP.example.com/callback'],
      ['scheme changed', 'http://app.example.com/callback'],
      ['default port written out', 'https://app.example.com:443/callback'],
      ['query added', `${REDIRECT_URI}?x=1`],
      ['registered query changed', 'https://app.example.com/cb?tenant=b'],
      ['registered query dropped', 'https://app.example.com/cb'],
      ['sub-path', `${REDIRECT_URI}/more`],
      ['fragment added', `${REDIRECT_URI}#frag`],
      ['percent-encoding changed', 'https://app.example.com/%63allback'],
      ['localhost is not a loopback IP: its port must match', 'http://localhost:9090/local'],
      ['loopback IP path still compared exactly', 'http://127.0.0.1:5000/loopback/'],
      ['loopback IP with another scheme', 'https://127.0.0.1:5000/loopback'],
      ['loopback IP on a port above 65535', 'http://127.0.0.1:99999/loopback'],
      ['loopback IP on port 0', 'http://127.0.0.1:0/loopback'],
      ['[::1] on a port above 65535', 'http://[::1]:65536/v6'],
    ];
    for (const [why, uri] of rejected) {
      test(`rejects ${why}: ${uri}`, async () => {
        assertErrorPage(await getAuthorize(query({ ...valid(), redirect_uri: uri })), 'invalid_request');
      });
    }

    const accepted: Array<[string, string]> = [
      ['the registered URI', REDIRECT_URI],
      ['a registered URI with its query', 'https://app.example.com/cb?tenant=a'],
      ['a registered 127.0.0.1 URI on any port (RFC 8252 §7.3)', 'http://127.0.0.1:51234/loopback'],
      ['a registered 127.0.0.1 URI without a port', 'http://127.0.0.1/loopback'],
      ['a registered [::1] URI on another port (RFC 8252 §7.3)', 'http://[::1]:9/v6'],
      ['a registered 127.0.0.1 URI on the highest port', 'http://127.0.0.1:65535/loopback'],
      ['a registered localhost URI on its own port', 'http://localhost:8080/local'],
    ];
    for (const [why, uri] of accepted) {
      test(`accepts ${why}`, async () => {
        const response = await getAuthorize(query({ ...valid(), redirect_uri: uri }));
        assert.equal(response.status, 302);
        assert.match(response.headers.get('location') ?? '', /^\/login\?return_to=/, 'a valid request without a session goes to sign-in');
      });
    }
  });

  describe('once client and redirect_uri are verified, errors go to the redirect_uri with state and iss', () => {
    test('missing response_type → invalid_request', async () => {
      const { response_type: _omitted, ...params } = valid();
      assertErrorRedirect(await getAuthorize(query(params)), 'invalid_request');
    });
    test('response_type=token (implicit flow) → unsupported_response_type', async () => {
      assertErrorRedirect(await getAuthorize(query({ ...valid(), response_type: 'token' })), 'unsupported_response_type');
    });
    test('response_type=code id_token → unsupported_response_type', async () => {
      assertErrorRedirect(await getAuthorize(query({ ...valid(), response_type: 'code id_token' })), 'unsupported_response_type');
    });
    test('unknown scope → invalid_scope', async () => {
      assertErrorRedirect(await getAuthorize(query({ ...valid(), scope: 'profile admin' })), 'invalid_scope');
    });
    test('duplicated state → invalid_request, and no state is echoed', async () => {
      assertErrorRedirect(await getAuthorize(`${query(valid())}&state=other`), 'invalid_request', { state: null });
    });
    test('duplicated scope → invalid_request', async () => {
      assertErrorRedirect(await getAuthorize(`${query(valid())}&scope=profile`), 'invalid_request');
    });
    test('duplicated response_type → invalid_request', async () => {
      assertErrorRedirect(await getAuthorize(`${query(valid())}&response_type=code`), 'invalid_request');
    });
    test('duplicated code_challenge → invalid_request', async () => {
      const { challenge } = pkcePair();
      const q = query({ ...valid(), code_challenge: challenge, code_challenge_method: 'S256' });
      assertErrorRedirect(await getAuthorize(`${q}&code_challenge=${challenge}`), 'invalid_request');
    });
    test('PKCE: code_challenge_method plain → invalid_request (S256 only)', async () => {
      const { challenge } = pkcePair();
      assertErrorRedirect(await getAuthorize(query({ ...valid(), code_challenge: challenge, code_challenge_method: 'plain' })), 'invalid_request');
    });
    test('PKCE: code_challenge without code_challenge_method → invalid_request', async () => {
      assertErrorRedirect(await getAuthorize(query({ ...valid(), code_challenge: pkcePair().challenge })), 'invalid_request');
    });
    test('PKCE: code_challenge_method without code_challenge → invalid_request', async () => {
      assertErrorRedirect(await getAuthorize(query({ ...valid(), code_challenge_method: 'S256' })), 'invalid_request');
    });
    test('PKCE: malformed code_challenge → invalid_request', async () => {
      for (const challenge of ['too-short', 'x'.repeat(44), `${'a'.repeat(42)}=`, `${'a'.repeat(42)}+`]) {
        assertErrorRedirect(await getAuthorize(query({ ...valid(), code_challenge: challenge, code_challenge_method: 'S256' })), 'invalid_request');
      }
    });
    test('the state comes back byte for byte, however odd', async () => {
      const state = 'a b+c/d=e&f?g#h%20ü🙂';
      assertErrorRedirect(await getAuthorize(query({ ...valid(), state, response_type: 'token' })), 'unsupported_response_type', { state });
    });
    test('error_description uses only the RFC 6749 §4.1.2.1 characters, even when it echoes what was sent', async () => {
      const response = await getAuthorize(query({ ...valid(), scope: 'profile "ünïcode"\\ x' }));
      const location = assertErrorRedirect(response, 'invalid_scope');
      const description = location.searchParams.get('error_description') ?? '';
      assert.match(description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
      assert.ok(description.includes('%C3%BC'), `non-ASCII is percent-encoded: ${description}`);
    });
    test('a registered redirect_uri with a query keeps it, and the error parameters are added', async () => {
      const response = await getAuthorize(query({ ...valid(), redirect_uri: 'https://app.example.com/cb?tenant=a', scope: 'nope' }));
      const location = assertErrorRedirect(response, 'invalid_scope', { redirectUri: 'https://app.example.com/cb' });
      assert.equal(location.searchParams.get('tenant'), 'a');
    });
    test('an error redirect to a loopback URI keeps the port that was sent', async () => {
      const response = await getAuthorize(query({ ...valid(), redirect_uri: 'http://127.0.0.1:4567/loopback', response_type: 'token' }));
      assertErrorRedirect(response, 'unsupported_response_type', { redirectUri: 'http://127.0.0.1:4567/loopback' });
    });
    test('error redirects do not leak the page URL to the client (Referrer-Policy: no-referrer)', async () => {
      const response = await getAuthorize(query({ ...valid(), scope: 'nope' }));
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    });
  });

  describe('scope', () => {
    for (const scope of [undefined, '', 'profile', 'email', 'email profile', 'openid email profile', 'profile  email']) {
      test(`scope ${JSON.stringify(scope)} is accepted`, async () => {
        const response = await getAuthorize(query({ ...valid(), scope }));
        assert.equal(response.status, 302);
        assert.match(response.headers.get('location') ?? '', /^\/login\?/);
      });
    }
  });

  describe('with a signed-in user', () => {
    test('no session: the sign-in page, then consent, then the code with the exact state and iss', async () => {
      const browser = new TestBrowser();
      const state = 'x/y+z= ~!';
      const signInPage = await browser.follow(authorizeUrl(server.baseUrl, { ...valid(), state }), server.baseUrl);
      assert.equal(signInPage.status, 200);
      assert.ok(signInPage.body.includes('action="/login"'));
      const consentPage = await signIn(browser, server.baseUrl, signInPage, user.email, user.password);
      assert.equal(consentPage.status, 200);
      const text = pageText(consentPage.body);
      assert.ok(text.includes('Authorize Test App'), 'the consent page names the client');
      for (const item of ['email', 'name', 'avatar']) assert.ok(text.toLowerCase().includes(item), `the consent page lists ${item}`);
      assert.ok(/<button[^>]*value="allow"[^>]*>\s*Allow\s*<\/button>/.test(consentPage.body), 'an Allow button');
      assert.ok(/<button[^>]*value="deny"[^>]*>\s*Deny\s*<\/button>/.test(consentPage.body), 'a Deny button');
      const redirect = await decide(browser, server.baseUrl, consentPage, 'allow');
      assert.equal(redirect.status, 303);
      const location = new URL(redirect.headers.get('location') ?? '');
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
      assert.equal(location.searchParams.get('state'), state);
      assert.equal(location.searchParams.get('iss'), server.config.issuer);
      assert.match(location.searchParams.get('code') ?? '', /^latch_ac_[0-9a-f]{11}[A-Za-z0-9_-]{43}$/);
    });

    test('HEAD never issues a code (a safe method must not change anything)', async () => {
      const browser = new TestBrowser();
      await authorize(browser, server.baseUrl, valid(), user);
      const before = await snapshotState(server);
      const response = await browser.request(authorizeUrl(server.baseUrl, valid()), { method: 'HEAD' });
      assert.ok(response.status >= 400 && response.status < 500, `status ${response.status}`);
      assert.equal(response.headers.get('location'), null);
      assert.deepEqual(await snapshotState(server), before);
    });

    test('a request without state is accepted, and the redirect carries no state', async () => {
      const { state: _omitted, ...params } = valid();
      const redirect = await authorize(new TestBrowser(), server.baseUrl, params, user);
      assert.ok(redirect.searchParams.get('code'));
      assert.equal(redirect.searchParams.has('state'), false);
    });

    test('remembered consent: the next request for the same scope skips the page', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      const freshUser = { email: fresh.email, password };
      await authorize(browser, server.baseUrl, valid(), freshUser);
      const second = await browser.request(authorizeUrl(server.baseUrl, { ...valid(), state: 'second' }));
      assert.equal(second.status, 302, 'no consent page the second time');
      const location = new URL(second.headers.get('location') ?? '');
      assert.ok(location.searchParams.get('code'));
      assert.equal(location.searchParams.get('state'), 'second');
      // profile covers the email (spec 1.4), so a request for email alone is covered by the same consent
      const third = await browser.request(authorizeUrl(server.baseUrl, { ...valid(), scope: 'email' }));
      assert.equal(third.status, 302);
    });

    test('consent to profile does not cover openid: the page is shown again for a wider scope', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      await authorize(browser, server.baseUrl, valid(), { email: fresh.email, password });
      const wider = await browser.request(authorizeUrl(server.baseUrl, { ...valid(), scope: 'openid profile' }));
      assert.equal(wider.status, 200);
      assert.ok(wider.body.includes('/oauth2/authorize/decision'));
    });

    test('consent is per client: another client asks again', async () => {
      const { user: fresh, password } = await server.createUser();
      const other = await server.createClient({ name: 'Other App', redirectUris: [REDIRECT_URI] });
      const browser = new TestBrowser();
      await authorize(browser, server.baseUrl, valid(), { email: fresh.email, password });
      const page = await browser.request(authorizeUrl(server.baseUrl, { ...valid(), client_id: other.clientId }));
      assert.equal(page.status, 200);
      assert.ok(pageText(page.body).includes('Other App'));
    });

    test('deny → access_denied with state and iss; no code and no consent stored', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      const before = await snapshotState(server);
      const redirect = await authorize(browser, server.baseUrl, valid(), { email: fresh.email, password }, 'deny');
      assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT_URI);
      assert.equal(redirect.searchParams.get('error'), 'access_denied');
      assert.ok(redirect.searchParams.get('error_description'));
      assert.equal(redirect.searchParams.get('state'), 'st-123');
      assert.equal(redirect.searchParams.get('iss'), server.config.issuer);
      assert.equal(redirect.searchParams.get('code'), null);
      const after = await snapshotState(server);
      assert.deepEqual(after.consents, before.consents);
      assert.deepEqual(after.authorization_codes, before.authorization_codes);
      // and the next request asks again
      const again = await browser.request(authorizeUrl(server.baseUrl, valid()));
      assert.equal(again.status, 200);
      assert.ok(again.body.includes('/oauth2/authorize/decision'));
    });

    test('the consent form re-validates the request: a tampered redirect_uri gets the error page', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      const signInPage = await browser.follow(authorizeUrl(server.baseUrl, valid()), server.baseUrl);
      const consentPage = await signIn(browser, server.baseUrl, signInPage, fresh.email, password);
      const tampered = query({ ...valid(), redirect_uri: 'https://evil.example.net/callback' });
      const response = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, {
        form: { _csrf: inputValue(consentPage.body, '_csrf'), authorization_request: tampered, decision: 'allow' },
      });
      assertErrorPage(response, 'invalid_request');
    });

    test('the consent form with neither allow nor deny gets the error page and grants nothing', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      const signInPage = await browser.follow(authorizeUrl(server.baseUrl, valid()), server.baseUrl);
      const consentPage = await signIn(browser, server.baseUrl, signInPage, fresh.email, password);
      const before = await snapshotState(server);
      const response = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, {
        form: { _csrf: inputValue(consentPage.body, '_csrf'), authorization_request: inputValue(consentPage.body, 'authorization_request'), decision: 'maybe' },
      });
      assertErrorPage(response, 'invalid_request');
      assert.deepEqual(await snapshotState(server), before);
    });

    test('the consent decision without a session goes back to sign-in and grants nothing', async () => {
      const { user: fresh, password } = await server.createUser();
      const browser = new TestBrowser();
      const signInPage = await browser.follow(authorizeUrl(server.baseUrl, valid()), server.baseUrl);
      const consentPage = await signIn(browser, server.baseUrl, signInPage, fresh.email, password);
      // Another browser, with a valid CSRF token of its own but no session, posts the same form.
      const stranger = new TestBrowser();
      const strangerPage = await stranger.request(`${server.baseUrl}/login`);
      const response = await stranger.request(`${server.baseUrl}/oauth2/authorize/decision`, {
        form: { _csrf: inputValue(strangerPage.body, '_csrf'), authorization_request: inputValue(consentPage.body, 'authorization_request'), decision: 'allow' },
      });
      assert.equal(response.status, 303);
      assert.match(response.headers.get('location') ?? '', /^\/login\?return_to=/);
    });

    test('a valid request errs to the redirect_uri before any session is needed, and a session does not change that', async () => {
      const browser = new TestBrowser();
      await authorize(browser, server.baseUrl, valid(), user);
      const response = await getAuthorize(query({ ...valid(), scope: 'admin' }), browser);
      assertErrorRedirect(response, 'invalid_scope');
    });
  });
});
