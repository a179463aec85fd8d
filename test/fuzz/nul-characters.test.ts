/**
 * A NUL character (U+0000) wherever a caller can put one: a path parameter, a query string, a urlencoded or
 * multipart body, HTTP Basic credentials, a JSON body (registration, a page form posted by a script). PostgreSQL
 * cannot store or compare text with a NUL ("invalid byte sequence for encoding UTF8: 0x00"), and every such request
 * was a 500 there; on SQLite a client_name with one was stored. Now each is a 4xx that names the NUL, on both
 * databases, and changes nothing (http/percent-encoding.ts nulCharacter, http/json-body.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue } from '../helpers/browser.js';
import { basicAuthorization } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { assertDescribedClientError, assertNoServerError, checkProperty, encodePairs, sendRaw, type RawHttpResponse } from '../helpers/fuzz.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const FORM = 'application/x-www-form-urlencoded';

interface NulRequest {
  name: string;
  method: string;
  path: string;
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  /** False where the page speaks to a person in general words (the authorization endpoint's error page). */
  namesNul?: false;
}

function multipart(fields: Array<[string, string]>): Buffer {
  return Buffer.from(`${fields.map(([name, value]) => `--b0undary\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')}--b0undary--\r\n`);
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a NUL character in any part of a request (${database})`, () => {
    let server: TestServer;
    let client: Awaited<ReturnType<TestServer['createClient']>>;
    let page: { cookie: string; csrf: string };

    before(async () => {
      server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'open' } });
      client = await server.createClient({ redirectUris: ['https://app.example.com/callback'] });
      await server.createUser();
      const login = await sendRaw(server.baseUrl, { method: 'GET', path: '/login' });
      const setCookie = login.headers['set-cookie'];
      page = { cookie: (Array.isArray(setCookie) ? setCookie : [String(setCookie)]).map((cookie) => cookie.split(';')[0]).join('; '), csrf: inputValue(login.text, '_csrf') };
    });
    after(async () => server.stop());

    function send(request: NulRequest): Promise<RawHttpResponse> {
      return sendRaw(server.baseUrl, { method: request.method, path: request.path, headers: request.headers ?? [], body: request.body });
    }

    /** One request of each way in, each with a NUL in the one place that reaches the database first. */
    function nulRequests(): NulRequest[] {
      const spa = { redirect_uris: ['https://spa.example.com/cb'], token_endpoint_auth_method: 'none' };
      return [
        { name: 'path parameter', method: 'GET', path: '/oauth2/register/a%00b', headers: [['authorization', 'Bearer x']] },
        { name: 'authorize client_id', method: 'GET', path: `/oauth2/authorize?response_type=code&client_id=a%00b&redirect_uri=${encodeURIComponent('https://app.example.com/callback')}`, namesNul: false },
        { name: 'logout client_id', method: 'GET', path: '/oauth2/logout?client_id=a%00b' },
        ...['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/device_authorization'].flatMap((path): NulRequest[] => [
          { name: `${path} client_id in the form`, method: 'POST', path, headers: [['content-type', FORM]], body: encodePairs([['grant_type', 'client_credentials'], ['client_id', 'a\u0000b'], ['token', 'x']]) },
          { name: `${path} raw NUL in the form`, method: 'POST', path, headers: [['content-type', FORM]], body: `grant_type=client_credentials&token=x&client_id=a\u0000b` },
          { name: `${path} client_id in multipart`, method: 'POST', path, headers: [['content-type', 'multipart/form-data; boundary=b0undary']], body: multipart([['grant_type', 'client_credentials'], ['client_id', 'a\u0000b'], ['token', 'x']]) },
          { name: `${path} Basic, percent-encoded`, method: 'POST', path, headers: [['content-type', FORM], ['authorization', basicAuthorization('a\u0000b', 'secret')]], body: 'grant_type=client_credentials&token=x' },
          { name: `${path} Basic, raw`, method: 'POST', path, headers: [['content-type', FORM], ['authorization', basicAuthorization('a\u0000b', 'secret', { encode: false })]], body: 'grant_type=client_credentials&token=x' },
        ]),
        { name: 'registration client_name', method: 'POST', path: '/oauth2/register', headers: [['content-type', 'application/json']], body: JSON.stringify({ ...spa, client_name: 'a\u0000b' }) },
        { name: 'registration redirect_uri', method: 'POST', path: '/oauth2/register', headers: [['content-type', 'application/json']], body: JSON.stringify({ ...spa, redirect_uris: ['https://spa.example.com/\u0000'] }) },
        {
          name: 'sign-in form',
          method: 'POST',
          path: '/login',
          headers: [['content-type', FORM], ['cookie', page.cookie]],
          body: encodePairs([['_csrf', page.csrf], ['email', 'a\u0000b@example.com'], ['password', 'x']]),
        },
        {
          name: 'sign-in form posted as JSON',
          method: 'POST',
          path: '/login',
          headers: [['content-type', 'application/json'], ['cookie', page.cookie]],
          body: JSON.stringify({ _csrf: page.csrf, email: 'a\u0000b@example.com', password: 'x' }),
        },
      ];
    }

    test('each way in: a 4xx that says what was wrong, never a 5xx, and nothing changed', async () => {
      const before = await snapshotState(server);
      for (const request of nulRequests()) {
        const response = await send(request);
        assertNoServerError(response, request.name);
        assert.ok(response.status === 400 || response.status === 401, `${request.name}: 400 or 401, got ${response.status}: ${response.text.slice(0, 300)}`);
        assertDescribedClientError(response, request.name);
        if (request.namesNul !== false) assert.match(response.text, /NUL character/, `${request.name}: the answer names the NUL`);
      }
      assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      // The same client still authenticates.
      const introspected = await send({ name: 'introspect', method: 'POST', path: '/oauth2/introspect', headers: [['content-type', FORM], ['authorization', basicAuthorization(client.clientId, client.clientSecret)]], body: 'token=x' });
      assert.equal(introspected.status, 200, introspected.text);
      assert.deepEqual(JSON.parse(introspected.text), { active: false });
    });

    test('a JWT-shaped token whose unverified jti holds a NUL: revocation 200 (RFC 7009 §2.2), introspection inactive, nothing changed', async () => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const token = `${part({ alg: 'RS256', typ: 'at+jwt' })}.${part({ jti: 'a\u0000b', client_id: client.clientId, sub: '1' })}.${Buffer.from('signature').toString('base64url')}`;
      const before = await snapshotState(server);
      const headers: Array<[string, string]> = [['content-type', FORM], ['authorization', basicAuthorization(client.clientId, client.clientSecret)]];
      const revoked = await send({ name: 'revoke', method: 'POST', path: '/oauth2/revoke', headers, body: encodePairs([['token', token]]) });
      assertNoServerError(revoked, 'revocation');
      assert.equal(revoked.status, 200, revoked.text);
      const introspected = await send({ name: 'introspect', method: 'POST', path: '/oauth2/introspect', headers, body: encodePairs([['token', token]]) });
      assert.equal(introspected.status, 200, introspected.text);
      assert.deepEqual(JSON.parse(introspected.text), { active: false });
      assert.deepEqual(await snapshotState(server), before, 'nothing changed');
    });

    test('a NUL anywhere in a valid request’s values: never a 5xx, nothing changed', async () => {
      const before = await snapshotState(server);
      await checkProperty(
        fc.asyncProperty(fc.constantFrom(...nulRequests()), fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), async (request, prefix, suffix) => {
          const value = `${prefix}\u0000${suffix}`;
          // The request's NUL replaced by another text around a NUL; still a NUL somewhere, of any kind.
          const body = typeof request.body === 'string' ? request.body.replace('a%00b', encodeURIComponent(value)).replace('a\u0000b', value) : request.body;
          const response = await send({ ...request, body });
          assertNoServerError(response, `${request.name} ${JSON.stringify(value)}`);
          assertDescribedClientError(response, `${request.name} ${JSON.stringify(value)}`);
        }),
        { numRuns: 40 },
      );
      assert.deepEqual(await snapshotState(server), before, 'nothing changed');
    });
  });
}
