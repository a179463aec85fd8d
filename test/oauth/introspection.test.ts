/**
 * POST /oauth2/introspect (RFC 7662 §2; docs/protocol-decisions.md "Revocation and introspection", "Token
 * endpoint", "Client authentication"). Who may introspect which tokens: a client, the tokens issued to it; every
 * other answer is exactly {"active":false}. Each rule is a test named after its clause, over real HTTP.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, mock, test } from 'node:test';
import * as openidClient from 'openid-client';
import { basicAuthorization, exchangeIssuedCode, issueCode, obtainAccessToken, postToken, type RawResponse, type TestUser } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postCredentials, postIntrospect, postRevoke } from '../helpers/token-management.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;

/** RFC 7662 §2.2: an inactive token is answered with `active` and nothing else, byte for byte. */
function assertInactive(response: RawResponse): void {
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(response.text, '{"active":false}');
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

function assertOAuthError(response: RawResponse, status: number, code: string, description?: RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(response.body.error, code, response.text);
  if (description) assert.match(response.body.error_description, description);
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

describe('POST /oauth2/introspect (RFC 7662)', () => {
  let server: TestServer;
  let client: Client;
  let otherClient: Client;
  let user: TestUser;
  let userId: number;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Introspecting App' });
    otherClient = await server.createClient({ name: 'Another App' });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
    userId = created.user.id;
  });
  after(async () => server.stop());

  const introspect = (token: string, by: Client = client, extra: Array<[string, string]> = []) =>
    postIntrospect(server.baseUrl, { form: [['token', token], ...extra, ...postCredentials(by)] });

  test('§2.2: the client\'s own active access token → active, with scope, client_id, sub, exp, iat, token_type and iss', async () => {
    const issued = await issueCode(server, client, user, { scope: 'openid profile' });
    const exchanged = await exchangeIssuedCode(server, client, issued);
    assert.equal(exchanged.status, 200, exchanged.text);
    const requestedAt = Math.floor(Date.now() / 1000);
    const response = await introspect(exchanged.body.access_token);
    assert.equal(response.status, 200, response.text);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const { exp, iat, ...rest } = response.body;
    assert.deepEqual(rest, {
      active: true,
      scope: exchanged.body.scope,
      client_id: client.clientId,
      sub: String(userId),
      token_type: 'Bearer',
      iss: server.config.issuer,
    });
    assert.ok(Number.isInteger(iat) && Math.abs(iat - requestedAt) <= 2, `iat ${iat} is when the token was issued`);
    // Stored times are whole seconds, the expiry rounded up (docs/protocol-decisions.md "Lifetimes").
    assert.ok(exp - iat >= exchanged.body.expires_in && exp - iat <= exchanged.body.expires_in + 1, `exp ${exp} is iat ${iat} plus the lifetime the token response announced`);
  });

  test('§2.1: client_secret_basic authenticates as at the token endpoint', async () => {
    const token = await obtainAccessToken(server, client, user);
    const response = await postIntrospect(server.baseUrl, {
      headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
      form: [['token', token]],
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.active, true);
  });

  test('§2.1: a multipart/form-data body is read as the token endpoint reads it', async () => {
    const token = await obtainAccessToken(server, client, user);
    const form = new FormData();
    for (const [name, value] of [['token', token], ...postCredentials(client)] as const) form.append(name, value);
    const response = await postIntrospect(server.baseUrl, { body: form });
    assert.equal(response.body.active, true, response.text);
  });

  test('§2.2: another client\'s token → exactly {"active":false}; its own client still sees it active', async () => {
    const token = await obtainAccessToken(server, client, user);
    assertInactive(await introspect(token, otherClient));
    assertInactive(await introspect(token, otherClient, [['token_type_hint', 'refresh_token']]));
    assert.equal((await introspect(token)).body.active, true);
  });

  test('§2.2: a revoked token → exactly {"active":false}', async () => {
    const token = await obtainAccessToken(server, client, user);
    const revoked = await postRevoke(server.baseUrl, { form: [['token', token], ...postCredentials(client)] });
    assert.equal(revoked.status, 200, revoked.text);
    assertInactive(await introspect(token));
  });

  test('§2.2: an unknown token → exactly {"active":false}', async () => {
    for (const token of ['latch_at_0000000000000000000000000000000000000000000000000000000', 'latch_rt_unknown', 'not a token at all']) {
      assertInactive(await introspect(token));
    }
  });

  test('§2.1 token_type_hint: a wrong hint still finds the token, an unknown hint is ignored', async () => {
    const token = await obtainAccessToken(server, client, user);
    assert.equal((await introspect(token, client, [['token_type_hint', 'refresh_token']])).body.active, true);
    assert.equal((await introspect(token, client, [['token_type_hint', 'id_token']])).body.active, true);
  });

  test('§2.1: introspection changes nothing', async () => {
    const token = await obtainAccessToken(server, client, user);
    const before = await snapshotState(server);
    await introspect(token);
    await introspect(token, otherClient);
    assert.deepEqual(await snapshotState(server), before);
  });

  test('§2.1: token missing → 400 invalid_request naming it', async () => {
    assertOAuthError(await postIntrospect(server.baseUrl, { form: postCredentials(client) }), 400, 'invalid_request', /token is required/);
  });

  test('a token longer than any parameter may be → 400 invalid_request at introspection as at revocation, a JWT-shaped one included', async () => {
    for (const token of [`eyJhbGciOiJSUzI1NiJ9.${'a'.repeat(4100)}.sig`, `latch_at_${'a'.repeat(4100)}`]) {
      for (const post of [postIntrospect, postRevoke]) {
        assertOAuthError(await post(server.baseUrl, { form: [['token', token], ...postCredentials(client)] }), 400, 'invalid_request', /token is longer than 4096 characters/);
      }
    }
  });

  test('RFC 6749 §3.2: a parameter sent twice → 400 invalid_request naming it', async () => {
    const token = await obtainAccessToken(server, client, user);
    const twice = await postIntrospect(server.baseUrl, { form: [['token', token], ['token', token], ...postCredentials(client)] });
    assertOAuthError(twice, 400, 'invalid_request', /token was sent more than once/);
  });

  test('§2.1, §2.3: the caller must authenticate: a failed client authentication → 401 invalid_client, never an answer about the token', async () => {
    const token = await obtainAccessToken(server, client, user);
    const basic = await postIntrospect(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, 'latch_cs_wrong') }, form: [['token', token]] });
    assertOAuthError(basic, 401, 'invalid_client');
    assert.match(basic.headers.get('www-authenticate') ?? '', /^Basic /);
    assertOAuthError(await postIntrospect(server.baseUrl, { form: [['token', token]] }), 401, 'invalid_client');
    const wrongSecret = await postIntrospect(server.baseUrl, { form: [['token', token], ['client_id', client.clientId], ['client_secret', 'latch_cs_wrong']] });
    assertOAuthError(wrongSecret, 401, 'invalid_client');
  });

  test('§2.1: public clients cannot introspect: a client_id without a secret → 401 invalid_client', async () => {
    // Every Latch client is confidential today; a public client would come with its client_id alone.
    const token = await obtainAccessToken(server, client, user);
    const response = await postIntrospect(server.baseUrl, { form: [['token', token], ['client_id', client.clientId]] });
    assertOAuthError(response, 401, 'invalid_client');
    assert.equal(response.body.active, undefined);
  });

  test('openid-client v6 tokenIntrospection, found through discovery (client_secret_basic and client_secret_post)', async () => {
    for (const auth of [openidClient.ClientSecretBasic(client.clientSecret), openidClient.ClientSecretPost(client.clientSecret)]) {
      const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, undefined, auth, { execute: [openidClient.allowInsecureRequests] });
      const token = await obtainAccessToken(server, client, user);
      const active = await openidClient.tokenIntrospection(config, token, { token_type_hint: 'access_token' });
      assert.equal(active.active, true);
      assert.equal(active.client_id, client.clientId);
      assert.equal(active.sub, String(userId));
      assert.equal(active.token_type, 'Bearer');
      await openidClient.tokenRevocation(config, token);
      assert.deepEqual(await openidClient.tokenIntrospection(config, token), { active: false });
    }
  });
});

describe('POST /oauth2/introspect: an expired token (RFC 7662 §2.2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_ACCESS_TOKEN_TTL_SECONDS: '1' } });
  });
  after(async () => server.stop());

  test('§2.2: an expired token → exactly {"active":false}', async () => {
    const client = await server.createClient();
    const created = await server.createUser();
    const token = await obtainAccessToken(server, client, { email: created.user.email, password: created.password });
    const introspect = () => postIntrospect(server.baseUrl, { form: [['token', token], ...postCredentials(client)] });
    assert.equal((await introspect()).body.active, true, 'active while it lives');
    await sleep(2100);
    assertInactive(await introspect());
  });
});

describe('POST /oauth2/introspect: refresh tokens (RFC 7662 §2.2)', () => {
  let server: TestServer;
  let client: Client;
  let otherClient: Client;
  let user: TestUser;
  let userId: number;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Offline App' });
    otherClient = await server.createClient({ name: 'Another App' });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
    userId = created.user.id;
  });
  after(async () => server.stop());

  const introspect = (token: string, by: Client = client, extra: Array<[string, string]> = []) =>
    postIntrospect(server.baseUrl, { form: [['token', token], ...extra, ...postCredentials(by)] });
  const refresh = (refreshToken: string) =>
    postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret } });

  async function offlineGrant(): Promise<RawResponse> {
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid profile offline_access' }));
    assert.equal(response.status, 200, response.text);
    assert.equal(typeof response.body.refresh_token, 'string', 'a refresh token was issued');
    return response;
  }

  for (const hint of ['refresh_token', 'access_token', undefined]) {
    test(`§2.2: the client's own live refresh token → active, token_type refresh_token, exp its expiry (hint ${hint ?? 'none'})`, async () => {
      const issuedAt = Math.floor(Date.now() / 1000);
      const grant = await offlineGrant();
      const response = await introspect(grant.body.refresh_token, client, hint ? [['token_type_hint', hint]] : []);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const { exp, iat, ...rest } = response.body;
      assert.deepEqual(rest, {
        active: true,
        scope: grant.body.scope,
        client_id: client.clientId,
        sub: String(userId),
        token_type: 'refresh_token',
        iss: server.config.issuer,
      });
      assert.ok(Math.abs(iat - issuedAt) <= 2, `iat ${iat}`);
      const idle = server.config.refreshTokenIdleSeconds;
      assert.ok(exp > iat && exp <= iat + idle + 1, `exp ${exp} is within the idle lifetime (${idle} s) of iat ${iat}`);
    });
  }

  test('§2.2: a rotated refresh token → exactly {"active":false}; its successor is active', async () => {
    const grant = await offlineGrant();
    const rotated = await refresh(grant.body.refresh_token);
    assert.equal(rotated.status, 200, rotated.text);
    assertInactive(await introspect(grant.body.refresh_token));
    assert.equal((await introspect(rotated.body.refresh_token)).body.active, true);
  });

  test('§2.2: a revoked refresh token → exactly {"active":false}, and so are the access tokens of its grant', async () => {
    const grant = await offlineGrant();
    const revoked = await postRevoke(server.baseUrl, { form: [['token', grant.body.refresh_token], ...postCredentials(client)] });
    assert.equal(revoked.status, 200, revoked.text);
    assertInactive(await introspect(grant.body.refresh_token));
    assertInactive(await introspect(grant.body.access_token));
  });

  test('§2.2: another client\'s refresh token → exactly {"active":false}', async () => {
    const grant = await offlineGrant();
    assertInactive(await introspect(grant.body.refresh_token, otherClient));
    assertInactive(await introspect(grant.body.refresh_token, otherClient, [['token_type_hint', 'refresh_token']]));
    assert.equal((await introspect(grant.body.refresh_token)).body.active, true);
  });

  test('openid-client v6 tokenIntrospection of a refresh token', async () => {
    const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, undefined, openidClient.ClientSecretPost(client.clientSecret), {
      execute: [openidClient.allowInsecureRequests],
    });
    const grant = await offlineGrant();
    const active = await openidClient.tokenIntrospection(config, grant.body.refresh_token, { token_type_hint: 'refresh_token' });
    assert.equal(active.active, true);
    assert.equal(active.token_type, 'refresh_token');
    assert.equal(active.client_id, client.clientId);
  });
});

describe('POST /oauth2/introspect: an expired refresh token (RFC 7662 §2.2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_REFRESH_TOKEN_IDLE_SECONDS: '60', LATCH_REFRESH_TOKEN_MAX_SECONDS: '60' } });
  });
  after(async () => {
    mock.timers.reset();
    await server.stop();
  });

  test('§2.2: a refresh token past its lifetime → exactly {"active":false}', async () => {
    const client = await server.createClient();
    const created = await server.createUser();
    const user = { email: created.user.email, password: created.password };
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid offline_access' }));
    assert.equal(response.status, 200, response.text);
    const introspect = () => postIntrospect(server.baseUrl, { form: [['token', response.body.refresh_token], ...postCredentials(client)] });
    assert.equal((await introspect()).body.active, true, 'active while it lives');
    // The server runs in this process: its clock moves past the 60-second lifetime.
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 61_000 });
    assertInactive(await introspect());
  });
});
