/** The id_token of the token response (OIDC Core §2, §3.1.3.3, §3.1.3.6–3.1.3.7), checked independently with jose. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { runLatchCli } from '../helpers/cli.js';
import { fetchJwks, idTokenKid, randomValue, runOidcFlow, verifyIdToken } from '../helpers/oidc.js';
import { exchangeCode, pkcePair, authorize } from '../helpers/oauth-flow.js';
import { TestBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

function expectedAtHash(accessToken: string, hash: 'sha256' | 'sha512'): string {
  const digest = createHash(hash).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

describe('id_token', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_ID_TOKEN_TTL_SECONDS: '900' } });
  });
  after(async () => server.stop());

  test('scope openid adds an id_token, RS256 by default, that verifies against the JWKS and carries every claim', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const before = Math.floor(Date.now() / 1000);
    const flow = await runOidcFlow(server, client, { email: user.email, password });
    assert.equal(flow.token.status, 200, JSON.stringify(flow.token.body));
    assert.equal(flow.token.body.scope, 'openid profile email');
    const { payload, alg } = await verifyIdToken(server, flow.token.body.id_token, client.clientId, ['RS256']);
    assert.equal(alg, 'RS256');
    assert.equal(payload.iss, server.config.issuer);
    assert.equal(payload.sub, String(user.id));
    assert.equal(payload.aud, client.clientId);
    assert.equal(payload.azp, client.clientId);
    assert.equal(payload.nonce, flow.nonce);
    assert.ok(payload.iat! >= before && payload.iat! <= Math.floor(Date.now() / 1000) + 1);
    assert.equal(payload.exp! - payload.iat!, 900, 'lifetime from LATCH_ID_TOKEN_TTL_SECONDS');
    assert.ok(Number.isInteger(payload.auth_time) && payload.auth_time >= before && payload.auth_time <= payload.iat!);
    assert.equal(payload.at_hash, expectedAtHash(flow.token.body.access_token, 'sha256'));
    assert.equal(payload.email, user.email);
    assert.equal(payload.email_verified, true);
    assert.equal(payload.name, user.name);
    assert.equal(payload.picture, 'https://images.example.com/avatar.png');

    const info = await (await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${flow.token.body.access_token}` } })).json();
    assert.equal(info.sub, payload.sub, 'userinfo sub equals id_token sub (OIDC Core §5.3.2)');
    assert.equal(flow.token.body.user.sub, payload.sub);
  });

  test('nonce is left out when the request had none, and picture when the user has no avatar', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser({ avatarUrl: null });
    const flow = await runOidcFlow(server, client, { email: user.email, password }, { params: { nonce: undefined } });
    const { payload } = await verifyIdToken(server, flow.token.body.id_token, client.clientId);
    assert.equal('nonce' in payload, false);
    assert.equal('picture' in payload, false);
  });

  test('a nonce is echoed byte for byte', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const nonce = 'n-0S6_WzA2Mj ü+/=?&';
    const flow = await runOidcFlow(server, client, { email: user.email, password }, { params: { nonce } });
    assert.equal((await verifyIdToken(server, flow.token.body.id_token, client.clientId)).payload.nonce, nonce);
  });

  test('without scope openid there is no id_token (plain OAuth; OIDC Core §3.1.3.3)', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const flow = await runOidcFlow(server, client, { email: user.email, password }, { params: { scope: 'profile', nonce: undefined } });
    assert.equal(flow.token.status, 200);
    assert.equal(flow.token.body.id_token, undefined);
    assert.equal(flow.token.body.scope, 'profile');
  });

  for (const [alg, kty, hash] of [['ES256', 'EC', 'sha256'], ['EdDSA', 'OKP', 'sha512']] as const) {
    test(`a client registered for ${alg} gets ${alg} id_tokens (at_hash with ${hash})`, async () => {
      const client = await server.createClient({ idTokenSignedResponseAlg: alg });
      const { user, password } = await server.createUser();
      const flow = await runOidcFlow(server, client, { email: user.email, password });
      const verified = await verifyIdToken(server, flow.token.body.id_token, client.clientId, [alg]);
      assert.equal(verified.alg, alg);
      const jwk = (await fetchJwks(server)).keys.find((k) => k.kid === verified.kid);
      assert.equal(jwk.kty, kty);
      assert.equal(verified.payload.at_hash, expectedAtHash(flow.token.body.access_token, hash));
    });
  }

  test('a tampered id_token or one naming a kid outside the JWKS does not verify', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const flow = await runOidcFlow(server, client, { email: user.email, password });
    const [header, payload, signature] = (flow.token.body.id_token as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '999999' })).toString('base64url');
    const jwks = createLocalJWKSet(await fetchJwks(server));
    await assert.rejects(jwtVerify(`${header}.${forged}.${signature}`, jwks), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    const otherKid = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header!, 'base64url').toString()), kid: 'not-a-latch-key' })).toString('base64url');
    await assert.rejects(jwtVerify(`${otherKid}.${payload}.${signature}`, jwks), { code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  test('a code exchange that fails issues no id_token and spends nothing', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const { verifier, challenge } = pkcePair();
    const redirect = await authorize(
      new TestBrowser(),
      server.baseUrl,
      { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'openid', nonce: randomValue(), code_challenge: challenge, code_challenge_method: 'S256' },
      { email: user.email, password },
    );
    const code = redirect.searchParams.get('code')!;
    const wrong = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: pkcePair().verifier });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.id_token, undefined);
    const right = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(right.status, 200);
    assert.ok(right.body.id_token);
  });

  test('sid (OIDC Back-Channel Logout 1.0 §2.3): one per browser session, kept by a sign-in again and by every refresh, never the cookie or its hash', async () => {
    const client = await server.createClient();
    const otherApp = await server.createClient({ name: 'Other App' });
    const { user, password } = await server.createUser();
    const account = { email: user.email, password };
    const sidOf = async (idToken: string, clientId = client.clientId) => (await verifyIdToken(server, idToken, clientId)).payload.sid as string;

    const first = await runOidcFlow(server, client, account, { params: { scope: 'openid offline_access' } });
    assert.equal(first.token.status, 200, JSON.stringify(first.token.body));
    const sid = await sidOf(first.token.body.id_token);
    assert.match(sid, /^[A-Za-z0-9_-]{22,}$/, 'at least 128 random bits, URL-safe');
    const cookie = (await first.browser.jar.getCookies(server.baseUrl)).find((c) => c.key === 'latch_session')!.value;
    assert.notEqual(sid, cookie);
    assert.notEqual(sid, createHash('sha256').update(cookie).digest('base64url'), 'not the stored hash either');

    // The same browser session: the same sid for another app, and after prompt=login (a new cookie, the same session).
    assert.equal(await sidOf((await runOidcFlow(server, otherApp, account, { browser: first.browser })).token.body.id_token, otherApp.clientId), sid);
    const again = await runOidcFlow(server, client, account, { browser: first.browser, params: { prompt: 'login' } });
    assert.equal(await sidOf(again.token.body.id_token), sid, 'a sign-in again by the same person keeps the session');
    const newCookie = (await first.browser.jar.getCookies(server.baseUrl)).find((c) => c.key === 'latch_session')!.value;
    assert.notEqual(newCookie, cookie, 'with a new cookie (no session fixation)');

    // A refresh keeps the grant's sid (and its auth_time), as the grant keeps them.
    const refreshed = await exchangeCode(server.baseUrl, client, { grant_type: 'refresh_token', refresh_token: first.token.body.refresh_token });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal(await sidOf(refreshed.body.id_token), sid);

    // Another browser is another session: another sid.
    assert.notEqual(await sidOf((await runOidcFlow(server, client, account)).token.body.id_token), sid);
  });

  test('latch client create --id-token-alg stores the algorithm, and refuses one Latch does not sign with', async () => {
    const env = {
      LATCH_DATABASE_URL: server.config.databaseUrl,
      ...(server.config.databaseSchema && { LATCH_DATABASE_SCHEMA: server.config.databaseSchema }),
      LATCH_SECRET: server.config.secret,
    };
    const created = await runLatchCli(['client', 'create', '--name', 'Edwards App', '--redirect-uri', 'https://app.example.com/cb', '--id-token-alg', 'EdDSA', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const output = JSON.parse(created.stdout);
    assert.equal((await server.storage.clients.findById(output.client_id))?.idTokenSignedResponseAlg, 'EdDSA');
    const shown = await runLatchCli(['client', 'show', output.client_id, '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).id_token_signed_response_alg, 'EdDSA');

    const refused = await runLatchCli(['client', 'create', '--name', 'X', '--redirect-uri', 'https://app.example.com/cb', '--id-token-alg', 'HS256'], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--id-token-alg must be one of RS256, ES256, EdDSA/);
  });
});

describe('id_token after a key rotation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  afterEach(() => mock.timers.reset());
  after(async () => server.stop());

  test('is signed by the new key once it activates, while tokens of the old key verify until it retires', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const account = { email: user.email, password };
    const beforeRotation = await runOidcFlow(server, client, account);
    const oldKid = idTokenKid(beforeRotation.token.body.id_token)!;

    const env = { LATCH_DATABASE_URL: server.config.databaseUrl, ...(server.config.databaseSchema && { LATCH_DATABASE_SCHEMA: server.config.databaseSchema }), LATCH_SECRET: server.config.secret };
    const rotated = await runLatchCli(['keys', 'rotate', '--alg', 'RS256', '--lead-seconds', '400', '--json'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const [{ kid: newKid, activates_at: activatesAt, replaced_keys_retire_at: retiresAt }] = JSON.parse(rotated.stdout);
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    await server.signingKeys.refresh();

    const duringLead = await runOidcFlow(server, client, account);
    assert.equal(idTokenKid(duringLead.token.body.id_token), oldKid, 'the new key signs nothing during its lead time');
    assert.ok((await fetchJwks(server)).keys.some((k) => k.kid === newKid), 'but is already published');

    mock.timers.setTime(Date.parse(activatesAt) + 1000);
    const afterActivation = await runOidcFlow(server, client, account);
    assert.equal(idTokenKid(afterActivation.token.body.id_token), newKid);
    await verifyIdToken(server, afterActivation.token.body.id_token, client.clientId);
    // The last id_token of the old key is still valid (its exp is ahead) and still verifies.
    const oldToken = duringLead.token.body.id_token;
    const jwks = createLocalJWKSet(await fetchJwks(server));
    await jwtVerify(oldToken, jwks, { issuer: server.config.issuer, audience: client.clientId });

    mock.timers.setTime(Date.parse(retiresAt) + 1000);
    await server.signingKeys.refresh();
    const published = (await fetchJwks(server)).keys.map((k) => k.kid);
    assert.ok(!published.includes(oldKid), 'the old key is retired');
    await assert.rejects(jwtVerify(oldToken, createLocalJWKSet({ keys: (await fetchJwks(server)).keys }), { currentDate: new Date(Date.parse(activatesAt)) }), {
      code: 'ERR_JWKS_NO_MATCHING_KEY',
    });
    const afterRetirement = await runOidcFlow(server, client, account);
    assert.equal((await verifyIdToken(server, afterRetirement.token.body.id_token, client.clientId)).kid, newKid);
  });
});
