/**
 * Server-Timing (W3C Server Timing; issue 16 item 4; README "Server-Timing") over real HTTP, on SQLite and
 * PostgreSQL: with LATCH_SERVER_TIMING=1, successful token and userinfo responses say how long the database,
 * the id_token signature and the whole request took; failed ones never do (a side channel on client
 * authentication and token lookups); other routes never do; and without the setting nothing does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PHASE = /^([a-z]+);dur=(\d+\.\d\d)$/;

/** The header as {phase: milliseconds}, checking its syntax on the way. */
function phases(header: string | null): Record<string, number> {
  assert.ok(header, 'a Server-Timing header');
  const result: Record<string, number> = {};
  for (const part of header.split(', ')) {
    const match = PHASE.exec(part);
    assert.ok(match, `"${part}" is name;dur=milliseconds`);
    result[match[1]!] = Number(match[2]);
  }
  return result;
}

async function codeFor(server: TestServer, client: { clientId: string; redirectUris: string[] }, scope: string): Promise<{ code: string; verifier: string }> {
  const { user, password } = await server.createUser();
  const { verifier, challenge } = pkcePair();
  const redirect = await authorize(
    new TestBrowser(),
    server.baseUrl,
    { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope, code_challenge: challenge, code_challenge_method: 'S256' },
    { email: user.email, password },
  );
  return { code: redirect.searchParams.get('code')!, verifier };
}

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`Server-Timing on ${database}`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database, env: { LATCH_SERVER_TIMING: '1' } });
    });
    after(() => server?.stop());

    test('a successful code exchange with an id_token says db, sign and total; userinfo says db and total', async () => {
      const client = await server.createClient();
      const { code, verifier } = await codeFor(server, client, 'openid profile');
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(token.status, 200);
      const timing = phases(token.headers.get('server-timing'));
      assert.deepEqual(Object.keys(timing), ['db', 'sign', 'total']);
      assert.ok(timing.db! > 0 && timing.sign! > 0, JSON.stringify(timing));
      assert.ok(timing.db! <= timing.total! && timing.sign! <= timing.total!, JSON.stringify(timing));

      const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(info.status, 200);
      const userinfoTiming = phases(info.headers.get('server-timing'));
      assert.deepEqual(Object.keys(userinfoTiming).filter((phase) => phase !== 'db'), ['total'], 'no signature at userinfo');
      assert.equal(userinfoTiming.sign, undefined);
    });

    test('without openid there is no id_token, so no sign phase', async () => {
      const client = await server.createClient();
      const { code, verifier } = await codeFor(server, client, 'profile');
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(token.status, 200);
      assert.equal(token.body.id_token, undefined);
      assert.deepEqual(Object.keys(phases(token.headers.get('server-timing'))), ['db', 'total']);
    });

    test('failures carry no Server-Timing: a wrong client secret, a used code, an unknown token', async () => {
      const client = await server.createClient();
      const { code, verifier } = await codeFor(server, client, 'openid profile');
      const wrongSecret = await exchangeCode(server.baseUrl, { ...client, clientSecret: `${client.clientSecret}x` }, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(wrongSecret.status, 401);
      assert.equal(wrongSecret.headers.get('server-timing'), null);
      const ok = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(ok.status, 200);
      const reused = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(reused.status, 400);
      assert.equal(reused.headers.get('server-timing'), null);
      const unknown = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: 'Bearer not-a-token' } });
      assert.equal(unknown.status, 401);
      assert.equal(unknown.headers.get('server-timing'), null);
    });

    test('other routes never carry it', async () => {
      for (const path of ['/.well-known/openid-configuration', '/oauth2/jwks', '/login', '/healthz']) {
        const response = await fetch(`${server.baseUrl}${path}`);
        assert.equal(response.headers.get('server-timing'), null, path);
      }
    });
  });
}

test('without LATCH_SERVER_TIMING, successful token and userinfo responses carry no Server-Timing', async () => {
  const server = await startTestServer();
  try {
    const client = await server.createClient();
    const { code, verifier } = await codeFor(server, client, 'openid profile');
    const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(token.status, 200);
    assert.equal(token.headers.get('server-timing'), null);
    const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal(info.status, 200);
    assert.equal(info.headers.get('server-timing'), null);
  } finally {
    await server.stop();
  }
});
