/** Userinfo with OpenID Connect (OIDC Core §5.3, §5.4): the standard claims for the token's scopes, on GET and POST. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSecret, hashSecret, SECRET_PREFIX } from '../../src/crypto/secrets.js';
import { runOidcFlow } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('userinfo claims by scope', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('scope openid profile: sub, email, email_verified, name, picture and the spec fields, on GET and POST alike', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const flow = await runOidcFlow(server, client, { email: user.email, password });
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${server.baseUrl}/oauth2/userinfo`, { method, headers: { authorization: `Bearer ${flow.token.body.access_token}` } });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        id: user.id,
        sub: String(user.id),
        email: user.email,
        email_verified: true,
        name: user.name,
        avatar_url: 'https://images.example.com/avatar.png',
        picture: 'https://images.example.com/avatar.png',
      });
    }
  });

  test('a token without the profile scope gets sub (and the spec id) only', async () => {
    const client = await server.createClient();
    const { user } = await server.createUser();
    const token = generateSecret(SECRET_PREFIX.accessToken);
    const now = new Date();
    await server.storage.tokens.insert({
      tokenHash: hashSecret(token),
      clientId: client.clientId,
      userId: user.id,
      scope: ['openid'],
      grantId: 'userinfo-claims',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    const response = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { id: user.id, sub: String(user.id) });
  });
});
