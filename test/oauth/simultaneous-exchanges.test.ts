/**
 * Many code exchanges at once, over HTTP, on SQLite and PostgreSQL. On PostgreSQL the exchanges that arrive in
 * one turn of the event loop are one statement (storage/postgres/postgres-executor.ts batches): each must still
 * get its own answer, a refresh token exactly when its grant has offline_access (OIDC Core §11), and tokens
 * that work.
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
  });
}
