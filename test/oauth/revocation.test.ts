/**
 * POST /oauth2/revoke (RFC 7009 §2; docs/protocol-decisions.md "Revocation and introspection", "Token endpoint",
 * "Client authentication"). Each rule is a test named after its clause, over real HTTP; whether a token still
 * works is asked of userinfo and introspection, and "nothing changes" of the database itself.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import * as openidClient from 'openid-client';
import {
  basicAuthorization,
  callUserinfo,
  exchangeIssuedCode,
  issueCode,
  obtainAccessToken,
  postToken,
  type RawResponse,
  type TestUser,
} from '../helpers/code-fixtures.js';
import { findRows, snapshotState } from '../helpers/database-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postCredentials, postIntrospect, postRevoke } from '../helpers/token-management.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;

function assertRevoked200(response: RawResponse): void {
  assert.equal(response.status, 200, response.text);
  assert.equal(response.text, '', 'RFC 7009 §2.2: the body is empty');
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

function assertOAuthError(response: RawResponse, status: number, code: string, description?: RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(response.body.error, code, response.text);
  if (description) assert.match(response.body.error_description, description);
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

describe('POST /oauth2/revoke (RFC 7009)', () => {
  let server: TestServer;
  let client: Client;
  let otherClient: Client;
  let user: TestUser;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Revoking App' });
    otherClient = await server.createClient({ name: 'Another App' });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  const revoke = (token: string, by: Client = client, extra: Array<[string, string]> = []) =>
    postRevoke(server.baseUrl, { form: [['token', token], ...extra, ...postCredentials(by)] });
  const introspect = (token: string, by: Client = client) => postIntrospect(server.baseUrl, { form: [['token', token], ...postCredentials(by)] });
  const userinfoStatus = async (token: string) => (await callUserinfo(server.baseUrl, `Bearer ${token}`)).status;

  test('§2.1: a client revokes its own access token: userinfo then answers 401, introspection inactive', async () => {
    const token = await obtainAccessToken(server, client, user);
    assert.equal(await userinfoStatus(token), 200);
    assertRevoked200(await revoke(token));
    assert.equal(await userinfoStatus(token), 401);
    assert.equal((await introspect(token)).text, '{"active":false}');
  });

  test('§2.1: client_secret_basic authenticates as at the token endpoint', async () => {
    const token = await obtainAccessToken(server, client, user);
    const response = await postRevoke(server.baseUrl, {
      headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
      form: [['token', token]],
    });
    assertRevoked200(response);
    assert.equal(await userinfoStatus(token), 401);
  });

  test('§2.1: a multipart/form-data body is read as the token endpoint reads it', async () => {
    const token = await obtainAccessToken(server, client, user);
    const form = new FormData();
    for (const [name, value] of [['token', token], ...postCredentials(client)] as const) form.append(name, value);
    assertRevoked200(await postRevoke(server.baseUrl, { body: form }));
    assert.equal(await userinfoStatus(token), 401);
  });

  test('§2.1: an access token revokes itself only: the same user\'s other tokens for the client keep working', async () => {
    const kept = await obtainAccessToken(server, client, user);
    const revoked = await obtainAccessToken(server, client, user);
    assertRevoked200(await revoke(revoked));
    assert.equal(await userinfoStatus(revoked), 401);
    assert.equal(await userinfoStatus(kept), 200);
  });

  test('§2.1: a client revokes only its own tokens: another client\'s token → 200, and it still works', async () => {
    const token = await obtainAccessToken(server, client, user);
    const before = await snapshotState(server);
    assertRevoked200(await revoke(token, otherClient));
    assertRevoked200(await revoke(token, otherClient, [['token_type_hint', 'refresh_token']]));
    assert.deepEqual(await snapshotState(server), before, 'nothing changed');
    assert.equal(await userinfoStatus(token), 200);
    assert.equal((await introspect(token)).body.active, true);
  });

  test('§2.2: an unknown token → 200, and nothing changes', async () => {
    await obtainAccessToken(server, client, user);
    const before = await snapshotState(server);
    for (const token of ['latch_at_0000000000000000000000000000000000000000000000000000000', 'not a token at all', 'x'.repeat(4096)]) {
      assertRevoked200(await revoke(token));
    }
    assert.deepEqual(await snapshotState(server), before, 'nothing changed');
  });

  test('§2.2: an already revoked token → 200 again', async () => {
    const token = await obtainAccessToken(server, client, user);
    assertRevoked200(await revoke(token));
    const before = await snapshotState(server);
    assertRevoked200(await revoke(token));
    assert.deepEqual(await snapshotState(server), before, 'the revocation time is not moved');
  });

  test('§2.1 token_type_hint: a wrong hint still finds the token (the search extends to every type)', async () => {
    const token = await obtainAccessToken(server, client, user);
    assertRevoked200(await revoke(token, client, [['token_type_hint', 'refresh_token']]));
    assert.equal(await userinfoStatus(token), 401);
  });

  test('§2.1 token_type_hint: an unknown hint is ignored', async () => {
    const token = await obtainAccessToken(server, client, user);
    assertRevoked200(await revoke(token, client, [['token_type_hint', 'id_token']]));
    assert.equal(await userinfoStatus(token), 401);
  });

  test('§2.1: token missing → 400 invalid_request naming it', async () => {
    assertOAuthError(await postRevoke(server.baseUrl, { form: postCredentials(client) }), 400, 'invalid_request', /token is required/);
    assertOAuthError(await postRevoke(server.baseUrl, { form: [['token', ''], ...postCredentials(client)] }), 400, 'invalid_request', /token is required/);
  });

  test('RFC 6749 §3.2: a parameter sent twice → 400 invalid_request naming it, and nothing is revoked', async () => {
    const token = await obtainAccessToken(server, client, user);
    const twice = await postRevoke(server.baseUrl, { form: [['token', token], ['token', token], ...postCredentials(client)] });
    assertOAuthError(twice, 400, 'invalid_request', /token was sent more than once/);
    const hintTwice = await revoke(token, client, [['token_type_hint', 'access_token'], ['token_type_hint', 'access_token']]);
    assertOAuthError(hintTwice, 400, 'invalid_request', /token_type_hint was sent more than once/);
    assert.equal(await userinfoStatus(token), 200);
  });

  test('§2.1, RFC 6749 §5.2: failed client authentication → 401 invalid_client, and nothing changes', async () => {
    const token = await obtainAccessToken(server, client, user);
    const before = await snapshotState(server);
    const basic = await postRevoke(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, 'latch_cs_wrong') }, form: [['token', token]] });
    assertOAuthError(basic, 401, 'invalid_client');
    assert.match(basic.headers.get('www-authenticate') ?? '', /^Basic /);
    const attempts = [
      { form: [['token', token], ['client_id', client.clientId], ['client_secret', 'latch_cs_wrong']] as Array<[string, string]> },
      { form: [['token', token], ['client_id', client.clientId]] as Array<[string, string]> },
      { form: [['token', token]] as Array<[string, string]> },
      { form: [['token', token], ['client_id', 'no-such-client'], ['client_secret', client.clientSecret]] as Array<[string, string]> },
    ];
    for (const attempt of attempts) assertOAuthError(await postRevoke(server.baseUrl, attempt), 401, 'invalid_client');
    assert.deepEqual(await snapshotState(server), before, 'nothing changed');
    assert.equal(await userinfoStatus(token), 200);
  });

  test('docs/protocol-decisions.md "Token endpoint": a JSON body → 400 invalid_request', async () => {
    const response = await postRevoke(server.baseUrl, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'x', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    assertOAuthError(response, 400, 'invalid_request');
  });

  test('a known client\'s failed revocation is recorded for its developer console, under the revocation endpoint', async () => {
    const response = await postRevoke(server.baseUrl, { form: postCredentials(otherClient) });
    assertOAuthError(response, 400, 'invalid_request');
    const records = await findRows(server, 'client_events', { client_id: otherClient.clientId, request_id: response.body.request_id });
    assert.equal(records.length, 1);
    assert.equal(records[0]!.endpoint, 'revocation');
  });

  test('openid-client v6 tokenRevocation, found through discovery (client_secret_basic and client_secret_post)', async () => {
    for (const auth of [openidClient.ClientSecretBasic(client.clientSecret), openidClient.ClientSecretPost(client.clientSecret)]) {
      const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, undefined, auth, { execute: [openidClient.allowInsecureRequests] });
      const token = await obtainAccessToken(server, client, user);
      await openidClient.tokenRevocation(config, token, { token_type_hint: 'access_token' });
      assert.equal(await userinfoStatus(token), 401);
      // An unknown token is no error either (§2.2).
      await openidClient.tokenRevocation(config, 'latch_at_unknown');
    }
  });
});

describe('POST /oauth2/revoke: an expired token (RFC 7009 §2.2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_ACCESS_TOKEN_TTL_SECONDS: '1' } });
  });
  after(async () => server.stop());

  test('§2.2: an expired token → 200', async () => {
    const client = await server.createClient();
    const created = await server.createUser();
    const token = await obtainAccessToken(server, client, { email: created.user.email, password: created.password });
    await sleep(2100);
    assertRevoked200(await postRevoke(server.baseUrl, { form: [['token', token], ...postCredentials(client)] }));
  });
});

describe('POST /oauth2/revoke: refresh tokens (RFC 7009 §2.1)', () => {
  let server: TestServer;
  let client: Client;
  let otherClient: Client;
  let user: TestUser;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Offline App' });
    otherClient = await server.createClient({ name: 'Another App' });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  const revoke = (token: string, by: Client = client, extra: Array<[string, string]> = []) =>
    postRevoke(server.baseUrl, { form: [['token', token], ...extra, ...postCredentials(by)] });
  const introspect = (token: string) => postIntrospect(server.baseUrl, { form: [['token', token], ...postCredentials(client)] });
  const userinfoStatus = async (token: string) => (await callUserinfo(server.baseUrl, `Bearer ${token}`)).status;
  const refresh = (refreshToken: string) =>
    postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret } });

  /** A grant with offline access, refreshed once: two access tokens and the live refresh token of one grant. */
  async function refreshedGrant(): Promise<{ accessTokens: string[]; refreshToken: string; rotatedRefreshToken: string }> {
    const first = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid profile offline_access' }));
    assert.equal(first.status, 200, first.text);
    assert.equal(typeof first.body.refresh_token, 'string', 'a refresh token was issued');
    const second = await refresh(first.body.refresh_token);
    assert.equal(second.status, 200, second.text);
    return { accessTokens: [first.body.access_token, second.body.access_token], refreshToken: second.body.refresh_token, rotatedRefreshToken: first.body.refresh_token };
  }

  for (const hint of ['refresh_token', 'access_token', undefined]) {
    test(`§2.1: revoking a refresh token ends its whole grant: every access token of it, and the refresh token (hint ${hint ?? 'none'})`, async () => {
      const grant = await refreshedGrant();
      for (const token of grant.accessTokens) assert.equal(await userinfoStatus(token), 200);
      assertRevoked200(await revoke(grant.refreshToken, client, hint ? [['token_type_hint', hint]] : []));
      for (const token of grant.accessTokens) assert.equal(await userinfoStatus(token), 401, 'the grant\'s access tokens are revoked');
      assert.equal((await introspect(grant.refreshToken)).text, '{"active":false}');
      const refused = await refresh(grant.refreshToken);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error, 'invalid_grant');
    });
  }

  test('§2.1: a spent (rotated) refresh token of the grant ends it too: the client hands back what it holds', async () => {
    const grant = await refreshedGrant();
    assertRevoked200(await revoke(grant.rotatedRefreshToken, client, [['token_type_hint', 'refresh_token']]));
    for (const token of grant.accessTokens) assert.equal(await userinfoStatus(token), 401);
    assert.equal((await refresh(grant.refreshToken)).status, 400, 'the live refresh token of the grant is revoked too');
  });

  test('§2.1: revoking an access token keeps the grant: its refresh token still refreshes', async () => {
    const grant = await refreshedGrant();
    assertRevoked200(await revoke(grant.accessTokens[1]!));
    assert.equal(await userinfoStatus(grant.accessTokens[1]!), 401);
    assert.equal(await userinfoStatus(grant.accessTokens[0]!), 200, 'the grant\'s other access token is untouched');
    assert.equal((await refresh(grant.refreshToken)).status, 200);
  });

  test('§2.1: a client revokes only its own tokens: another client\'s refresh token → 200, and it still refreshes', async () => {
    const grant = await refreshedGrant();
    const before = await snapshotState(server);
    assertRevoked200(await revoke(grant.refreshToken, otherClient, [['token_type_hint', 'refresh_token']]));
    assertRevoked200(await revoke(grant.refreshToken, otherClient));
    assert.deepEqual(await snapshotState(server), before, 'nothing changed');
    assert.equal(await userinfoStatus(grant.accessTokens[1]!), 200);
    assert.equal((await refresh(grant.refreshToken)).status, 200);
  });

  test('openid-client v6 tokenRevocation of a refresh token ends the grant', async () => {
    const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, undefined, openidClient.ClientSecretBasic(client.clientSecret), {
      execute: [openidClient.allowInsecureRequests],
    });
    const grant = await refreshedGrant();
    await openidClient.tokenRevocation(config, grant.refreshToken, { token_type_hint: 'refresh_token' });
    for (const token of grant.accessTokens) assert.equal(await userinfoStatus(token), 401);
  });
});
