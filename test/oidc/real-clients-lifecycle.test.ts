/**
 * The token lifecycle as certified client libraries drive it (issue 14 item 9), on SQLite and on PostgreSQL:
 * openid-client v6 (`refreshTokenGrant`, `tokenIntrospection`, `tokenRevocation`) and oauth4webapi v3
 * (`refreshTokenGrantRequest`, `introspectionRequest`, `revocationRequest` and their `process…Response`), each
 * after a real code flow with PKCE, state, nonce and offline_access. Whatever a library refuses in Latch's
 * answers fails the test.
 *
 * - Rotation (RFC 9700 §4.14.2; docs/protocol-decisions.md "Refresh tokens"): every refresh returns a new
 *   refresh token; a retry of the old one within the grace window gets the same new one; reuse after it
 *   revokes the whole grant, so the new refresh token and the grant's access tokens stop working.
 * - Introspection (RFC 7662 §2.2): an active token's members as the library reads them; `{active: false}` once
 *   the token is rotated or revoked.
 * - Revocation (RFC 7009 §2.1): revoking the refresh token ends its grant's access tokens too, at
 *   introspection and at userinfo (RFC 6750 §3.1: 401).
 *
 * The grace window is set to GRACE_SECONDS so that "after it" is reached by waiting. On PostgreSQL each server
 * runs in a schema of its own (test/helpers/test-server.ts); that describe is skipped, saying why, when
 * PostgreSQL is unreachable.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as openidClient from 'openid-client';
import { TestBrowser } from '../helpers/browser.js';
import { authorize } from '../helpers/oauth-flow.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const GRACE_SECONDS = 2;

type Client = Awaited<ReturnType<TestServer['createClient']>>;
type Account = { userId: number; email: string; password: string };

/** The library's rejection of an OAuth error response (both libraries throw oauth4webapi's ResponseBodyError). */
function isOAuthError(status: number, error: string, description?: RegExp) {
  return (thrown: unknown): boolean => {
    assert.ok(thrown instanceof oauth.ResponseBodyError, `expected a ResponseBodyError, got ${String(thrown)}`);
    assert.equal(thrown.status, status);
    assert.equal(thrown.error, error, thrown.error_description);
    if (description) assert.match(thrown.error_description ?? '', description);
    return true;
  };
}

/** The library's rejection of a 401 with a Bearer challenge (RFC 6750 §3.1). */
function isInvalidTokenChallenge(thrown: unknown): boolean {
  assert.ok(thrown instanceof oauth.WWWAuthenticateChallengeError, `expected a WWWAuthenticateChallengeError, got ${String(thrown)}`);
  assert.equal(thrown.status, 401);
  assert.equal(thrown.cause[0]?.scheme, 'bearer');
  assert.equal(thrown.cause[0]?.parameters.error, 'invalid_token');
  return true;
}

/** Waits until a token rotated before `rotatedBy` (a Date.now() taken after the refresh answered) is past the grace window. */
async function waitPastGrace(rotatedBy: number): Promise<void> {
  const remaining = rotatedBy + GRACE_SECONDS * 1000 + 300 - Date.now();
  if (remaining > 0) await sleep(remaining);
}

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`real clients drive refresh, introspection and revocation on ${database}`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database, env: { LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) } });
    });
    after(async () => server?.stop());

    async function setUp(name: string): Promise<{ client: Client; account: Account }> {
      const client = await server.createClient({ name });
      const { user, password } = await server.createUser();
      return { client, account: { userId: user.id, email: user.email, password } };
    }

    /** The browser side, from the authorization URL the library built to the callback URL. */
    async function browse(url: URL, account: Account): Promise<URL> {
      assert.equal(`${url.origin}${url.pathname}`, `${server.config.issuer}/oauth2/authorize`);
      return authorize(new TestBrowser(), server.baseUrl, Object.fromEntries(url.searchParams.entries()), account);
    }

    /** RFC 7662 §2.2 members of an active token, as Latch promises them (src/oauth/introspection.ts). */
    function assertActive(
      answer: oauth.IntrospectionResponse,
      expected: { client: Client; account: Account; scope: string; tokenType: 'Bearer' | 'refresh_token' },
    ): void {
      assert.equal(answer.active, true, JSON.stringify(answer));
      assert.equal(answer.client_id, expected.client.clientId);
      assert.equal(answer.sub, String(expected.account.userId));
      assert.equal(answer.iss, server.config.issuer);
      assert.equal(answer.token_type, expected.tokenType);
      assert.equal(answer.scope, expected.scope);
      assert.equal(typeof answer.iat, 'number');
      assert.equal(typeof answer.exp, 'number');
      const now = Math.floor(Date.now() / 1000);
      assert.ok(answer.iat! <= now + 1 && answer.iat! >= now - 60, `iat ${answer.iat} is about now (${now})`);
      // Stored in whole seconds, the issue time rounded down and the expiry up (src/storage/repositories/columns.ts).
      const lifetime = (expected.tokenType === 'Bearer' ? server.config.accessTokenTtlSeconds : server.config.refreshTokenIdleSeconds) + 1;
      assert.ok(answer.exp! > now && answer.exp! - answer.iat! <= lifetime, `exp ${answer.exp} is within ${lifetime} s of iat ${answer.iat}`);
      if (expected.tokenType === 'Bearer') assert.ok(answer.exp! - answer.iat! >= lifetime - 1, `an access token lives its whole ${lifetime - 1} s`);
    }

    describe('openid-client v6', () => {
      async function signIn(name: string) {
        const { client, account } = await setUp(name);
        const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, {}, openidClient.ClientSecretBasic(client.clientSecret), {
          execute: [openidClient.allowInsecureRequests],
        });
        const verifier = openidClient.randomPKCECodeVerifier();
        const state = openidClient.randomState();
        const nonce = openidClient.randomNonce();
        const url = openidClient.buildAuthorizationUrl(config, {
          redirect_uri: client.redirectUris[0]!,
          scope: 'openid profile offline_access',
          code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        });
        const tokens = await openidClient.authorizationCodeGrant(config, await browse(url, account), {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        });
        assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
        assert.ok(tokens.scope, 'the granted scope is in the token response');
        return { client, account, config, tokens, refreshToken: tokens.refresh_token, scope: tokens.scope, claims: tokens.claims()! };
      }

      test('refreshTokenGrant rotates (same sub and auth_time, no nonce); a retry within the grace window gets the same new token; reuse after it revokes the grant', async () => {
        const { config, tokens, refreshToken, claims } = await signIn('openid-client rotation');

        const refreshed = await openidClient.refreshTokenGrant(config, refreshToken);
        const rotatedBy = Date.now();
        const successor = refreshed.refresh_token;
        assert.ok(successor && successor !== refreshToken, 'a new refresh token');
        const refreshedClaims = refreshed.claims()!;
        assert.equal(refreshedClaims.sub, claims.sub);
        assert.equal(refreshedClaims.auth_time, claims.auth_time);
        assert.equal(refreshedClaims.nonce, undefined, 'OIDC Core §12.2: no nonce in a refreshed id_token');
        assert.equal((await openidClient.fetchUserInfo(config, refreshed.access_token, claims.sub)).sub, claims.sub);

        // A lost response: the same old token again, within the grace window → the same successor.
        const retried = await openidClient.refreshTokenGrant(config, refreshToken);
        assert.equal(retried.refresh_token, successor, 'the retry is answered with the same new refresh token');
        assert.notEqual(retried.access_token, refreshed.access_token);

        await waitPastGrace(rotatedBy);
        await assert.rejects(openidClient.refreshTokenGrant(config, refreshToken), isOAuthError(400, 'invalid_grant', /already used/));

        // The whole grant is revoked: the successor and every access token of the grant.
        await assert.rejects(openidClient.refreshTokenGrant(config, successor), isOAuthError(400, 'invalid_grant', /revoked/));
        for (const accessToken of [tokens.access_token, refreshed.access_token, retried.access_token]) {
          assert.deepEqual(await openidClient.tokenIntrospection(config, accessToken), { active: false });
          await assert.rejects(openidClient.fetchUserInfo(config, accessToken, claims.sub), isInvalidTokenChallenge);
        }
        assert.deepEqual(await openidClient.tokenIntrospection(config, successor, { token_type_hint: 'refresh_token' }), { active: false });
      });

      test('tokenIntrospection answers active with the right members, inactive for rotated tokens; tokenRevocation of the refresh token ends the grant\'s access tokens', async () => {
        const { client, account, config, tokens, refreshToken, scope, claims } = await signIn('openid-client introspection and revocation');

        assertActive(await openidClient.tokenIntrospection(config, tokens.access_token, { token_type_hint: 'access_token' }), { client, account, scope, tokenType: 'Bearer' });
        assertActive(await openidClient.tokenIntrospection(config, refreshToken), { client, account, scope, tokenType: 'refresh_token' });

        // The rotated token refreshes in turn: a chain of rotations, each token spent once used.
        const first = await openidClient.refreshTokenGrant(config, refreshToken);
        const refreshed = await openidClient.refreshTokenGrant(config, first.refresh_token!);
        const successor = refreshed.refresh_token!;
        assert.ok(successor && successor !== first.refresh_token && successor !== refreshToken, 'rotated again');
        for (const spent of [refreshToken, first.refresh_token!]) {
          assert.deepEqual(await openidClient.tokenIntrospection(config, spent), { active: false }, 'a rotated refresh token is spent');
        }
        assertActive(await openidClient.tokenIntrospection(config, successor, { token_type_hint: 'refresh_token' }), { client, account, scope, tokenType: 'refresh_token' });
        assertActive(await openidClient.tokenIntrospection(config, refreshed.access_token), { client, account, scope: refreshed.scope!, tokenType: 'Bearer' });
        assert.equal(refreshed.claims()!.auth_time, claims.auth_time);

        await openidClient.tokenRevocation(config, successor, { token_type_hint: 'refresh_token' });
        assert.deepEqual(await openidClient.tokenIntrospection(config, successor), { active: false });
        for (const accessToken of [tokens.access_token, first.access_token, refreshed.access_token]) {
          assert.deepEqual(await openidClient.tokenIntrospection(config, accessToken), { active: false });
          await assert.rejects(openidClient.fetchUserInfo(config, accessToken, claims.sub), isInvalidTokenChallenge);
        }
        await assert.rejects(openidClient.refreshTokenGrant(config, successor), isOAuthError(400, 'invalid_grant', /revoked/));
        // RFC 7009 §2.2: revoking it again is still a success.
        await openidClient.tokenRevocation(config, successor);
      });
    });

    describe('oauth4webapi v3', () => {
      const insecure = { [oauth.allowInsecureRequests]: true } as const;

      async function signIn(name: string) {
        const { client, account } = await setUp(name);
        const issuer = new URL(server.baseUrl);
        const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
        const rp: oauth.Client = { client_id: client.clientId };
        const clientAuth = oauth.ClientSecretPost(client.clientSecret);
        const redirectUri = client.redirectUris[0]!;

        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        const nonce = oauth.generateRandomNonce();
        const url = new URL(as.authorization_endpoint!);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: client.clientId,
          redirect_uri: redirectUri,
          scope: 'openid profile offline_access',
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        }).toString();
        const callback = oauth.validateAuthResponse(as, rp, await browse(url, account), state);
        const response = await oauth.authorizationCodeGrantRequest(as, rp, clientAuth, callback, redirectUri, verifier, insecure);
        const tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
        const claims = oauth.getValidatedIdTokenClaims(tokens)!;
        assert.equal(claims.nonce, nonce);
        assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
        assert.ok(tokens.scope, 'the granted scope is in the token response');

        const refresh = async (refreshToken: string, additionalParameters?: Record<string, string>) =>
          oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, clientAuth, refreshToken, { ...insecure, additionalParameters }));
        const introspect = async (token: string, additionalParameters?: Record<string, string>) =>
          oauth.processIntrospectionResponse(as, rp, await oauth.introspectionRequest(as, rp, clientAuth, token, { ...insecure, additionalParameters }));
        const revoke = async (token: string, additionalParameters?: Record<string, string>) =>
          oauth.processRevocationResponse(await oauth.revocationRequest(as, rp, clientAuth, token, { ...insecure, additionalParameters }));
        const userinfo = async (accessToken: string) =>
          oauth.processUserInfoResponse(as, rp, claims.sub, await oauth.userInfoRequest(as, rp, accessToken, insecure));
        return { client, account, tokens, refreshToken: tokens.refresh_token, scope: tokens.scope, claims, refresh, introspect, revoke, userinfo };
      }

      test('refreshTokenGrantRequest rotates (same sub and auth_time); a retry within the grace window gets the same new token; reuse after it revokes the grant', async () => {
        const { tokens, refreshToken, claims, refresh, introspect, userinfo } = await signIn('oauth4webapi rotation');

        const refreshed = await refresh(refreshToken);
        const rotatedBy = Date.now();
        const successor = refreshed.refresh_token;
        assert.ok(successor && successor !== refreshToken, 'a new refresh token');
        const refreshedClaims = oauth.getValidatedIdTokenClaims(refreshed)!;
        assert.equal(refreshedClaims.sub, claims.sub);
        assert.equal(refreshedClaims.auth_time, claims.auth_time);
        assert.equal(refreshedClaims.nonce, undefined, 'OIDC Core §12.2: no nonce in a refreshed id_token');
        assert.equal((await userinfo(refreshed.access_token)).sub, claims.sub);

        const retried = await refresh(refreshToken);
        assert.equal(retried.refresh_token, successor, 'the retry is answered with the same new refresh token');

        await waitPastGrace(rotatedBy);
        await assert.rejects(refresh(refreshToken), isOAuthError(400, 'invalid_grant', /already used/));

        await assert.rejects(refresh(successor), isOAuthError(400, 'invalid_grant', /revoked/));
        for (const accessToken of [tokens.access_token, refreshed.access_token, retried.access_token]) {
          assert.deepEqual(await introspect(accessToken, { token_type_hint: 'access_token' }), { active: false });
          await assert.rejects(userinfo(accessToken), isInvalidTokenChallenge);
        }
        assert.deepEqual(await introspect(successor), { active: false });
      });

      test('a narrowed refresh, introspectionRequest active with the right members, then revocationRequest of the refresh token ends the grant\'s access tokens', async () => {
        const { client, account, tokens, refreshToken, scope, refresh, introspect, revoke, userinfo } = await signIn('oauth4webapi introspection and revocation');

        assertActive(await introspect(tokens.access_token), { client, account, scope, tokenType: 'Bearer' });
        assertActive(await introspect(refreshToken, { token_type_hint: 'refresh_token' }), { client, account, scope, tokenType: 'refresh_token' });

        // RFC 6749 §6: a narrower scope for this access token; the grant (and so the next refresh token) keeps its own.
        const narrowed = await refresh(refreshToken, { scope: 'profile' });
        assert.equal(narrowed.scope, 'profile');
        assert.equal(oauth.getValidatedIdTokenClaims(narrowed), undefined, 'no openid, no id_token');
        const successor = narrowed.refresh_token!;
        assert.ok(successor && successor !== refreshToken);
        assertActive(await introspect(narrowed.access_token), { client, account, scope: 'profile', tokenType: 'Bearer' });
        assert.deepEqual(await introspect(refreshToken), { active: false }, 'a rotated refresh token is spent');
        assert.equal((await introspect(successor)).active, true);

        assert.equal(await revoke(successor, { token_type_hint: 'refresh_token' }), undefined);
        assert.deepEqual(await introspect(successor), { active: false });
        for (const accessToken of [tokens.access_token, narrowed.access_token]) {
          assert.deepEqual(await introspect(accessToken), { active: false });
          await assert.rejects(userinfo(accessToken), isInvalidTokenChallenge);
        }
        await assert.rejects(refresh(successor), isOAuthError(400, 'invalid_grant', /revoked/));
        assert.equal(await revoke(successor), undefined, 'RFC 7009 §2.2: revoking it again is still a success');
      });
    });
  });
}
