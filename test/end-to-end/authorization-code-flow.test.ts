import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('authorization code flow, end to end', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  for (const style of ['basic', 'post', 'multipart'] as const) {
    test(`code → token (${style}) → userinfo`, async () => {
      const client = await server.createClient();
      const { user, password } = await server.createUser();
      const browser = new TestBrowser();
      const { verifier, challenge } = pkcePair();
      const redirect = await authorize(
        browser,
        server.baseUrl,
        {
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: client.redirectUris[0],
          scope: 'profile',
          state: 'xyz-state/+=',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        },
        { email: user.email, password },
      );
      assert.equal(`${redirect.origin}${redirect.pathname}`, client.redirectUris[0]);
      assert.equal(redirect.searchParams.get('state'), 'xyz-state/+=');
      assert.equal(redirect.searchParams.get('iss'), server.config.issuer);
      const code = redirect.searchParams.get('code');
      assert.ok(code);

      const token = await exchangeCode(
        server.baseUrl,
        client,
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0]!, code_verifier: verifier },
        style,
      );
      assert.equal(token.status, 200, JSON.stringify(token.body));
      assert.equal(token.headers.get('cache-control'), 'no-store');
      assert.equal(token.headers.get('pragma'), 'no-cache');
      assert.equal(token.body.token_type.toLowerCase(), 'bearer');
      assert.equal(token.body.expires_in, 3600);
      assert.equal(token.body.scope, 'profile');
      assert.deepEqual(token.body.user, {
        id: user.id,
        sub: String(user.id),
        email: user.email,
        email_verified: true,
        name: user.name,
        avatar_url: 'https://images.example.com/avatar.png',
        client: 'Test App',
      });

      for (const header of [`Bearer ${token.body.access_token}`, `bearer ${token.body.access_token}`, token.body.access_token]) {
        const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: header } });
        assert.equal(info.status, 200);
        const body = await info.json();
        assert.equal(body.sub, String(user.id));
        assert.equal(body.email, user.email);
      }
    });
  }
});
