/**
 * Refresh tokens over HTTP (RFC 6749 §6, OIDC Core §11–12, RFC 9700 §4.14.2; docs/protocol-decisions.md "Refresh
 * tokens"): issued only with offline_access, rotated on every use, a retry within the grace window answered
 * again without forking the grant, reuse after it revoking the whole grant.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import { callUserinfo, exchangeIssuedCode, issueCode, postToken, type RawResponse, type TestUser } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;

function assertOAuthError(response: RawResponse, status: number, code: string, description?: RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error, code, response.text);
  assert.ok(typeof response.body.error_description === 'string' && response.body.error_description.length > 0);
  if (description) assert.match(response.body.error_description, description);
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

describe('the refresh_token grant', () => {
  let server: TestServer;
  let client: Client;
  let other: Client;
  let user: TestUser;
  // Grace of 2 s, so that "after the grace window" is reachable in a test.
  before(async () => {
    server = await startTestServer({ env: { LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS: '2' } });
    client = await server.createClient({ name: 'Refresh App', redirectUris: ['https://app.example.com/callback'] });
    other = await server.createClient({ name: 'Other App', redirectUris: ['https://other.example.com/callback'] });
    const created = await server.createUser({ name: 'Grace Hopper' });
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  const refresh = (refreshToken: string, extra: Record<string, string> = {}, as: Client = client) =>
    postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: as.clientId, client_secret: as.clientSecret, ...extra } });

  async function grantWithRefresh(scope = 'openid profile offline_access'): Promise<{ accessToken: string; refreshToken: string; idToken?: string }> {
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope }));
    assert.equal(response.status, 200, response.text);
    assert.equal(typeof response.body.refresh_token, 'string', 'offline_access granted: a refresh token');
    return { accessToken: response.body.access_token, refreshToken: response.body.refresh_token, idToken: response.body.id_token };
  }

  test('OIDC Core §11: without offline_access no refresh token is issued', async () => {
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid profile' }));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.refresh_token, undefined);
  });

  test('with offline_access: a 256-bit refresh token, stored only as its hash, and offline_access in the granted scope', async () => {
    const response = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid offline_access' }));
    assert.equal(response.status, 200, response.text);
    assert.match(response.body.refresh_token, /^latch_rt_[0-9a-f]{11}[A-Za-z0-9_-]{43}$/);
    assert.equal(response.body.scope, 'openid offline_access', 'the granted scope, exactly as asked');
    const stored = await server.storage.tokens.findRefreshByHash(hashTimeOrderedSecret(response.body.refresh_token));
    assert.ok(stored, 'found by its hash');
    assert.equal(stored.clientId, client.clientId);
    assert.deepEqual(stored.scope, ['openid', 'offline_access']);
  });

  test('RFC 6749 §6: a refresh returns a new access token and a new refresh token; the new access token works', async () => {
    const first = await grantWithRefresh();
    const response = await refresh(first.refreshToken);
    assert.equal(response.status, 200, response.text);
    assert.notEqual(response.body.refresh_token, first.refreshToken, 'rotated');
    assert.notEqual(response.body.access_token, first.accessToken);
    assert.equal(response.body.token_type, 'Bearer');
    assert.equal(response.body.scope, 'openid profile offline_access', 'the granted scope, exactly as asked');
    assert.equal((await callUserinfo(server.baseUrl, `Bearer ${response.body.access_token}`)).status, 200);
    // And the successor refreshes in turn.
    assert.equal((await refresh(response.body.refresh_token)).status, 200);
  });

  test('OIDC Core §12.2: with openid, a new id_token with the same sub, the original auth_time, and no nonce', async () => {
    const first = await grantWithRefresh();
    const response = await refresh(first.refreshToken);
    assert.equal(response.status, 200, response.text);
    const before = decodeJwt(first.idToken!);
    const after = decodeJwt(response.body.id_token);
    assert.equal(after.sub, before.sub);
    assert.equal(after.auth_time, before.auth_time);
    assert.equal(after.nonce, undefined);
    assert.equal(after.aud, client.clientId);
  });

  test('RFC 6749 §6: scope may narrow (the access token gets less), never widen (invalid_scope, nothing spent)', async () => {
    const first = await grantWithRefresh('profile offline_access');
    const widened = await refresh(first.refreshToken, { scope: 'openid profile' });
    assertOAuthError(widened, 400, 'invalid_scope', /openid was not granted/);
    // Refused before anything was written: the same token still refreshes.
    const narrowed = await refresh(first.refreshToken, { scope: 'profile' });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.body.scope, 'profile');
    assert.equal(narrowed.body.id_token, undefined);
  });

  test('a retry of the same token within the grace window gets the same new refresh token, and the grant is not revoked', async () => {
    const first = await grantWithRefresh();
    const a = await refresh(first.refreshToken);
    const b = await refresh(first.refreshToken);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.equal(b.body.refresh_token, a.body.refresh_token, 'no fork: one live refresh token');
    assert.notEqual(b.body.access_token, a.body.access_token);
    for (const token of [a.body.access_token, b.body.access_token]) assert.equal((await callUserinfo(server.baseUrl, `Bearer ${token}`)).status, 200);
    assert.equal((await refresh(a.body.refresh_token)).status, 200);
  });

  test('racing refreshes of one token: exactly one rotation, every answer carries the same successor', async () => {
    const first = await grantWithRefresh();
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(first.refreshToken)));
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    assert.equal(new Set(answers.map((a) => a.body.refresh_token)).size, 1);
  });

  test('RFC 9700 §4.14.2: reuse after the grace window revokes the whole grant (access and refresh tokens)', async () => {
    const first = await grantWithRefresh();
    const rotated = await refresh(first.refreshToken);
    assert.equal(rotated.status, 200, rotated.text);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const reuse = await refresh(first.refreshToken);
    assertOAuthError(reuse, 400, 'invalid_grant', /already used.*revoked/);
    assert.equal((await callUserinfo(server.baseUrl, `Bearer ${rotated.body.access_token}`)).status, 401, 'the new access token is revoked');
    assert.equal((await callUserinfo(server.baseUrl, `Bearer ${first.accessToken}`)).status, 401, 'the first access token is revoked');
    assertOAuthError(await refresh(rotated.body.refresh_token), 400, 'invalid_grant', /revoked/);
    // Recorded against the client, with the reason, for its developer console.
    const events = await server.storage.clientEvents.listRecent(client.clientId, 10);
    assert.ok(
      events.some((event) => event.endpoint === 'token' && event.error === 'invalid_grant' && /already used/.test(event.description)),
      JSON.stringify(events.map((e) => [e.endpoint, e.error, e.description])),
    );
  });

  test('another client cannot use the token, and nothing changes', async () => {
    const first = await grantWithRefresh();
    const before = await snapshotState(server);
    assertOAuthError(await refresh(first.refreshToken, {}, other), 400, 'invalid_grant', /never issued to this client/);
    assert.deepEqual(await snapshotState(server), before);
    assert.equal((await refresh(first.refreshToken)).status, 200);
  });

  test('unknown token → invalid_grant; no refresh_token parameter → invalid_request; bad client secret → invalid_client', async () => {
    assertOAuthError(await refresh('latch_rt_not-a-token'), 400, 'invalid_grant');
    assertOAuthError(
      await postToken(server.baseUrl, { form: { grant_type: 'refresh_token', client_id: client.clientId, client_secret: client.clientSecret } }),
      400,
      'invalid_request',
      /refresh_token/,
    );
    const first = await grantWithRefresh();
    const wrongSecret = await postToken(server.baseUrl, {
      form: { grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: client.clientId, client_secret: 'wrong' },
    });
    assert.equal(wrongSecret.status, 401, wrongSecret.text);
    assert.equal((await refresh(first.refreshToken)).status, 200, 'a failed client authentication spends nothing');
  });

  test('withdrawing consent revokes the refresh tokens too', async () => {
    const first = await grantWithRefresh();
    const created = await server.storage.users.findByEmail(user.email);
    assert.ok(created);
    assert.ok((await server.storage.tokens.revokeByUserAndClient(created.id, client.clientId, new Date())) >= 2);
    assertOAuthError(await refresh(first.refreshToken), 400, 'invalid_grant', /revoked/);
  });
});

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`a spent refresh token presented with a scope (${database})`, () => {
    let server: TestServer;
    let client: Client;
    let user: TestUser;
    // No grace: a second use of a rotated token is reuse at once.
    before(async () => {
      server = await startTestServer({ database, env: { LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS: '0' } });
      client = await server.createClient({ name: 'Refresh App', redirectUris: ['https://app.example.com/callback'] });
      const created = await server.createUser();
      user = { email: created.user.email, password: created.password };
    });
    after(async () => server.stop());

    const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
      postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret, ...extra } });

    test('RFC 9700 §4.14.2: reuse is reuse whatever scope comes with it (junk, wider): invalid_grant, and the grant is revoked', async () => {
      for (const scope of ['profile junk', 'openid profile email offline_access']) {
        const exchanged = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'profile offline_access' }));
        assert.equal(exchanged.status, 200, exchanged.text);
        const rotated = await refresh(exchanged.body.refresh_token);
        assert.equal(rotated.status, 200, rotated.text);
        // The spent token again, with a scope it could not have: the scope does not hide the reuse.
        assertOAuthError(await refresh(exchanged.body.refresh_token, { scope }), 400, 'invalid_grant', /already used/);
        assertOAuthError(await refresh(rotated.body.refresh_token), 400, 'invalid_grant', /revoked/);
        assert.equal((await callUserinfo(server.baseUrl, `Bearer ${rotated.body.access_token}`)).status, 401, `${scope}: the grant's access token is revoked too`);
      }
    });

    test('a revoked refresh token with a junk scope is told it is revoked', async () => {
      const exchanged = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'profile offline_access' }));
      const revoked = await fetch(`${server.baseUrl}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: exchanged.body.refresh_token, client_id: client.clientId, client_secret: client.clientSecret }).toString(),
      });
      assert.equal(revoked.status, 200);
      assertOAuthError(await refresh(exchanged.body.refresh_token, { scope: 'profile junk' }), 400, 'invalid_grant', /revoked/);
    });
  });
}
