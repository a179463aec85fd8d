/**
 * Certified OpenID Connect client libraries from the npm registry drive the whole flow against a running Latch:
 * openid-client v6 and oauth4webapi v3 (both by the author of node-oidc-provider). Discovery, PKCE, state,
 * nonce, code exchange with each client authentication method, id_token signature and claims validation,
 * userinfo. A library that rejects anything Latch sends fails the test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import * as openidClient from 'openid-client';
import type { SigningAlgorithm } from '../../src/crypto/signing-algorithms.js';
import { TestBrowser } from '../helpers/browser.js';
import { authorize } from '../helpers/oauth-flow.js';
import { verifyIdToken } from '../helpers/oidc.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type AuthMethod = 'client_secret_basic' | 'client_secret_post';

/** The browser side, starting from the authorization URL a library built; returns the callback URL. */
async function browseAuthorizationUrl(server: TestServer, url: URL, account: { email: string; password: string }): Promise<URL> {
  const params = Object.fromEntries(url.searchParams.entries());
  assert.equal(`${url.origin}${url.pathname}`, `${server.config.issuer}/oauth2/authorize`);
  return authorize(new TestBrowser(), server.baseUrl, params, account);
}

describe('real OpenID Connect clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  async function setUp(alg: SigningAlgorithm) {
    const client = await server.createClient({ name: `Library App ${alg}`, idTokenSignedResponseAlg: alg });
    const { user, password } = await server.createUser();
    return { client, user, account: { email: user.email, password } };
  }

  const cases: Array<[AuthMethod, SigningAlgorithm]> = [
    ['client_secret_basic', 'RS256'],
    ['client_secret_post', 'RS256'],
    ['client_secret_basic', 'ES256'],
    ['client_secret_post', 'EdDSA'],
  ];

  for (const [method, alg] of cases) {
    test(`openid-client v6: discovery, PKCE, state, nonce, ${method}, ${alg} id_token, userinfo`, async () => {
      const { client, user, account } = await setUp(alg);
      const redirectUri = client.redirectUris[0]!;
      const auth = method === 'client_secret_basic' ? openidClient.ClientSecretBasic(client.clientSecret) : openidClient.ClientSecretPost(client.clientSecret);
      const config = await openidClient.discovery(
        new URL(server.baseUrl),
        client.clientId,
        { id_token_signed_response_alg: alg },
        auth,
        { execute: [openidClient.allowInsecureRequests] },
      );
      // Also verify the id_token's signature against the JWKS (optional for a back-channel response).
      openidClient.enableNonRepudiationChecks(config);
      assert.equal(config.serverMetadata().issuer, server.config.issuer);

      const verifier = openidClient.randomPKCECodeVerifier();
      const state = openidClient.randomState();
      const nonce = openidClient.randomNonce();
      const url = openidClient.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      const callback = await browseAuthorizationUrl(server, url, account);

      const tokens = await openidClient.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      assert.ok(claims);
      assert.equal(claims.sub, String(user.id));
      assert.equal(claims.email, user.email);
      assert.equal(claims.nonce, nonce);
      assert.equal((await verifyIdToken(server, tokens.id_token!, client.clientId, [alg])).alg, alg);

      const userinfo = await openidClient.fetchUserInfo(config, tokens.access_token, claims.sub);
      assert.equal(userinfo.sub, claims.sub);
      assert.equal(userinfo.email, user.email);
      assert.equal(userinfo.name, user.name);
    });

    test(`oauth4webapi v3: discovery, PKCE, state, nonce, ${method}, ${alg} id_token, userinfo`, async () => {
      const { client, user, account } = await setUp(alg);
      const redirectUri = client.redirectUris[0]!;
      const issuer = new URL(server.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
      const rp: oauth.Client = { client_id: client.clientId, id_token_signed_response_alg: alg };
      const clientAuth = method === 'client_secret_basic' ? oauth.ClientSecretBasic(client.clientSecret) : oauth.ClientSecretPost(client.clientSecret);

      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      }).toString();
      const callback = await browseAuthorizationUrl(server, url, account);

      // Checks state and, since the server advertises it, the RFC 9207 iss parameter.
      const params = oauth.validateAuthResponse(as, rp, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(as, rp, clientAuth, params, redirectUri, verifier, { [oauth.allowInsecureRequests]: true });
      const result = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: nonce, requireIdToken: true });
      await oauth.validateApplicationLevelSignature(as, response, { [oauth.allowInsecureRequests]: true });
      const claims = oauth.getValidatedIdTokenClaims(result);
      assert.ok(claims);
      assert.equal(claims.sub, String(user.id));
      assert.equal(claims.aud, client.clientId);

      const userinfo = await oauth.processUserInfoResponse(
        as,
        rp,
        claims.sub,
        await oauth.userInfoRequest(as, rp, result.access_token, { [oauth.allowInsecureRequests]: true }),
      );
      assert.equal(userinfo.sub, claims.sub);
      assert.equal(userinfo.email, user.email);
    });
  }

  test('openid-client v6 refuses an id_token whose nonce does not match (the check works against Latch)', async () => {
    const { client, account } = await setUp('RS256');
    const config = await openidClient.discovery(new URL(server.baseUrl), client.clientId, client.clientSecret, undefined, {
      execute: [openidClient.allowInsecureRequests],
    });
    const verifier = openidClient.randomPKCECodeVerifier();
    const state = openidClient.randomState();
    const url = openidClient.buildAuthorizationUrl(config, {
      redirect_uri: client.redirectUris[0]!,
      scope: 'openid',
      code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce: openidClient.randomNonce(),
    });
    const callback = await browseAuthorizationUrl(server, url, account);
    await assert.rejects(
      openidClient.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: 'another-nonce', idTokenExpected: true }),
      (error: Error) => /"nonce" claim/.test(String(error.cause)),
    );
  });
});
