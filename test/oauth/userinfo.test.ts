/**
 * GET and POST /oauth2/userinfo (RFC 6750 §2.1, §3, §3.1; OIDC Core §5.3; docs/protocol-decisions.md "Userinfo").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { callUserinfo, obtainAccessToken, readResponse, type RawResponse } from '../helpers/code-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

function assertInvalidToken(response: RawResponse, options: { errorAttribute: boolean }): void {
  assert.equal(response.status, 401, response.text);
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer\b/);
  if (options.errorAttribute) assert.match(challenge, /error="invalid_token"/);
  else assert.doesNotMatch(challenge, /error=/, 'RFC 6750 §3.1: no error attribute when no token was sent');
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.body.error, 'invalid_token');
  assert.equal(response.body.request_id, response.headers.get('x-request-id'));
}

describe('/oauth2/userinfo', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let token: string;
  let userId: number;
  let email: string;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient();
    const created = await server.createUser({ name: 'Grace Hopper' });
    userId = created.user.id;
    email = created.user.email;
    token = await obtainAccessToken(server, client, { email, password: created.password });
  });
  after(async () => server.stop());

  describe('accepted header forms', () => {
    const forms: Array<[string, (t: string) => string]> = [
      ['Bearer <token>', (t) => `Bearer ${t}`],
      ['bearer <token> (scheme in lower case)', (t) => `bearer ${t}`],
      ['BEARER <token> (scheme in upper case)', (t) => `BEARER ${t}`],
      ['BeArEr <token> (scheme in mixed case)', (t) => `BeArEr ${t}`],
      ['the bare token as the whole value (spec reference call)', (t) => t],
      ['Bearer with extra spaces', (t) => `Bearer   ${t}`],
      ['Bearer and the token separated by a tab', (t) => `Bearer\t${t}`],
    ];
    for (const [name, build] of forms) {
      test(name, async () => {
        const response = await callUserinfo(server.baseUrl, build(token));
        assert.equal(response.status, 200, response.text);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(response.headers.get('pragma'), 'no-cache');
        assert.deepEqual(response.body, {
          id: userId,
          sub: String(userId),
          email,
          email_verified: true,
          name: 'Grace Hopper',
          avatar_url: 'https://images.example.com/avatar.png',
          picture: 'https://images.example.com/avatar.png',
        });
      });
    }

    test('POST works as GET does', async () => {
      const response = await callUserinfo(server.baseUrl, `Bearer ${token}`, { method: 'POST' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.sub, String(userId));
    });

    test('a token granted without openid is served (plain OAuth clients call userinfo)', async () => {
      // the token of this suite was granted for scope "profile" only
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${token}`)).status, 200);
    });
  });

  describe('refusals', () => {
    test('no Authorization header → 401 with a Bearer challenge and no error attribute', async () => {
      assertInvalidToken(await callUserinfo(server.baseUrl), { errorAttribute: false });
    });

    test('an empty Authorization header → 401 without error attribute', async () => {
      assertInvalidToken(await callUserinfo(server.baseUrl, ''), { errorAttribute: false });
    });

    test('a token in the query string is never read', async () => {
      const response = await callUserinfo(server.baseUrl, undefined, { path: `/oauth2/userinfo?access_token=${encodeURIComponent(token)}` });
      assertInvalidToken(response, { errorAttribute: false });
      assert.match(response.body.error_description, /query string/);
    });

    test('a token in a POST body is never read', async () => {
      const response = await readResponse(
        await fetch(`${server.baseUrl}/oauth2/userinfo`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ access_token: token }).toString(),
        }),
      );
      assert.equal(response.status, 401);
    });

    test('Basic credentials are never read as a token, even when they carry the token; RFC 6750 §3.1: another method is as if none was sent (a challenge without an error code)', async () => {
      for (const header of [`Basic ${token}`, `Basic ${Buffer.from(`${token}:`).toString('base64')}`, `Basic ${Buffer.from(`x:${token}`).toString('base64')}`]) {
        assertInvalidToken(await callUserinfo(server.baseUrl, header), { errorAttribute: false });
      }
    });

    test('another scheme with the token → 401 with a challenge without an error code (RFC 6750 §3.1)', async () => {
      for (const scheme of ['Token', 'MAC', 'Digest', 'DPoP']) {
        assertInvalidToken(await callUserinfo(server.baseUrl, `${scheme} ${token}`), { errorAttribute: false });
      }
    });

    test('a first word that is no registered scheme (a pasted secret) is not repeated in the answer', async () => {
      const pasted = `latch_cs_${'Z'.repeat(43)}`;
      const response = await callUserinfo(server.baseUrl, `${pasted} ${token}`);
      assertInvalidToken(response, { errorAttribute: false });
      assert.ok(!response.text.includes(pasted) && !(response.headers.get('www-authenticate') ?? '').includes(pasted));
    });

    test('Bearer without a token → 401 invalid_token', async () => {
      assertInvalidToken(await callUserinfo(server.baseUrl, 'Bearer'), { errorAttribute: true });
      assertInvalidToken(await callUserinfo(server.baseUrl, 'Bearer '), { errorAttribute: true });
    });

    test('an unknown token → 401 invalid_token', async () => {
      assertInvalidToken(await callUserinfo(server.baseUrl, `Bearer latch_at_${'A'.repeat(43)}`), { errorAttribute: true });
      assertInvalidToken(await callUserinfo(server.baseUrl, `latch_at_${'B'.repeat(43)}`), { errorAttribute: true });
    });

    test('a malformed token → 401 invalid_token', async () => {
      for (const header of ['Bearer a"b', 'Bearer a b c', 'Bearer ä', '"quoted"']) {
        assertInvalidToken(await callUserinfo(server.baseUrl, header), { errorAttribute: true });
      }
    });

    test('a token with a character changed → 401 invalid_token', async () => {
      const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
      assertInvalidToken(await callUserinfo(server.baseUrl, `Bearer ${altered}`), { errorAttribute: true });
    });

    test('the WWW-Authenticate description never breaks the header quoting', async () => {
      const response = await callUserinfo(server.baseUrl, 'Weird"scheme" x');
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      assert.equal((challenge.match(/"/g) ?? []).length % 2, 0, challenge);
    });

    test('a revoked token → 401 invalid_token (revocation is covered through code reuse in token.test.ts)', async () => {
      const created = await server.createUser();
      const fresh = await obtainAccessToken(server, client, { email: created.user.email, password: created.password });
      const revoked = await server.storage.tokens.revokeByUserAndClient(created.user.id, client.clientId, new Date());
      assert.equal(revoked, 1);
      assertInvalidToken(await callUserinfo(server.baseUrl, `Bearer ${fresh}`), { errorAttribute: true });
    });
  });
});
