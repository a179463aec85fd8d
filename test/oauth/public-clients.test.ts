/**
 * Public clients: single-page and mobile apps (issue 18 item 1; docs/protocol-decisions.md "Public clients and
 * services"): registered without a secret, PKCE S256 required, client_id alone at the token and revocation
 * endpoints, refresh tokens rotated, no introspection, and CORS on the token, revocation and userinfo endpoints
 * for the origins of public clients' redirect URIs only, never on the authorization endpoint or the pages.
 * Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { TestBrowser } from '../helpers/browser.js';
import { callUserinfo, postToken, readResponse, type TestUser } from '../helpers/code-fixtures.js';
import { findRows } from '../helpers/database-snapshot.js';
import { authorize, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postIntrospect, postRevoke } from '../helpers/token-management.js';

const SPA_ORIGIN = 'http://127.0.0.1:5173';
const SPA_REDIRECT = `${SPA_ORIGIN}/callback`;
const OTHER_ORIGIN = 'http://127.0.0.1:6006';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`public clients and CORS (${database})`, () => {
    let server: TestServer;
    let spa: { clientId: string; redirectUri: string };
    let confidential: Awaited<ReturnType<TestServer['createClient']>>;
    let user: TestUser;

    before(async () => {
      server = await startTestServer({ database });
      const registered = await registerClientOfAnyKind(server.storage, { name: 'Single-page App', redirectUris: [SPA_REDIRECT], isPublic: true }, { developmentMode: false });
      assert.equal(registered.clientSecret, null, 'a public client gets no secret');
      spa = { clientId: registered.client.clientId, redirectUri: SPA_REDIRECT };
      confidential = await server.createClient({ name: 'Web App', redirectUris: [`${OTHER_ORIGIN}/callback`] });
      const created = await server.createUser();
      user = { email: created.user.email, password: created.password };
    });
    after(async () => server.stop());

    /** A code for the SPA through the browser flow, with PKCE. */
    async function spaCode(scope = 'openid profile offline_access'): Promise<{ code: string; verifier: string }> {
      const { verifier, challenge } = pkcePair();
      const redirect = await authorize(
        new TestBrowser(),
        server.baseUrl,
        { response_type: 'code', client_id: spa.clientId, redirect_uri: spa.redirectUri, scope, state: 's', code_challenge: challenge, code_challenge_method: 'S256' },
        user,
      );
      const code = redirect.searchParams.get('code');
      assert.ok(code, redirect.href);
      return { code, verifier };
    }

    const exchange = (code: string, verifier: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}) =>
      postToken(server.baseUrl, {
        headers,
        form: { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: spa.redirectUri, client_id: spa.clientId, ...extra },
      });

    test('the client is stored as public (token_endpoint_auth_method none)', async () => {
      const [row] = await findRows(server, 'clients', { client_id: spa.clientId });
      assert.equal(row?.token_endpoint_auth_method, 'none');
      assert.deepEqual(JSON.parse(String(row?.grant_types)), ['authorization_code', 'refresh_token']);
    });

    test('PKCE S256 is required at the authorization endpoint: without code_challenge the app gets invalid_request', async () => {
      const redirect = await authorize(new TestBrowser(), server.baseUrl, { response_type: 'code', client_id: spa.clientId, redirect_uri: spa.redirectUri, scope: 'profile', state: 'st' }, user);
      assert.equal(redirect.origin + redirect.pathname, spa.redirectUri);
      assert.equal(redirect.searchParams.get('error'), 'invalid_request');
      assert.match(redirect.searchParams.get('error_description') ?? '', /public client.*PKCE/);
      assert.equal(redirect.searchParams.get('state'), 'st');
    });

    test('the token endpoint takes client_id alone; refresh rotates on every use, client_id alone too', async () => {
      const { code, verifier } = await spaCode();
      const tokens = await exchange(code, verifier);
      assert.equal(tokens.status, 200, tokens.text);
      assert.ok(tokens.body.id_token && tokens.body.refresh_token);
      const refreshed = await postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: spa.clientId } });
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.notEqual(refreshed.body.refresh_token, tokens.body.refresh_token, 'rotated');
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${refreshed.body.access_token}`)).status, 200);
    });

    test('a public client that sends a secret is refused with invalid_client, saying why', async () => {
      const { code, verifier } = await spaCode('profile');
      const response = await exchange(code, verifier, {}, { client_secret: 'latch_cs_anything' });
      assert.equal(response.status, 401);
      assert.equal(response.body.error, 'invalid_client');
      assert.match(response.body.error_description, /public.*no secret/);
      // The code was not spent by the refused request.
      assert.equal((await exchange(code, verifier)).status, 200);
    });

    test('a confidential client that sends client_id alone is refused with invalid_client', async () => {
      const response = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: confidential.clientId } });
      assert.equal(response.status, 401);
      assert.equal(response.body.error, 'invalid_client');
      assert.match(response.body.error_description, /client_secret is required.*confidential/);
    });

    test('public clients cannot introspect (invalid_client) but revoke their own tokens with client_id alone (RFC 7009 §2.1)', async () => {
      const { code, verifier } = await spaCode('profile');
      const { access_token: accessToken } = (await exchange(code, verifier)).body;
      const introspection = await postIntrospect(server.baseUrl, { form: { token: accessToken, client_id: spa.clientId } });
      assert.equal(introspection.status, 401);
      assert.equal(introspection.body.error, 'invalid_client');
      assert.match(introspection.body.error_description, /Public clients cannot introspect/);
      const revoked = await postRevoke(server.baseUrl, { form: { token: accessToken, client_id: spa.clientId }, headers: { origin: SPA_ORIGIN } });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.headers.get('access-control-allow-origin'), SPA_ORIGIN);
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${accessToken}`)).status, 401);
    });

    test('CORS at the token endpoint: exactly the public client’s redirect origins, on success and on errors', async () => {
      const { code, verifier } = await spaCode('profile');
      const allowed = await exchange(code, verifier, { origin: SPA_ORIGIN });
      assert.equal(allowed.status, 200, allowed.text);
      assert.equal(allowed.headers.get('access-control-allow-origin'), SPA_ORIGIN);
      assert.match(allowed.headers.get('vary') ?? '', /Origin/);
      assert.match(allowed.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      assert.equal(allowed.headers.get('access-control-allow-credentials'), null, 'no cookies on this endpoint');

      // An error the app must be able to read (a spent code).
      const error = await exchange(code, verifier, { origin: SPA_ORIGIN });
      assert.equal(error.body.error, 'invalid_grant');
      assert.equal(error.headers.get('access-control-allow-origin'), SPA_ORIGIN);

      const other = await exchange('latch_ac_x', verifier, { origin: OTHER_ORIGIN });
      assert.equal(other.headers.get('access-control-allow-origin'), null, 'another origin');
      const opaque = await exchange('latch_ac_x', verifier, { origin: 'null' });
      assert.equal(opaque.headers.get('access-control-allow-origin'), null, 'Origin: null is never allowed');
      // A confidential client, even from its own redirect origin: its secret must not be in a browser.
      const secretFromBrowser = await postToken(server.baseUrl, {
        headers: { origin: OTHER_ORIGIN },
        form: { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: confidential.clientId, client_secret: confidential.clientSecret },
      });
      assert.equal(secretFromBrowser.headers.get('access-control-allow-origin'), null);
    });

    test('preflight (OPTIONS) on token, revoke and userinfo: allowed for public client origins only', async () => {
      const preflight = async (path: string, origin: string) =>
        fetch(`${server.baseUrl}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
      for (const path of ['/oauth2/token', '/oauth2/revoke', '/oauth2/userinfo']) {
        const ok = await preflight(path, SPA_ORIGIN);
        assert.equal(ok.status, 204, path);
        assert.equal(ok.headers.get('access-control-allow-origin'), SPA_ORIGIN, path);
        assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/, path);
        assert.match(ok.headers.get('access-control-allow-headers') ?? '', /authorization/, path);
        assert.equal(ok.headers.get('access-control-max-age'), '600');
        const refused = await preflight(path, OTHER_ORIGIN);
        assert.equal(refused.headers.get('access-control-allow-origin'), null, `${path} from another origin`);
      }
      assert.match((await preflight('/oauth2/userinfo', SPA_ORIGIN)).headers.get('access-control-allow-methods') ?? '', /GET/);
      assert.equal((await preflight('/oauth2/introspect', SPA_ORIGIN)).headers.get('access-control-allow-origin'), null, 'introspection stays closed to browsers');
    });

    test('userinfo answers a public client’s origin, with WWW-Authenticate readable on errors', async () => {
      const { code, verifier } = await spaCode('profile');
      const { access_token: accessToken } = (await exchange(code, verifier)).body;
      const ok = await readResponse(await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}`, origin: SPA_ORIGIN } }));
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('access-control-allow-origin'), SPA_ORIGIN);
      const failed = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: 'Bearer nope', origin: SPA_ORIGIN } });
      assert.equal(failed.status, 401);
      assert.equal(failed.headers.get('access-control-allow-origin'), SPA_ORIGIN);
      assert.match(failed.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
      const other = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}`, origin: OTHER_ORIGIN } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    });

    test('never CORS on the authorization endpoint or the pages; discovery and JWKS are open to any origin', async () => {
      const authorizeUrl = `${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${spa.clientId}&redirect_uri=${encodeURIComponent(spa.redirectUri)}`;
      for (const [url, method] of [
        [authorizeUrl, 'GET'],
        [authorizeUrl, 'OPTIONS'],
        [`${server.baseUrl}/oauth2/authorize/decision`, 'OPTIONS'],
        [`${server.baseUrl}/login`, 'GET'],
        [`${server.baseUrl}/login`, 'OPTIONS'],
        [`${server.baseUrl}/developer`, 'GET'],
      ] as const) {
        const response = await fetch(url, { method, headers: { origin: SPA_ORIGIN, 'access-control-request-method': 'POST' }, redirect: 'manual' });
        assert.equal(response.headers.get('access-control-allow-origin'), null, `${method} ${url}`);
      }
      for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth2/jwks']) {
        const response = await fetch(`${server.baseUrl}${path}`, { headers: { origin: OTHER_ORIGIN } });
        assert.equal(response.headers.get('access-control-allow-origin'), '*', path);
      }
    });

    test('oauth4webapi as a public client: discovery, PKCE, code exchange with None(), refresh, userinfo', async () => {
      const issuer = new URL(server.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
      assert.ok(as.token_endpoint_auth_methods_supported?.includes('none'));
      const rp: oauth.Client = { client_id: spa.clientId };
      const clientAuth = oauth.None();
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: spa.clientId,
        redirect_uri: spa.redirectUri,
        response_type: 'code',
        scope: 'openid profile offline_access',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      }).toString();
      const callback = await authorize(new TestBrowser(), server.baseUrl, Object.fromEntries(url.searchParams), user);
      const params = oauth.validateAuthResponse(as, rp, callback, state);
      const insecure = { [oauth.allowInsecureRequests]: true } as const;
      const response = await oauth.authorizationCodeGrantRequest(as, rp, clientAuth, params, spa.redirectUri, verifier, insecure);
      const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
      assert.ok(result.refresh_token);
      const refreshed = await oauth.processRefreshTokenResponse(as, rp, await oauth.refreshTokenGrantRequest(as, rp, clientAuth, result.refresh_token, insecure));
      assert.notEqual(refreshed.refresh_token, result.refresh_token);
      const claims = oauth.getValidatedIdTokenClaims(result)!;
      const userinfo = await oauth.processUserInfoResponse(as, rp, claims.sub, await oauth.userInfoRequest(as, rp, refreshed.access_token, insecure));
      assert.equal(userinfo.sub, claims.sub);
    });
  });
}
