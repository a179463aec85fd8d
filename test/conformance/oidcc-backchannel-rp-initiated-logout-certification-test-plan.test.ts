/**
 * The OpenID Foundation conformance suite's "Back-Channel OP" plan
 * (oidcc-backchannel-rp-initiated-logout-certification-test-plan, OIDCCBackchannelRpInitiatedLogoutTestPlan.java),
 * mirrored as our own tests because the suite itself cannot run here (it needs Maven Central and MongoDB). The
 * plan has two modules, read from the suite's source (openid-certification/conformance-suite,
 * src/main/java/net/openid/conformance/openid/): OIDCCBackchannelLogoutDiscoveryEndpointVerification and
 * OIDCCBackChannelRpInitiatedLogout. One test per module, named after it, with the module's summary quoted
 * above it and the conditions it calls checked in the same order.
 * Variants as in the plan: server_metadata=discovery; for the logout module client_secret_basic, the default
 * response mode and a statically registered client. A static client registers `…/post_logout_redirect` as a
 * post_logout_redirect_uri and `…/backchannel_logout` as its backchannel_logout_uri; here the latter is a
 * local endpoint (test/helpers/backchannel-receiver.ts), which Latch may reach with LATCH_OUTBOUND_ALLOW_PRIVATE=1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { BackchannelReceiver, expectValidLogoutRequest } from '../helpers/backchannel-receiver.js';
import { ConformanceRp, fetchDiscovery } from '../helpers/conformance-rp.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('oidcc-backchannel-rp-initiated-logout-certification-test-plan (Back-Channel OP)', () => {
  let server: TestServer;
  /** Latch with an https issuer, as in production behind TLS, for CheckDiscEndpointAllEndpointsAreHttps. */
  let httpsServer: TestServer;
  let receiver: BackchannelReceiver;
  const httpsIssuer = 'https://login.example.com';

  before(async () => {
    receiver = await BackchannelReceiver.start();
    server = await startTestServer({ env: { LATCH_OUTBOUND_ALLOW_PRIVATE: '1' } });
    httpsServer = await startTestServer({ env: { LATCH_ISSUER: httpsIssuer } });
  });
  after(async () => {
    await server?.stop();
    await httpsServer?.stop();
    await receiver?.stop();
  });

  // "This test ensures that the server's configurations contains the values required by the specifications,
  // backchannel_logout_supported, backchannel_logout_session_supported and end_session_endpoint. Certification
  // for this profile requires that backchannel logout session (i.e. 'sid' in the id_token/logout token) is
  // supported."
  test('oidcc-backchannel-logout-discovery-endpoint-verification', async () => {
    // GetDynamicServerConfiguration.
    const response = await fetch(`${httpsServer.baseUrl}/.well-known/openid-configuration`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const d = await response.json();
    assert.equal(d.issuer, httpsIssuer);
    // CheckDiscEndpointAllEndpointsAreHttps: every member whose name ends in _endpoint.
    const endpoints = Object.entries(d).filter(([name]) => name.endsWith('_endpoint'));
    assert.ok(endpoints.length >= 4);
    for (const [name, value] of endpoints) assert.equal(new URL(String(value)).protocol, 'https:', `${name} is https`);
    // CheckDiscEndpointBackchannelLogoutSupported (OIDCBCL-2.1): true is required; absent would mean false.
    assert.equal(d.backchannel_logout_supported, true);
    // CheckDiscEndpointBackchannelLogoutSessionSupported (OIDCBCL-2.1): true is required for certification.
    assert.equal(d.backchannel_logout_session_supported, true);
    // CheckDiscEndSessionEndpoint (OIDCBCL-3, OIDCSM-2.1): present, a valid https URL.
    assert.equal(d.end_session_endpoint, `${httpsIssuer}/oauth2/logout`);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint.
  // It validates the OP correctly calls the backchannel_logout_uri and sends the user to the
  // post_logout_redirect_uri, then tries another authentication with prompt=none which must return an error (as
  // the user has been logged out). If using static client registration you must register backchannel_logout_uri
  // to the same url as the redirect url, but replacing the portion after the alias with /backchannel_logout and
  // similarly register /post_logout_redirect as a post_logout_redirect_uri."
  test('oidcc-backchannel-rp-initiated-logout', async () => {
    receiver.received.length = 0;
    // CreateBackchannelLogoutUri, CreatePostLogoutRedirectUri: a static client registered with both.
    const client = await server.createClient({ name: 'Conformance RP' });
    const postLogoutRedirectUri = new URL('/post_logout_redirect', client.redirectUris[0]).href;
    await server.storage.clients.update(
      client.clientId,
      { postLogoutRedirectUris: [postLogoutRedirectUri], backchannelLogoutUri: `${receiver.url}/backchannel_logout` },
      new Date(),
    );
    const { user, password } = await server.createUser();
    const rp = new ConformanceRp(server, client, { email: user.email, password });

    // The normal authorization flow, with every check of AbstractOIDCCServerTest.
    const { tokens, claims } = await rp.fullFlow();
    assert.equal(typeof claims.sid, 'string', 'the id_token carries sid (backchannel_logout_session_supported)');

    // CreateRandomEndSessionState with requested_state_length 128 ("to check OP doesn't corrupt it"),
    // CreateEndSessionEndpointRequest (id_token_hint, post_logout_redirect_uri, state; never client_id),
    // BuildRedirectToEndSessionEndpoint: the browser goes to the end_session_endpoint.
    const state = randomBytes(96).toString('base64url');
    assert.equal(state.length, 128);
    const endSession = new URL((await fetchDiscovery(server)).end_session_endpoint);
    endSession.search = new URLSearchParams({ id_token_hint: tokens.body.id_token, post_logout_redirect_uri: postLogoutRedirectUri, state }).toString();
    const landed = await rp.browser.follow(endSession.href, server.baseUrl);

    // The module waits for both the front-channel redirect and the back-channel call, in either order.
    assert.ok(landed.status === 302 || landed.status === 303, `redirected to the post_logout_redirect_uri, got ${landed.status}`);
    const redirect = new URL(landed.url);
    assert.equal(`${redirect.origin}${redirect.pathname}`, postLogoutRedirectUri);
    const [backchannel] = await receiver.waitFor(1);

    // "Verify backchannel logout request": ExtractLogoutTokenFromBackchannelLogoutRequest,
    // CheckForUnexpectedParametersInBackchannelLogoutRequest, ValidateLogoutTokenSignature, ValidateLogoutTokenClaims,
    // CheckIdTokenSubMatchesLogoutToken, CheckIdTokenSidMatchesLogoutToken, CheckLogoutTokenNoNonce,
    // CheckLogoutTokenHasSubOrSid.
    assert.equal(backchannel!.path, '/backchannel_logout');
    await expectValidLogoutRequest(server, backchannel!, { clientId: client.clientId, idToken: claims });
    assert.equal(receiver.received.length, 1, 'one logout token for the one client');

    // "Verify frontchannel post logout redirect": CheckPostLogoutState (state byte for byte),
    // CheckForUnexpectedParametersInPostLogoutRedirect (state only).
    assert.equal(redirect.searchParams.get('state'), state);
    assert.deepEqual([...redirect.searchParams.keys()], ['state']);

    // The prompt=none authorization must now fail with an error that requires a user interface
    // (CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface, OIDCC-3.1.2.6).
    const second = await rp.authorize({ prompt: 'none' }, { expectNoPages: true });
    rp.expectError(second, 'login_required', 'interaction_required', 'consent_required', 'account_selection_required');
  });
});
