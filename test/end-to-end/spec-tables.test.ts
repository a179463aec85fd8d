/**
 * One test per row of the tables in the service specification (sections 2, 4, 5 and 8; docs/protocol-decisions.md
 * "The service" says where each is handled), named after the row, so that the specification can be read against
 * the suite. The detailed rules behind each row (docs/protocol-decisions.md) are tested in
 * authorize/token/userinfo.test.ts; OpenID Connect rows (id_token) are tested under test/oidc.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import { TestBrowser } from '../helpers/browser.js';
import { basicAuthorization, callUserinfo, exchangeIssuedCode, issueCode, postToken, type IssuedCode, type TestUser } from '../helpers/code-fixtures.js';
import { authorize } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the spec, table by table', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: TestUser & { id: number; name: string };

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Spec App', redirectUris: ['https://spec.example.com/callback'] });
    const created = await server.createUser({ name: 'Spec User', avatarUrl: 'https://images.example.com/spec.png' });
    user = { email: created.user.email, password: created.password, id: created.user.id, name: created.user.name };
  });
  after(async () => server.stop());

  const redirectUri = 'https://spec.example.com/callback';

  async function authorizeAs(params: Record<string, string | undefined>): Promise<URL> {
    return authorize(new TestBrowser(), server.baseUrl, { client_id: client.clientId, redirect_uri: redirectUri, ...params }, user);
  }

  describe('2.1 client application', () => {
    test('client id is sent as client_id; client secret as client_secret or the Basic password', async () => {
      for (const style of ['post', 'basic'] as const) {
        const issued = await issueCode(server, client, user, { pkce: false });
        const form = { grant_type: 'authorization_code', code: issued.code, redirect_uri: redirectUri };
        const response =
          style === 'post'
            ? await postToken(server.baseUrl, { form: { ...form, client_id: client.clientId, client_secret: client.clientSecret } })
            : await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form });
        assert.equal(response.status, 200, `${style}: ${response.text}`);
      }
    });
    test('redirect URLs: a sent redirect_uri must be among the registered ones', async () => {
      const response = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent('https://spec.example.com/other')}`, { redirect: 'manual' });
      assert.equal(response.status, 400);
    });
  });

  describe('2.2 token response and 2.3 user object', () => {
    let body: Record<string, any>;
    before(async () => {
      const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user));
      assert.equal(response.status, 200, response.text);
      body = response.body;
    });
    test('access_token: a long opaque string', () => assert.ok(typeof body.access_token === 'string' && body.access_token.length >= 40));
    test('expires_in: an integer number of seconds (3600 by default, spec 8)', () => assert.ok(Number.isInteger(body.expires_in) && body.expires_in === 3600));
    test('scope: profile', () => assert.equal(body.scope, 'profile'));
    test('token_type: Bearer (compared case-insensitively by clients)', () => assert.equal(body.token_type.toLowerCase(), 'bearer'));
    test('user: an object', () => assert.equal(typeof body.user, 'object'));
    test('id_token: absent without OpenID Connect', () => assert.equal(body.id_token, undefined));
    test('user.id: integer', () => assert.equal(body.user.id, user.id));
    test('user.sub: the id as a string', () => assert.equal(body.user.sub, String(user.id)));
    test('user.email', () => assert.equal(body.user.email, user.email));
    test('user.email_verified: boolean', () => assert.equal(body.user.email_verified, true));
    test('user.name', () => assert.equal(body.user.name, 'Spec User'));
    test('user.avatar_url: URL', () => assert.equal(body.user.avatar_url, 'https://images.example.com/spec.png'));
    test('user.client: the name of the client application', () => assert.equal(body.user.client, 'Spec App'));
  });

  describe('4.1 authorization endpoint: query parameters', () => {
    test('response_type: must be code', async () => {
      assert.ok((await authorizeAs({ response_type: 'code' })).searchParams.get('code'));
      const refused = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=token&client_id=${client.clientId}&redirect_uri=${encodeURIComponent(redirectUri)}`, { redirect: 'manual' });
      assert.equal(new URL(refused.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
    });
    test('client_id: required', async () => {
      const response = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&redirect_uri=${encodeURIComponent(redirectUri)}`, { redirect: 'manual' });
      assert.equal(response.status, 400);
    });
    test('redirect_uri: required, a registered redirect URL', async () => {
      const response = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${client.clientId}`, { redirect: 'manual' });
      assert.equal(response.status, 400);
    });
    test('scope: optional; only profile is supported', async () => {
      assert.ok((await authorizeAs({ response_type: 'code' })).searchParams.get('code'), 'without scope');
      assert.ok((await authorizeAs({ response_type: 'code', scope: 'profile' })).searchParams.get('code'), 'scope=profile');
      const refused = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&scope=calendar&client_id=${client.clientId}&redirect_uri=${encodeURIComponent(redirectUri)}`, { redirect: 'manual' });
      assert.equal(new URL(refused.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
    });
    test('state: optional, returned unchanged', async () => {
      assert.equal((await authorizeAs({ response_type: 'code', state: 'r4nd0m/+=' })).searchParams.get('state'), 'r4nd0m/+=');
      assert.equal((await authorizeAs({ response_type: 'code' })).searchParams.has('state'), false);
    });
  });

  describe('4.1 authorization endpoint: redirect back', () => {
    test('an approval page, then an HTTP redirect to redirect_uri with code and state', async () => {
      const { user: fresh, password } = await server.createUser();
      const redirect = await authorize(new TestBrowser(), server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: redirectUri, state: 'xyz' }, { email: fresh.email, password });
      assert.equal(`${redirect.origin}${redirect.pathname}`, redirectUri);
      assert.ok(redirect.searchParams.get('code'));
      assert.equal(redirect.searchParams.get('state'), 'xyz');
    });
  });

  describe('4.2 token endpoint', () => {
    let issued: IssuedCode;
    test('A: grant_type, code, redirect_uri, client_id, client_secret as multipart form fields', async () => {
      issued = await issueCode(server, client, user, { pkce: false });
      const form = new FormData();
      for (const [key, value] of Object.entries({ grant_type: 'authorization_code', code: issued.code, redirect_uri: redirectUri, client_id: client.clientId, client_secret: client.clientSecret })) {
        form.append(key, value);
      }
      const response = await postToken(server.baseUrl, { body: form });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.user.id, user.id);
    });
    test('A: each field is required', async () => {
      const complete = { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: client.clientId, client_secret: client.clientSecret };
      for (const missing of ['grant_type', 'code', 'client_id', 'client_secret'] as const) {
        const { [missing]: _omitted, ...form } = complete;
        const response = await postToken(server.baseUrl, { form });
        assert.ok(response.status === 400 || response.status === 401, `${missing}: ${response.status}`);
      }
    });
    test('B: Basic authentication, a form-encoded body with grant_type and code', async () => {
      const code = (await issueCode(server, client, user, { pkce: false })).code;
      const response = await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form: { grant_type: 'authorization_code', code } });
      assert.equal(response.status, 200, response.text);
    });
    test('response: JSON, the token response of 2.2 with the user object', async () => {
      const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user));
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(response.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type', 'user']);
    });
  });

  describe('4.3 userinfo endpoint', () => {
    let token: string;
    before(async () => {
      token = (await exchangeIssuedCode(server, client, await issueCode(server, client, user))).body.access_token;
    });
    test('Authorization header carries the access token (the reference call: the token as the header value)', async () => {
      assert.equal((await callUserinfo(server.baseUrl, token)).status, 200);
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${token}`)).status, 200);
    });
    test('request body: none', async () => {
      const response = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.status, 200);
    });
    test('response: JSON with the user information of the token’s user', async () => {
      const response = await callUserinfo(server.baseUrl, `Bearer ${token}`);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(response.body.sub, String(user.id));
      assert.equal(response.body.email, user.email);
      assert.equal(response.body.name, 'Spec User');
    });
  });

  describe('5 authentication', () => {
    test('5.4 grant type: authorization_code only', async () => {
      // The spec's clients use the code grant; Latch also has grants for other kinds of clients (services'
      // client_credentials), which such a client is not registered for (RFC 6749 §5.2 unauthorized_client), and
      // a grant Latch does not have at all is unsupported_grant_type.
      const notRegistered = await postToken(server.baseUrl, { form: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret } });
      assert.equal(notRegistered.body.error, 'unauthorized_client');
      const unknown = await postToken(server.baseUrl, { form: { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret, username: 'a', password: 'b' } });
      assert.equal(unknown.body.error, 'unsupported_grant_type');
    });
    test('5.5 the access token is bound to scope profile and lives expires_in seconds', async () => {
      const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user));
      const row = await server.storage.tokens.findByHash(hashTimeOrderedSecret(response.body.access_token));
      assert.deepEqual(row?.scope, ['profile']);
      const lifetime = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 1000;
      assert.ok(lifetime >= response.body.expires_in && lifetime < response.body.expires_in + 2, `stored lifetime ${lifetime}s`);
    });
  });
});
