/**
 * HTTP semantics at every door (issue 16 item 6): a known path asked with a method it does not answer is 405
 * with `Allow` (RFC 9110 §15.5.6) in the surface's own shape (JSON under /oauth2/ and /.well-known/, a page
 * elsewhere); an unknown path stays 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
    for (const path of ['/oauth2/authorize?response_type=code&client_id=%ZZ', '/login?return_to=%E0%A4']) {
      const page = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });
      assert.equal(page.status, 400, path);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/, path);
      assert.match(await page.text(), /malformed percent-encoding/, path);
    }
  });

  test('well-formed escapes still work (the spec’s clients encode redirect_uri)', async () => {
    const response = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb`, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.doesNotMatch(await response.text(), /percent-encoding/, 'refused for the unknown client, not for the encoding');
  });
});
