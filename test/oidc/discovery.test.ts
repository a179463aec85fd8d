import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('discovery (OIDC Discovery 1.0 §3–4, RFC 8414)', () => {
  let server: TestServer;
  const issuer = 'https://id.example.test';
  before(async () => {
    server = await startTestServer({ env: { LATCH_ISSUER: issuer } });
  });
  after(async () => server.stop());

  test('openid-configuration has issuer exactly equal to LATCH_ISSUER and endpoints derived from it', async () => {
    const response = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const metadata = await response.json();
    assert.equal(metadata.issuer, issuer);
    assert.equal(metadata.authorization_endpoint, `${issuer}/oauth2/authorize`);
    assert.equal(metadata.token_endpoint, `${issuer}/oauth2/token`);
    assert.equal(metadata.userinfo_endpoint, `${issuer}/oauth2/userinfo`);
    assert.equal(metadata.jwks_uri, `${issuer}/oauth2/jwks`);
    assert.equal(metadata.revocation_endpoint, `${issuer}/oauth2/revoke`);
    assert.equal(metadata.introspection_endpoint, `${issuer}/oauth2/introspect`);
    assert.equal(metadata.device_authorization_endpoint, `${issuer}/oauth2/device_authorization`);
  });

  test('openid-configuration lists only what Latch supports', async () => {
    const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual(metadata.response_modes_supported, ['query']);
    assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code']);
    assert.deepEqual(metadata.subject_types_supported, ['public']);
    assert.deepEqual(metadata.id_token_signing_alg_values_supported, ['RS256', 'ES256', 'EdDSA']);
    assert.deepEqual(metadata.scopes_supported, ['openid', 'profile', 'email', 'offline_access']);
    // none: public clients (single-page and mobile apps) send client_id alone.
    assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
    // RFC 8414 §2: revocation authenticates clients exactly as the token endpoint does; public clients cannot introspect.
    assert.deepEqual(metadata.revocation_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none']);
    assert.deepEqual(metadata.introspection_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
    for (const claim of ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'email', 'email_verified', 'name', 'picture']) {
      assert.ok(metadata.claims_supported.includes(claim), `claims_supported lists ${claim}`);
    }
    // Discovery §3 defaults request_uri_parameter_supported to true: it must be said explicitly.
    assert.equal(metadata.request_parameter_supported, false);
    assert.equal(metadata.request_uri_parameter_supported, false);
    assert.equal(metadata.claims_parameter_supported, false);
    assert.ok(!metadata.id_token_signing_alg_values_supported.includes('none'));
  });

  test('oauth-authorization-server serves the same metadata (RFC 8414 §3)', async () => {
    const oidc = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
    const response = await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), oidc);
  });

  test('metadata and JWKS are cacheable and readable cross-origin', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth2/jwks']) {
      const response = await fetch(`${server.baseUrl}${path}`);
      assert.match(response.headers.get('cache-control') ?? '', /^public, max-age=\d+$/, path);
      assert.equal(response.headers.get('access-control-allow-origin'), '*', path);
    }
  });
});

describe('JWKS (RFC 7517 §5)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('issuer follows the configured issuer of the running server', async () => {
    const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
    assert.equal(metadata.issuer, server.config.issuer);
    assert.equal(metadata.jwks_uri, `${server.config.issuer}/oauth2/jwks`);
  });

  test('publishes one public key per algorithm with kid, alg and use, and no private members', async () => {
    const response = await fetch(`${server.baseUrl}/oauth2/jwks`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const { keys } = await response.json();
    assert.deepEqual(keys.map((k: any) => k.alg).sort(), ['ES256', 'EdDSA', 'RS256']);
    for (const key of keys) {
      assert.equal(key.use, 'sig');
      assert.ok(typeof key.kid === 'string' && key.kid.length > 0);
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) assert.equal(key[member], undefined, `${key.alg} key has no ${member}`);
    }
    const rsa = keys.find((k: any) => k.alg === 'RS256');
    assert.equal(rsa.kty, 'RSA');
    assert.ok(Buffer.from(rsa.n, 'base64url').length >= 256, 'RSA modulus of at least 2048 bits');
    assert.equal(keys.find((k: any) => k.alg === 'ES256').crv, 'P-256');
    assert.equal(keys.find((k: any) => k.alg === 'EdDSA').crv, 'Ed25519');
  });
});
