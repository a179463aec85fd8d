/**
 * Many code exchanges and refreshes at once, over HTTP, on SQLite and PostgreSQL. On PostgreSQL the exchanges
 * (and the refreshes) that arrive in one turn of the event loop are one statement
 * (storage/postgres/postgres-executor.ts batches): each must still get its own answer, a refresh token exactly
 * when its grant has offline_access (OIDC Core §11), tokens that work, and of two refreshes of one token one
 * rotation, the other answered as a retry within the grace window (RFC 9700 §4.14.2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { callUserinfo, exchangeIssuedCode, issueCode, postToken, type TestUser } from '../helpers/code-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`simultaneous code exchanges (${database})`, () => {
    let server: TestServer;
    let client: Awaited<ReturnType<TestServer['createClient']>>;
    let user: TestUser;

    before(async () => {
      server = await startTestServer({ database });
      client = await server.createClient({ name: 'Busy App', redirectUris: ['https://app.example.com/callback'] });
      const created = await server.createUser({ name: 'Ada Lovelace' });
      user = { email: created.user.email, password: created.password };
    });
    after(async () => server.stop());

    test('eight exchanges at once, half with offline_access and half without PKCE: each answered for its own grant', async () => {
      const scopes = ['openid profile offline_access', 'openid email', 'profile offline_access', 'openid'];
      const issued = await Promise.all(
        Array.from({ length: 8 }, (_, i) => issueCode(server, client, user, { scope: scopes[i % 4]!, pkce: i % 2 === 0 })),
      );
      const responses = await Promise.all(issued.map((code) => exchangeIssuedCode(server, client, code)));
      for (const [i, response] of responses.entries()) {
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.scope, scopes[i % 4], `exchange ${i}: its own granted scope`);
        const offline = scopes[i % 4]!.includes('offline_access');
        assert.equal(typeof response.body.refresh_token, offline ? 'string' : 'undefined', `exchange ${i}: a refresh token exactly with offline_access`);
        assert.equal(typeof response.body.id_token, scopes[i % 4]!.includes('openid') ? 'string' : 'undefined', `exchange ${i}`);
        const info = await callUserinfo(server.baseUrl, `Bearer ${response.body.access_token}`);
        assert.equal(info.status, 200, info.text);
        if (offline) {
          const refreshed = await postToken(server.baseUrl, {
            form: { grant_type: 'refresh_token', refresh_token: response.body.refresh_token, client_id: client.clientId, client_secret: client.clientSecret },
          });
          assert.equal(refreshed.status, 200, refreshed.text);
        }
      }
      assert.equal(new Set(responses.map((r) => r.body.access_token)).size, 8, 'eight different tokens');
    });

    test('exchanges at once where some codes are replayed or wrong: the good ones succeed, the others get invalid_grant', async () => {
      const good = await Promise.all(Array.from({ length: 4 }, () => issueCode(server, client, user, { scope: 'openid profile' })));
      const replayed = good[0]!;
      const responses = await Promise.all([
        ...good.map((code) => exchangeIssuedCode(server, client, code)),
        exchangeIssuedCode(server, client, { ...good[1]!, code: `${good[1]!.code.slice(0, -2)}xx` }),
        exchangeIssuedCode(server, client, { ...good[2]!, verifier: 'v'.repeat(43) }),
      ]);
      assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 400, 400]);
      for (const refused of responses.slice(4)) assert.equal(refused.body.error, 'invalid_grant', refused.text);
      const replay = await exchangeIssuedCode(server, client, replayed);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
    });

    test('refreshes at once, one of them presented twice: each grant rotates once, and the retry gets the same successor', async () => {
      const grants = await Promise.all(Array.from({ length: 5 }, () => issueCode(server, client, user, { scope: 'openid offline_access' })));
      const exchanged = await Promise.all(grants.map((code) => exchangeIssuedCode(server, client, code)));
      const refreshTokens = exchanged.map((r) => r.body.refresh_token as string);
      const refresh = (token: string) =>
        postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId, client_secret: client.clientSecret } });
      const responses = await Promise.all([...refreshTokens, refreshTokens[0]!].map(refresh));
      for (const response of responses) assert.equal(response.status, 200, response.text);
      assert.equal(responses[5]!.body.refresh_token, responses[0]!.body.refresh_token, 'the retry gets the same successor: the grant does not fork');
      assert.equal(new Set(responses.map((r) => r.body.refresh_token)).size, 5);
      assert.equal(new Set(responses.map((r) => r.body.access_token)).size, 6, 'each answer has its own access token');
      for (const response of responses) assert.equal((await callUserinfo(server.baseUrl, `Bearer ${response.body.access_token}`)).status, 200);
      // Each successor refreshes in turn.
      for (const response of responses.slice(0, 5)) assert.equal((await refresh(response.body.refresh_token)).status, 200);
    });
  });
}
