/**
 * The core flow on each database Latch supports, through the real server: sign in, consent, exchange,
 * userinfo, single use of the code (also under simultaneous exchanges) and remembered consent. On PostgreSQL
 * it runs in a schema of its own; skipped, saying why, when PostgreSQL is unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { authorize, authorizeUrl, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`authorization code flow on ${database}`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database });
    });
    after(async () => server?.stop());

    async function codeFor(browser: TestBrowser, client: Awaited<ReturnType<TestServer['createClient']>>, user: { email: string; password: string }) {
      const { verifier, challenge } = pkcePair();
      const redirect = await authorize(
        browser,
        server.baseUrl,
        { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile', state: 's', code_challenge: challenge, code_challenge_method: 'S256' },
        user,
      );
      const code = redirect.searchParams.get('code');
      assert.ok(code, redirect.href);
      return { code, verifier };
    }

    test('sign in, consent, exchange and userinfo work, and a replayed code fails and revokes its token', async () => {
      const client = await server.createClient();
      const { user, password } = await server.createUser();
      const browser = new TestBrowser();
      const { code, verifier } = await codeFor(browser, client, { email: user.email, password });
      const form = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0]!, code_verifier: verifier };

      const token = await exchangeCode(server.baseUrl, client, form);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      assert.equal(token.body.user.id, user.id);
      const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(info.status, 200);
      assert.equal((await info.json()).sub, String(user.id));

      const replay = await exchangeCode(server.baseUrl, client, form);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
      const afterReplay = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(afterReplay.status, 401);
    });

    test('simultaneous exchanges of one code: exactly one wins', async () => {
      const client = await server.createClient();
      const { user, password } = await server.createUser();
      const { code, verifier } = await codeFor(new TestBrowser(), client, { email: user.email, password });
      const form = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0]!, code_verifier: verifier };
      const results = await Promise.all(Array.from({ length: 6 }, () => exchangeCode(server.baseUrl, client, form)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400]);
      for (const loser of results.filter((r) => r.status === 400)) assert.equal(loser.body.error, 'invalid_grant');
    });

    test('consent is remembered: the second authorization skips the consent page', async () => {
      const client = await server.createClient();
      const { user, password } = await server.createUser();
      const browser = new TestBrowser();
      await codeFor(browser, client, { email: user.email, password });
      const { challenge } = pkcePair();
      const second = await browser.follow(
        authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile', code_challenge: challenge, code_challenge_method: 'S256' }),
        server.baseUrl,
      );
      assert.equal(second.status, 302);
      assert.ok(new URL(second.headers.get('location')!).searchParams.get('code'));
    });
  });
}
