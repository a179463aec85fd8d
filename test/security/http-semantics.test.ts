/**
 * HTTP semantics at every door (issue 16 item 6): a known path asked with a method it does not answer is 405
 * with `Allow` (RFC 9110 §15.5.6) in the surface's own shape (JSON under /oauth2/ and /.well-known/, a page
 * elsewhere); an unknown path stays 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import { snapshotState } from '../helpers/database-snapshot.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('405 Method Not Allowed with Allow', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  const api: { method: string; path: string; allow: string }[] = [
    { method: 'GET', path: '/oauth2/token', allow: 'POST' },
    { method: 'PUT', path: '/oauth2/token', allow: 'POST' },
    { method: 'GET', path: '/oauth2/revoke', allow: 'POST' },
    { method: 'GET', path: '/oauth2/introspect', allow: 'POST' },
    { method: 'DELETE', path: '/.well-known/openid-configuration', allow: 'GET, HEAD' },
  ];
  for (const row of api) {
    test(`${row.method} ${row.path} → 405, Allow: ${row.allow}, JSON invalid_request that names the method to use`, async () => {
      const response = await fetch(`${server.baseUrl}${row.path}?client_secret=should-not-echo`, { method: row.method });
      assert.equal(response.status, 405);
      // OPTIONS is there too where CORS preflights are answered.
      assert.deepEqual((response.headers.get('allow') ?? '').split(', ').filter((m) => m !== 'OPTIONS'), row.allow.split(', '));
      const body = await response.json();
      assert.equal(body.error, 'invalid_request');
      assert.match(body.error_description, new RegExp(`answers ${row.allow.split(', ')[0]}.*not ${row.method}`));
      assert.ok(!JSON.stringify(body).includes('should-not-echo'));
    });
  }

  test('a page asked with another method: a 405 page with Allow, and the documents\' headers', async () => {
    const response = await fetch(`${server.baseUrl}/login`, { method: 'DELETE' });
    assert.equal(response.status, 405);
    assert.match(response.headers.get('allow') ?? '', /GET/);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await response.text(), /requests only, not DELETE/);
    assert.ok(response.headers.get('content-security-policy'));
  });

  test('an unknown path is still 404, for the API and for pages', async () => {
    assert.equal((await fetch(`${server.baseUrl}/oauth2/tokens`, { method: 'POST' })).status, 404);
    assert.equal((await fetch(`${server.baseUrl}/no-such-page`)).status, 404);
  });
});

describe('malformed percent-encoding is refused, never passed on as literal text', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('in a token request body: 400 invalid_request naming the problem; the endpoint never sees %ZZ as a code', async () => {
    for (const body of ['grant_type=authorization_code&code=%ZZ', 'grant_type=authorization_code&code=abc%C3']) {
      const response = await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      assert.equal(response.status, 400, body);
      const answer = await response.json();
      assert.equal(answer.error, 'invalid_request');
      assert.match(answer.error_description, /form body has malformed percent-encoding/);
    }
  });

  test('in a query string: the API answers invalid_request, the authorization endpoint and pages a 400 page', async () => {
    const api = await fetch(`${server.baseUrl}/.well-known/openid-configuration?x=%G1`);
    assert.equal(api.status, 400);
    assert.match((await api.json()).error_description, /query string has malformed percent-encoding \(a % sign not followed by two hexadecimal digits\)/);
    // A page of Latch's own names the problem; the authorization endpoint's page speaks to the person in plain words
    // (issue 19 item 2), the reason in the log with the request id.
    for (const [path, shown] of [
      ['/oauth2/authorize?response_type=code&client_id=%ZZ', /This sign-in link does not work/],
      ['/login?return_to=%E0%A4', /malformed percent-encoding/],
    ] as const) {
      const page = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });
      assert.equal(page.status, 400, path);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/, path);
      assert.match(await page.text(), shown, path);
    }
  });

  // Refused by the router before any hook runs (http/client-error.ts frameworkErrorAnswer): each still gets the
  // security headers and a request id, and a page's path the error page a person can read.
  for (const [path, status] of [
    ['/avatars/%ff', 400],
    [`/avatars/${'a'.repeat(300)}`, 414],
    ['/login%C0', 400],
  ] as const) {
    test(`a path the router cannot read on a page (${path.slice(0, 24)}…) → ${status}, the error page with every page's headers`, async () => {
      const page = await fetch(`${server.baseUrl}${path}`);
      assert.equal(page.status, status);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
      assert.ok(page.headers.get('x-request-id'));
      const html = await page.text();
      assert.match(html, status === 400 ? /broken escape/ : /too long/);
      assert.ok(html.includes(page.headers.get('x-request-id')!), 'the page shows the request id');
    });
  }
  test('the router\'s error page knows who is signed in: its header offers the account, not "Sign in"', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/avatars/%ff`);
    assert.equal(page.status, 400);
    assert.match(page.body, /href="\/account"/);
    assert.doesNotMatch(page.body, /href="\/login"/);
    // Without the session cookie, the same address offers "Sign in".
    const anonymous = await (await fetch(`${server.baseUrl}/avatars/%ff`)).text();
    assert.match(anonymous, /href="\/login"/);
  });
  for (const [path, status] of [
    ['/oauth2/register/%ff', 400],
    [`/oauth2/register/${'a'.repeat(300)}`, 414],
  ] as const) {
    test(`a path the router cannot read under /oauth2/ (${path.slice(0, 24)}…) → ${status} invalid_request JSON, with the API's headers`, async () => {
      const response = await fetch(`${server.baseUrl}${path}`);
      assert.equal(response.status, status);
      const body = await response.json();
      assert.equal(body.error, 'invalid_request');
      assert.match(body.error_description, status === 400 ? /not valid percent-encoded UTF-8/ : /too long/);
      assert.equal(body.request_id, response.headers.get('x-request-id'));
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('cache-control'), 'no-store');
    });
  }

  test('well-formed escapes still work (the spec’s clients encode redirect_uri)', async () => {
    const response = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb`, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.doesNotMatch(await response.text(), /percent-encoding/, 'refused for the unknown client, not for the encoding');
  });
});

describe('413 Content Too Large on every surface', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_REGISTRATION: 'open' } });
  });
  after(async () => server.stop());

  // Over the 64 KiB body limit (app.ts BODY_LIMIT_BYTES).
  const form = `a=${'x'.repeat(70 * 1024)}`;
  const json = JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], client_name: 'x'.repeat(70 * 1024) });
  const rows: { path: string; type: string; body: string; answer: 'json' | 'page' }[] = [
    { path: '/oauth2/token', type: 'application/x-www-form-urlencoded', body: form, answer: 'json' },
    { path: '/oauth2/revoke', type: 'application/x-www-form-urlencoded', body: form, answer: 'json' },
    { path: '/oauth2/introspect', type: 'application/x-www-form-urlencoded', body: form, answer: 'json' },
    { path: '/oauth2/userinfo', type: 'application/x-www-form-urlencoded', body: form, answer: 'json' },
    { path: '/oauth2/register', type: 'application/json', body: json, answer: 'json' },
    { path: '/nothing-here', type: 'application/x-www-form-urlencoded', body: form, answer: 'json' },
    { path: '/oauth2/authorize/decision', type: 'application/x-www-form-urlencoded', body: form, answer: 'page' },
    { path: '/login', type: 'application/x-www-form-urlencoded', body: form, answer: 'page' },
    { path: '/oauth2/logout', type: 'application/x-www-form-urlencoded', body: form, answer: 'page' },
  ];
  for (const row of rows) {
    test(`POST ${row.path} with ${row.type} over the limit → 413, ${row.answer === 'json' ? 'invalid_request in JSON' : 'an error page'}`, async () => {
      const response = await fetch(`${server.baseUrl}${row.path}`, { method: 'POST', headers: { 'content-type': row.type }, body: row.body });
      assert.equal(response.status, 413);
      if (row.answer === 'json') {
        const body = await response.json();
        assert.equal(body.error, 'invalid_request');
        assert.match(body.error_description, /too large/);
      } else {
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      }
    });
  }
});

describe('a request body with a Content-Encoding (RFC 9110 §8.4, §15.5.16)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_REGISTRATION: 'open' } });
  });
  after(async () => server.stop());

  const metadata = JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
  const rows: { what: string; path: string; type: string; coding: string; body: Buffer; answer: 'json' | 'page' }[] = [
    { what: 'a gzipped token request', path: '/oauth2/token', type: 'application/x-www-form-urlencoded', coding: 'gzip', body: gzipSync('grant_type=authorization_code&code=x'), answer: 'json' },
    { what: 'a gzipped revocation', path: '/oauth2/revoke', type: 'application/x-www-form-urlencoded', coding: 'gzip', body: gzipSync('token=x'), answer: 'json' },
    // Labelled br but sent plain: read as it came, this registered a client.
    { what: 'a registration labelled br', path: '/oauth2/register', type: 'application/json', coding: 'br', body: Buffer.from(metadata), answer: 'json' },
    { what: 'a deflated sign-in form', path: '/login', type: 'application/x-www-form-urlencoded', coding: 'deflate', body: deflateSync('email=a%40example.com&password=x'), answer: 'page' },
  ];
  for (const row of rows) {
    test(`${row.what} → 415 with Accept-Encoding: identity, saying to send it uncompressed, and nothing changed`, async () => {
      const before = await snapshotState(server);
      const response = await fetch(`${server.baseUrl}${row.path}`, { method: 'POST', headers: { 'content-type': row.type, 'content-encoding': row.coding }, body: new Uint8Array(row.body) });
      assert.equal(response.status, 415);
      assert.equal(response.headers.get('accept-encoding'), 'identity');
      const text = await response.text();
      if (row.answer === 'json') assert.equal(JSON.parse(text).error, 'invalid_request');
      assert.match(text, new RegExp(`Content-Encoding ${row.coding}, which Latch does not decode; send it uncompressed`));
      assert.deepEqual(await snapshotState(server), before);
    });
  }

  test('Content-Encoding identity, and a bodiless GET that names a coding, are read as before', async () => {
    const registered = await fetch(`${server.baseUrl}/oauth2/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body: metadata });
    assert.equal(registered.status, 201, await registered.text());
    const discovery = await fetch(`${server.baseUrl}/.well-known/openid-configuration`, { headers: { 'content-encoding': 'gzip' } });
    assert.equal(discovery.status, 200);
  });
});

describe('every 401 names a challenge (RFC 9110 §15.5.2)', () => {
  let server: TestServer;
  const initial = 'initial-access-token-for-the-challenge-tests-0123456789';
  before(async () => {
    server = await startTestServer({ env: { LATCH_REGISTRATION: 'token', LATCH_REGISTRATION_TOKEN: initial } });
  });
  after(async () => server.stop());

  const formPost = (authorization?: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization && { authorization }) },
    body: 'grant_type=authorization_code&code=x&token=x',
  });
  const rows: { what: string; path: string; init: RequestInit; challenge: RegExp }[] = [
    { what: 'token, no client authentication', path: '/oauth2/token', init: formPost(), challenge: /^Basic realm="latch"/ },
    { what: 'token, wrong Basic credentials', path: '/oauth2/token', init: formPost(`Basic ${Buffer.from('nobody:wrong').toString('base64')}`), challenge: /^Basic realm="latch"/ },
    { what: 'token, a Bearer header', path: '/oauth2/token', init: formPost('Bearer abc'), challenge: /^Basic realm="latch"/ },
    { what: 'revocation, no client authentication', path: '/oauth2/revoke', init: formPost(), challenge: /^Basic realm="latch"/ },
    { what: 'introspection, no client authentication', path: '/oauth2/introspect', init: formPost(), challenge: /^Basic realm="latch"/ },
    // RFC 6750 §3.1: no error code when no Bearer token was sent, another scheme included.
    { what: 'userinfo, no token', path: '/oauth2/userinfo', init: {}, challenge: /^Bearer realm="latch"$/ },
    { what: 'userinfo, another scheme (Basic)', path: '/oauth2/userinfo', init: { headers: { authorization: 'Basic YTpi' } }, challenge: /^Bearer realm="latch"$/ },
    { what: 'userinfo, an unknown token', path: '/oauth2/userinfo', init: { headers: { authorization: 'Bearer nope' } }, challenge: /^Bearer realm="latch", error="invalid_token", error_description="/ },
    { what: 'registration, no initial access token', path: '/oauth2/register', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, challenge: /^Bearer realm="latch"$/ },
    { what: 'registration, a wrong initial access token', path: '/oauth2/register', init: { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' }, body: '{}' }, challenge: /error="invalid_token"/ },
    { what: 'registration management, a wrong registration access token', path: '/oauth2/register/some-client', init: { headers: { authorization: 'Bearer wrong' } }, challenge: /error="invalid_token"/ },
  ];
  for (const row of rows) {
    test(`${row.what} → 401 with WWW-Authenticate`, async () => {
      const response = await fetch(`${server.baseUrl}${row.path}`, row.init);
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', row.challenge);
    });
  }
});
