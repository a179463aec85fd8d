/**
 * POST /oauth2/token (RFC 6749 §2.3.1, §4.1.3, §5.1, §5.2; RFC 7636 §4.5–4.6; docs/protocol-decisions.md
 * "Token endpoint", "Client authentication", "Token response", "User object", "Authorization code", "PKCE").
 * "spec 4.2 A/B, 2.2, 2.3" in test names are the service's reference calls and tables (docs/protocol-decisions.md
 * "The service").
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import {
  basicAuthorization,
  callUserinfo,
  exchangeIssuedCode,
  issueCode,
  postToken,
  type RawResponse,
  type TestUser,
} from '../helpers/code-fixtures.js';
import { TestBrowser } from '../helpers/browser.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;

function assertOAuthError(response: RawResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(response.body.error, code, response.text);
  assert.equal(typeof response.body.error_description, 'string');
  assert.ok(response.body.error_description.length > 0);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('pragma'), 'no-cache');
  assert.equal(response.body.request_id, response.headers.get('x-request-id'), 'the body carries the request id of the response');
}

describe('POST /oauth2/token', () => {
  let server: TestServer;
  let client: Client;
  let user: TestUser;
  let userId: number;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Token Test App', redirectUris: ['https://app.example.com/callback', 'https://app.example.com/other'] });
    const created = await server.createUser({ name: 'Ada Lovelace' });
    user = { email: created.user.email, password: created.password };
    userId = created.user.id;
  });
  after(async () => server.stop());

  const baseForm = (code: string, extra: Record<string, string> = {}) => ({ grant_type: 'authorization_code', code, ...extra });

  describe('success: the spec 2.2 response with the 2.3 user object', () => {
    test('client_secret_post, form-urlencoded', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        form: baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier!, client_id: client.clientId, client_secret: client.clientSecret }),
      });
      assert.equal(response.status, 200, response.text);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(response.headers.get('pragma'), 'no-cache');
      assert.match(response.body.access_token, /^latch_at_[0-9a-f]{11}[A-Za-z0-9_-]{43}$/);
      assert.equal(response.body.token_type, 'Bearer');
      assert.equal(response.body.expires_in, 3600);
      assert.equal(typeof response.body.expires_in, 'number', 'expires_in is a JSON number');
      assert.equal(response.body.scope, 'profile');
      assert.deepEqual(response.body.user, {
        id: userId,
        sub: String(userId),
        email: user.email,
        email_verified: true,
        name: 'Ada Lovelace',
        avatar_url: 'https://images.example.com/avatar.png',
        client: 'Token Test App',
      });
    });

    test('client_secret_post, multipart/form-data (the spec reference call)', async () => {
      const issued = await issueCode(server, client, user);
      const form = new FormData();
      for (const [key, value] of Object.entries(
        baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier!, client_id: client.clientId, client_secret: client.clientSecret }),
      )) {
        form.append(key, value);
      }
      const response = await postToken(server.baseUrl, { body: form });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.user.id, userId);
    });

    test('client_secret_basic with percent-encoded credentials (openid-client, Auth.js)', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret, { encode: true }) },
        form: baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier! }),
      });
      assert.equal(response.status, 200, response.text);
    });

    test('client_secret_basic with raw credentials (arctic, grant)', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret, { encode: false }) },
        form: baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier! }),
      });
      assert.equal(response.status, 200, response.text);
    });

    test('client ids and secrets use only unreserved characters, so raw and percent-encoded Basic agree', async () => {
      for (const value of [client.clientId, client.clientSecret]) {
        assert.match(value, /^[A-Za-z0-9\-._~]+$/);
        assert.equal(encodeURIComponent(value), value);
      }
    });

    test('client_secret_basic with the scheme in another case, multipart body', async () => {
      const issued = await issueCode(server, client, user);
      const form = new FormData();
      form.append('grant_type', 'authorization_code');
      form.append('code', issued.code);
      form.append('code_verifier', issued.verifier!);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret).replace('Basic', 'bAsIc') },
        body: form,
      });
      assert.equal(response.status, 200, response.text);
    });

    test('spec 4.2 B: Basic with only grant_type and code (no redirect_uri) for a code issued without PKCE', async () => {
      const issued = await issueCode(server, client, user, { pkce: false });
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
        form: baseForm(issued.code),
      });
      assert.equal(response.status, 200, response.text);
    });

    test('Basic with the same client_id also in the body is accepted', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
        form: baseForm(issued.code, { client_id: client.clientId, code_verifier: issued.verifier! }),
      });
      assert.equal(response.status, 200, response.text);
    });

    test('a user without an avatar: avatar_url is left out', async () => {
      const { user: plain, password } = await server.createUser({ avatarUrl: null, emailVerified: false });
      const issued = await issueCode(server, client, { email: plain.email, password });
      const response = await exchangeIssuedCode(server, client, issued);
      assert.equal(response.status, 200, response.text);
      assert.equal('avatar_url' in response.body.user, false);
      assert.equal(response.body.user.email_verified, false);
    });

    test('the granted scope is reported exactly as asked: openid email profile keeps email (oauthlib compares them)', async () => {
      const issued = await issueCode(server, client, user, { scope: 'openid email profile' });
      const response = await exchangeIssuedCode(server, client, issued);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.scope.split(' ').sort(), ['email', 'openid', 'profile']);
      assert.equal(response.body.user.email, user.email);
      assert.equal(response.body.user.name, 'Ada Lovelace');
    });

    test('openid alone grants the account id only: scope openid, a user object with id, sub and client', async () => {
      const issued = await issueCode(server, client, user, { scope: 'openid' });
      const response = await exchangeIssuedCode(server, client, issued);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.scope, 'openid');
      assert.deepEqual(response.body.user, { id: userId, sub: String(userId), client: client.name });
      const claims = JSON.parse(Buffer.from(response.body.id_token.split('.')[1], 'base64url').toString());
      assert.equal(claims.email, undefined);
      assert.equal(claims.name, undefined);
      const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${response.body.access_token}` } });
      assert.deepEqual(await info.json(), { id: userId, sub: String(userId) });
    });

    test('openid email grants the email claims without the name: in the user object, the id_token and userinfo', async () => {
      const issued = await issueCode(server, client, user, { scope: 'openid email' });
      const response = await exchangeIssuedCode(server, client, issued);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.scope, 'openid email');
      assert.deepEqual(response.body.user, { id: userId, sub: String(userId), email: user.email, email_verified: true, client: client.name });
      const claims = JSON.parse(Buffer.from(response.body.id_token.split('.')[1], 'base64url').toString());
      assert.equal(claims.email, user.email);
      assert.equal(claims.name, undefined);
      const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${response.body.access_token}` } });
      assert.deepEqual(await info.json(), { id: userId, sub: String(userId), email: user.email, email_verified: true });
    });
  });

  describe('client authentication', () => {
    test('credentials both in Basic and in the body → invalid_request, and the code survives', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
        form: baseForm(issued.code, { code_verifier: issued.verifier!, client_id: client.clientId, client_secret: client.clientSecret }),
      });
      assertOAuthError(response, 400, 'invalid_request');
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });

    test('Basic with a different client_id in the body → invalid_request', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
        form: baseForm(issued.code, { code_verifier: issued.verifier!, client_id: 'someone-else' }),
      });
      assertOAuthError(response, 400, 'invalid_request');
    });

    test('wrong secret with Basic → 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, 'latch_cs_wrong') },
        form: baseForm(issued.code, { code_verifier: issued.verifier! }),
      });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
    });

    test('unknown client with Basic → 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const response = await postToken(server.baseUrl, { headers: { authorization: basicAuthorization('nobody', 'nothing') }, form: baseForm('latch_ac_x') });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
    });

    test('error_description uses only the RFC 6749 §5.2 characters, even when it echoes what was sent', async () => {
      const response = await postToken(server.baseUrl, { headers: { authorization: basicAuthorization('clïent "x"\\', 'secret') }, form: baseForm('latch_ac_x') });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.body.error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    });

    test('malformed Basic header → 401 invalid_client with WWW-Authenticate: Basic', async () => {
      for (const header of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from('%zz:%zz').toString('base64')}`]) {
        const response = await postToken(server.baseUrl, { headers: { authorization: header }, form: baseForm('latch_ac_x') });
        assertOAuthError(response, 401, 'invalid_client');
        assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /, header);
      }
    });

    test('client_secret_basic with a tab after the scheme; "Basic" alone is told the header is malformed, not that Basic is refused', async () => {
      const issued = await issueCode(server, client, user);
      const accepted = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret).replace('Basic ', 'Basic\t') },
        form: baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier! }),
      });
      assert.equal(accepted.status, 200, accepted.text);
      for (const header of ['Basic', 'basic', 'Basic\t']) {
        const refused = await postToken(server.baseUrl, { headers: { authorization: header }, form: baseForm('latch_ac_x') });
        assertOAuthError(refused, 401, 'invalid_client');
        assert.match(refused.body.error_description, /must be Basic base64\(client_id:client_secret\)/, JSON.stringify(header));
      }
    });

    test('a non-Basic Authorization header → 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const response = await postToken(server.baseUrl, { headers: { authorization: 'Bearer abc' }, form: baseForm('latch_ac_x') });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic /);
    });

    test('wrong secret in the body → 401 invalid_client with a Basic challenge (RFC 9110 §15.5.2: every 401 names one)', async () => {
      const response = await postToken(server.baseUrl, { form: baseForm('latch_ac_x', { client_id: client.clientId, client_secret: 'latch_cs_wrong' }) });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic realm="latch"/);
    });

    test('unknown client_id in the body → 401 invalid_client with a Basic challenge (RFC 9110 §15.5.2: every 401 names one)', async () => {
      const response = await postToken(server.baseUrl, { form: baseForm('latch_ac_x', { client_id: 'nobody', client_secret: 'x' }) });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic realm="latch"/);
    });

    test('no credentials at all → 401 invalid_client with a Basic challenge (RFC 9110 §15.5.2: every 401 names one)', async () => {
      const response = await postToken(server.baseUrl, { form: baseForm('latch_ac_x') });
      assertOAuthError(response, 401, 'invalid_client');
      assert.match(response.headers.get('www-authenticate') ?? '', /^Basic realm="latch"/);
    });

    test('client_id without client_secret → 401 invalid_client (Latch clients are confidential)', async () => {
      const response = await postToken(server.baseUrl, { form: baseForm('latch_ac_x', { client_id: client.clientId }) });
      assertOAuthError(response, 401, 'invalid_client');
    });

    test('a failed client authentication does not burn the code', async () => {
      const issued = await issueCode(server, client, user);
      const before = await snapshotState(server);
      const form = baseForm(issued.code, { redirect_uri: issued.redirectUri, code_verifier: issued.verifier! });
      const attempts = [
        { headers: { authorization: basicAuthorization(client.clientId, 'latch_cs_wrong') }, form },
        { form: { ...form, client_id: client.clientId, client_secret: 'latch_cs_wrong' } },
        { form: { ...form, client_id: client.clientId } },
      ];
      for (const attempt of attempts) assertOAuthError(await postToken(server.baseUrl, attempt), 401, 'invalid_client');
      assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });

    test('a code issued to another client → invalid_grant, and the code still works for its own client', async () => {
      const other = await server.createClient({ name: 'Other', redirectUris: ['https://app.example.com/callback'] });
      const issued = await issueCode(server, client, user);
      const stolen = await exchangeIssuedCode(server, other, issued);
      assertOAuthError(stolen, 400, 'invalid_grant');
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });
  });

  describe('the code and its bindings', () => {
    test('redirect_uri different from the authorization request → invalid_grant, and the code survives', async () => {
      const issued = await issueCode(server, client, user);
      const response = await exchangeIssuedCode(server, client, { ...issued, redirectUri: 'https://app.example.com/other' });
      assertOAuthError(response, 400, 'invalid_grant');
      assert.match(response.body.error_description, /redirect_uri/);
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });

    test('PKCE: missing code_verifier → invalid_grant', async () => {
      const issued = await issueCode(server, client, user);
      const response = await exchangeIssuedCode(server, client, { ...issued, verifier: undefined });
      assertOAuthError(response, 400, 'invalid_grant');
      assert.match(response.body.error_description, /code_verifier is required/);
    });

    test('PKCE: wrong code_verifier → invalid_grant, and the code survives for the right one', async () => {
      const issued = await issueCode(server, client, user);
      const response = await exchangeIssuedCode(server, client, { ...issued, verifier: 'W'.repeat(43) });
      assertOAuthError(response, 400, 'invalid_grant');
      assert.match(response.body.error_description, /does not match/);
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });

    test('PKCE: malformed code_verifier → invalid_grant', async () => {
      const issued = await issueCode(server, client, user);
      for (const verifier of ['short', 'a'.repeat(129), `${'a'.repeat(42)} `, `${'a'.repeat(42)}+`]) {
        assertOAuthError(await exchangeIssuedCode(server, client, { ...issued, verifier }), 400, 'invalid_grant');
      }
    });

    test('PKCE downgrade: a code_verifier for a code issued without a challenge → invalid_grant', async () => {
      const issued = await issueCode(server, client, user, { pkce: false });
      const response = await exchangeIssuedCode(server, client, { ...issued, verifier: 'V'.repeat(43) });
      assertOAuthError(response, 400, 'invalid_grant');
      assert.match(response.body.error_description, /no code_challenge/);
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    });

    test('unknown code → invalid_grant', async () => {
      const response = await exchangeIssuedCode(server, client, { code: 'latch_ac_never-issued', redirectUri: 'https://app.example.com/callback', verifier: undefined, browser: undefined as never });
      assertOAuthError(response, 400, 'invalid_grant');
    });

    test('code reuse → invalid_grant, and the token issued from it is revoked', async () => {
      const issued = await issueCode(server, client, user);
      const first = await exchangeIssuedCode(server, client, issued);
      assert.equal(first.status, 200);
      const token = first.body.access_token as string;
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${token}`)).status, 200);
      const second = await exchangeIssuedCode(server, client, issued);
      assertOAuthError(second, 400, 'invalid_grant');
      assert.match(second.body.error_description, /already been used/);
      const info = await callUserinfo(server.baseUrl, `Bearer ${token}`);
      assert.equal(info.status, 401, 'the first token is revoked');
      assert.match(info.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    });

    test('code reuse by Basic after a post exchange is reuse as well', async () => {
      const issued = await issueCode(server, client, user, { pkce: false });
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
      const replay = await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form: baseForm(issued.code) });
      assertOAuthError(replay, 400, 'invalid_grant');
    });
  });

  describe('request shape', () => {
    test('missing grant_type → invalid_request', async () => {
      const response = await postToken(server.baseUrl, { form: { code: 'x', client_id: client.clientId, client_secret: client.clientSecret } });
      assertOAuthError(response, 400, 'invalid_request');
    });

    for (const grantType of ['password', 'implicit', 'urn:ietf:params:oauth:grant-type:jwt-bearer']) {
      test(`grant_type=${grantType} → unsupported_grant_type`, async () => {
        const response = await postToken(server.baseUrl, { form: { grant_type: grantType, client_id: client.clientId, client_secret: client.clientSecret } });
        assertOAuthError(response, 400, 'unsupported_grant_type');
      });
    }

    test('grant_type=client_credentials from a client not registered as a service → unauthorized_client (test/oauth/client-credentials.test.ts has the rest)', async () => {
      const response = await postToken(server.baseUrl, { form: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret } });
      assertOAuthError(response, 400, 'unauthorized_client');
    });

    test('missing code → invalid_request', async () => {
      const response = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', client_id: client.clientId, client_secret: client.clientSecret } });
      assertOAuthError(response, 400, 'invalid_request');
    });

    for (const name of ['code', 'grant_type', 'redirect_uri', 'client_id', 'code_verifier']) {
      test(`${name} sent twice → invalid_request, and the code survives`, async () => {
        const issued = await issueCode(server, client, user);
        const form = new URLSearchParams({
          grant_type: 'authorization_code',
          code: issued.code,
          redirect_uri: issued.redirectUri,
          code_verifier: issued.verifier!,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        });
        form.append(name, form.get(name)!);
        const response = await postToken(server.baseUrl, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
        assertOAuthError(response, 400, 'invalid_request');
        assert.match(response.body.error_description, new RegExp(`${name} was sent more than once`));
        assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
      });
    }

    test('a field sent twice in multipart → invalid_request', async () => {
      const form = new FormData();
      form.append('grant_type', 'authorization_code');
      form.append('code', 'a');
      form.append('code', 'b');
      form.append('client_id', client.clientId);
      form.append('client_secret', client.clientSecret);
      assertOAuthError(await postToken(server.baseUrl, { body: form }), 400, 'invalid_request');
    });

    for (const contentType of ['application/json', 'text/plain', 'application/xml', 'application/octet-stream']) {
      test(`Content-Type ${contentType} → invalid_request`, async () => {
        const response = await postToken(server.baseUrl, {
          headers: { 'content-type': contentType },
          body: JSON.stringify({ grant_type: 'authorization_code', code: 'x', client_id: client.clientId, client_secret: client.clientSecret }),
        });
        assertOAuthError(response, 400, 'invalid_request');
      });
    }

    test('no body at all → 401 invalid_client (nothing to authenticate with)', async () => {
      assertOAuthError(await postToken(server.baseUrl, {}), 401, 'invalid_client');
    });

    test('a file upload in multipart → invalid_request', async () => {
      const form = new FormData();
      form.append('grant_type', 'authorization_code');
      form.append('code', new Blob(['binary']), 'code.bin');
      form.append('client_id', client.clientId);
      form.append('client_secret', client.clientSecret);
      assertOAuthError(await postToken(server.baseUrl, { body: form }), 400, 'invalid_request');
    });

    for (const [why, body] of [
      ['truncated', '--xyz\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nauthorization_code\r\n'],
      ['not multipart at all', '{"grant_type":"authorization_code"}'],
      ['without its closing boundary', '--xyz\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nauth'],
    ] as const) {
      test(`a malformed multipart body (${why}) → invalid_request, not a server error`, async () => {
        const response = await postToken(server.baseUrl, { headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body });
        assertOAuthError(response, 400, 'invalid_request');
        assert.match(response.body.error_description, /multipart/);
      });
    }

    test('a multipart field over the size limit → invalid_request (never silently truncated)', async () => {
      const form = new FormData();
      form.append('grant_type', 'authorization_code');
      form.append('code', 'x'.repeat(20_000));
      form.append('client_id', client.clientId);
      form.append('client_secret', client.clientSecret);
      assertOAuthError(await postToken(server.baseUrl, { body: form }), 400, 'invalid_request');
    });

    test('an oversized body → 4xx JSON error', async () => {
      const response = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'x'.repeat(200_000) } });
      assert.ok(response.status >= 400 && response.status < 500, `status ${response.status}`);
      assert.equal(typeof response.body?.error, 'string');
    });

    test('GET /oauth2/token is not the token endpoint → 4xx JSON', async () => {
      const response = await fetch(`${server.baseUrl}/oauth2/token?grant_type=authorization_code`);
      assert.ok(response.status === 404 || response.status === 405, `status ${response.status}`);
      const body = await response.json();
      assert.equal(typeof body.error, 'string');
    });
  });
});

describe('POST /oauth2/token with short lifetimes', () => {
  let server: TestServer;
  let client: Client;
  let user: TestUser;

  before(async () => {
    server = await startTestServer({ env: { LATCH_AUTHORIZATION_CODE_TTL_SECONDS: '1', LATCH_ACCESS_TOKEN_TTL_SECONDS: '1' } });
    client = await server.createClient();
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  test('a code lives at least its configured lifetime, whatever the sub-second moment it was issued at', async () => {
    // Times are stored in whole seconds; an expiry rounded down would let a 1-second code issued late in a
    // second die a few milliseconds later. Issue codes just before a second boundary and exchange at once.
    const browser = new TestBrowser();
    await issueCode(server, client, user, { browser }); // signs in and remembers consent
    let checked = 0;
    for (let attempt = 0; attempt < 10 && checked < 3; attempt++) {
      while (Date.now() % 1000 < 850) await sleep(5);
      const issuedInSecond = Math.floor(Date.now() / 1000);
      const issued = await issueCode(server, client, user, { browser });
      if (Math.floor(Date.now() / 1000) !== issuedInSecond) continue; // too slow to tell; try again
      while (Math.floor(Date.now() / 1000) === issuedInSecond) await sleep(5);
      // well under the 1-second lifetime later, but in the next second
      const response = await exchangeIssuedCode(server, client, issued);
      assert.equal(response.status, 200, response.text);
      checked += 1;
    }
    assert.ok(checked > 0, 'at least one code was issued and exchanged across a second boundary');
  });

  test('an expired code → invalid_grant', async () => {
    const issued = await issueCode(server, client, user);
    await sleep(2100);
    const response = await exchangeIssuedCode(server, client, issued);
    assertOAuthError(response, 400, 'invalid_grant');
    assert.match(response.body.error_description, /expired/);
  });

  test('an expired access token → 401 invalid_token at userinfo; expires_in says how long it lives', async () => {
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.expires_in, 1);
    await sleep(2100);
    const info = await callUserinfo(server.baseUrl, `Bearer ${response.body.access_token}`);
    assert.equal(info.status, 401);
    assert.match(info.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });
});
