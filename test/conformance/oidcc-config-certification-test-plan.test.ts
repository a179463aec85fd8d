/**
 * The OpenID Foundation conformance suite's "Config OP" plan (oidcc-config-certification-test-plan,
 * OIDCCConfigTestPlan.java): its one module, oidcc-discovery-endpoint-verification, mirrored with the
 * conditions it runs. Latch is configured with an https issuer, as in production behind TLS, so that
 * CheckDiscEndpointAllEndpointsAreHttps applies (requests reach the test server over http).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('oidcc-config-certification-test-plan (Config OP)', () => {
  let server: TestServer;
  const issuer = 'https://login.example.com';
  before(async () => {
    server = await startTestServer({ env: { LATCH_ISSUER: issuer } });
  });
  after(async () => server.stop());

  // "ensures that the server's configurations (including scopes, response_types, grant_types etc) contains
  // values required by the specifications".
  test('oidcc-discovery-endpoint-verification', async () => {
    const response = await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
    assert.equal(response.status, 200, 'EnsureDiscoveryEndpointResponseStatusCodeIs200');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, 'CheckDiscoveryEndpointReturnedJsonContentType');
    const d = await response.json();

    // OIDCCCheckDiscEndpointResponseTypesSupported: code for the basic flow.
    assert.ok(d.response_types_supported.includes('code'));
    // CheckDiscEndpointDiscoveryUrl / CheckDiscEndpointIssuer: issuer + /.well-known/openid-configuration is where it was fetched.
    assert.equal(d.issuer, issuer);
    // CheckDiscEndpointIssuerIsValidUrl (RFC 8414 §2): https, no query or fragment.
    const issuerUrl = new URL(d.issuer);
    assert.equal(issuerUrl.protocol, 'https:');
    assert.equal(issuerUrl.search + issuerUrl.hash, '');
    // CheckDiscEndpointSubjectTypesSupported.
    assert.ok(Array.isArray(d.subject_types_supported) && d.subject_types_supported.every((t: string) => ['public', 'pairwise'].includes(t)));
    // OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported: RS256 included, none absent.
    assert.ok(d.id_token_signing_alg_values_supported.includes('RS256'));
    assert.ok(!d.id_token_signing_alg_values_supported.includes('none'));
    // OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported: skipped when absent (Latch signs no userinfo).
    assert.equal(d.userinfo_signing_alg_values_supported, undefined);
    // CheckDiscEndpointAuthorizationEndpoint / TokenEndpoint / UserinfoEndpoint.
    assert.equal(d.authorization_endpoint, `${issuer}/oauth2/authorize`);
    assert.equal(d.token_endpoint, `${issuer}/oauth2/token`);
    assert.equal(d.userinfo_endpoint, `${issuer}/oauth2/userinfo`);
    // CheckDiscEndpointRegistrationEndpoint: skipped when absent (no dynamic registration).
    assert.equal(d.registration_endpoint, undefined);

    // CheckJwksUri, FetchServerKeys, ValidateServerJWKs, EnsureServerJwksDoesNotContainPrivateOrSymmetricKeys.
    assert.equal(d.jwks_uri, `${issuer}/oauth2/jwks`);
    const jwksResponse = await fetch(d.jwks_uri.replace(issuer, server.baseUrl));
    assert.equal(jwksResponse.status, 200);
    const { keys } = await jwksResponse.json();
    assert.ok(Array.isArray(keys) && keys.length > 0);
    const kids = new Set<string>();
    for (const key of keys) {
      assert.ok(['RSA', 'EC', 'OKP'].includes(key.kty), `no symmetric (oct) key: ${key.kty}`);
      for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) assert.equal(key[privateMember], undefined, `${key.kid} has no ${privateMember}`);
      assert.equal(key.use, 'sig');
      assert.ok(key.kid && !kids.has(key.kid), 'kids are unique');
      kids.add(key.kid);
      if (key.kty === 'RSA') assert.ok(Buffer.from(key.n, 'base64url').length * 8 >= 2048 && key.e === 'AQAB');
    }

    // CheckDiscEndpointRequestParameterSupported / RequestUriParameterSupported (info): stated explicitly.
    assert.equal(d.request_parameter_supported, false);
    assert.equal(d.request_uri_parameter_supported, false);
    // CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256: skipped when absent.
    assert.equal(d.request_object_signing_alg_values_supported, undefined);
    // CheckDiscEndpointClaimsParameterSupported (info).
    assert.equal(d.claims_parameter_supported, false);
    // OIDCCCheckDiscEndpointClaimsSupported: recommended; present and naming the claims Latch returns.
    for (const claim of ['sub', 'email', 'email_verified', 'name', 'picture']) assert.ok(d.claims_supported.includes(claim), claim);
    // OIDCCCheckDiscEndpointGrantTypesSupported: authorization_code for a static client.
    assert.ok(d.grant_types_supported.includes('authorization_code'));
    // CheckDiscEndpointScopesSupportedContainsOpenId, CheckDiscEndpointScopesSupportedSyntax (RFC 6749 §3.3).
    assert.ok(d.scopes_supported.includes('openid'));
    for (const scope of d.scopes_supported) assert.match(scope, /^[\x21\x23-\x5B\x5D-\x7E]+$/);
    // CheckDiscEndpointLocalesSyntax / CanonicalCasing: BCP47 tags in canonical casing (the pages' languages);
    // no claims_locales_supported (claims are not translated).
    assert.ok(Array.isArray(d.ui_locales_supported) && d.ui_locales_supported.includes('en'));
    for (const tag of d.ui_locales_supported) assert.equal(tag, Intl.getCanonicalLocales(tag)[0], `${tag} is a canonical BCP47 tag`);
    assert.equal(d.claims_locales_supported, undefined);
    // CheckDiscEndpointAllEndpointsAreHttps.
    for (const [name, value] of Object.entries(d)) {
      if (name.endsWith('_endpoint') || name === 'jwks_uri') assert.ok(String(value).startsWith('https://'), `${name} is https`);
    }
    // EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray (RFC 8414 §2, RFC 7636 §4.3).
    assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
  });
});
