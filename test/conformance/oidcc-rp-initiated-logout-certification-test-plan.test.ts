/**
 * The OpenID Foundation conformance suite's "RP-Initiated OP" plan (oidcc-rp-initiated-logout-certification-test-plan,
 * OIDCCRpInitiatedLogoutTestPlan.java), mirrored as our own tests because the suite itself cannot run here (it
 * needs Maven Central and MongoDB). One test per module, named after it, in the plan's order (the plan as it is
 * on the suite's master branch: eleven modules); each does what the module does, with the module's summary
 * quoted above it, and the checks of ConformanceRp for the code flow before the logout.
 *
 * Variants as in the plan: server_metadata=discovery, client_auth_type=client_secret_basic, response_mode=default,
 * a statically registered client with the post_logout_redirect_uri the suite asks for ("the same url as the
 * redirect url but replacing the portion after the alias with '/post_logout_redirect'"). What the base module
 * (AbstractOIDCCRpInitiatedLogout) does: a normal code flow, then the browser goes to the end_session_endpoint
 * with id_token_hint, post_logout_redirect_uri and a random state (CreateEndSessionEndpointRequest; never
 * client_id), which the module may change. Where the suite accepts "an error screen or a confirmation" and
 * uploads a screenshot, the test checks that it is one of those and that nothing went to the
 * post_logout_redirect_uri; where the certification runner clicks the confirmation button, the test clicks
 * "Sign out".
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { inputValue, pageText, type BrowserResponse } from '../helpers/browser.js';
import { ConformanceRp, fetchDiscovery } from '../helpers/conformance-rp.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The suite's base URL for this test's callbacks; redirect_uri and post_logout_redirect_uri hang off it. */
const SUITE_BASE = 'http://127.0.0.1:9999/test/a/latch';
const POST_LOGOUT_REDIRECT = `${SUITE_BASE}/post_logout_redirect`;

/**
 * CreateRandomEndSessionState: RFC 6749 Appendix A VSCHAR (%x20-7E), 10 to 30 characters with '+', ' ' and ';'
 * replaced by '~' as the suite does; '&', '=', '%', '#', '?' and quotes stay in.
 */
function randomEndSessionState(): string {
  const length = randomInt(10, 31);
  let state = '';
  for (let i = 0; i < length; i++) state += String.fromCharCode(randomInt(0x20, 0x7f));
  return `${state.replace(/[+ ;]/g, '~')}&=%#?"`;
}

describe('oidcc-rp-initiated-logout-certification-test-plan (RP-Initiated OP)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  /**
   * A fresh client (registered with the suite's post_logout_redirect_uri) and user per module, and the base
   * module's first half: the normal authorization flow, leaving the browser signed in with an id_token.
   */
  async function signedInRp(): Promise<{ rp: ConformanceRp; idToken: string }> {
    const client = await server.createClient({ name: 'Conformance RP', redirectUris: [`${SUITE_BASE}/callback`] });
    await server.storage.clients.update(client.clientId, { postLogoutRedirectUris: [POST_LOGOUT_REDIRECT] }, new Date());
    const { user, password } = await server.createUser();
    const rp = new ConformanceRp(server, client, { email: user.email, password });
    const { tokens } = await rp.fullFlow();
    return { rp, idToken: tokens.body.id_token };
  }

  /** BuildRedirectToEndSessionEndpoint, with the parameters the module left in the request. */
  async function goToEndSession(rp: ConformanceRp, request: Record<string, string | undefined>): Promise<BrowserResponse> {
    const discovery = await fetchDiscovery(server);
    const url = new URL(discovery.end_session_endpoint.replace(server.config.issuer, server.baseUrl));
    for (const [name, value] of Object.entries(request)) if (value !== undefined) url.searchParams.set(name, value);
    return rp.browser.request(url.href);
  }

  /** The test runner's click on the OP's confirmation ("Choose logout option"), when the OP asks. */
  async function confirmIfAsked(rp: ConformanceRp, page: BrowserResponse): Promise<BrowserResponse> {
    if (!(page.status === 200 && /Sign out of Latch\?/.test(pageText(page.body)))) return page;
    const form: Record<string, string> = { _csrf: inputValue(page.body, '_csrf') };
    for (const name of ['client_id', 'post_logout_redirect_uri', 'state']) if (page.body.includes(`name="${name}"`)) form[name] = inputValue(page.body, name);
    return rp.browser.request(`${server.baseUrl}/oauth2/logout/confirm`, { form });
  }

  /** The post_logout_redirect the suite receives, or null when the browser was not sent there. */
  function postLogoutRedirect(response: BrowserResponse): URL | null {
    const location = response.headers.get('location');
    if (!location || response.status < 300 || response.status >= 400) return null;
    const url = new URL(location, server.baseUrl);
    return `${url.origin}${url.pathname}` === POST_LOGOUT_REDIRECT ? url : null;
  }

  /** Modules whose "handleHttp" fails the test if the post_logout_redirect_uri is ever called. */
  function expectNoPostLogoutRedirect(response: BrowserResponse, why: string): void {
    assert.equal(postLogoutRedirect(response), null, `OP has incorrectly called the registered post_logout_redirect_uri ${why}`);
    assert.equal(response.headers.get('location'), null, 'no redirect anywhere else either');
  }

  /** "must either show an error screen or confirm with the user if they want to logout". */
  function expectErrorOrConfirmation(response: BrowserResponse): 'error' | 'confirmation' {
    const text = pageText(response.body);
    if (response.status === 400 && /This sign-out request cannot be followed/.test(text)) return 'error';
    assert.equal(response.status, 200, `an error screen or a confirmation, got ${response.status}`);
    assert.match(text, /Sign out of Latch\?/);
    return 'confirmation';
  }

  /** ExpectSuccessfulLogoutPage: the "you are logged out" screen. */
  function expectLoggedOutPage(response: BrowserResponse): void {
    assert.equal(response.status, 200);
    assert.match(pageText(response.body), /You are signed out/);
  }

  /**
   * The second half of the happy modules: another authorization with prompt=none "must return an error (as the
   * user has been logged out)" (CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface).
   */
  async function expectLoggedOut(rp: ConformanceRp): Promise<void> {
    const outcome = await rp.authorize({ prompt: 'none' });
    const error = rp.expectError(outcome, 'interaction_required', 'login_required', 'account_selection_required', 'consent_required');
    assert.equal(error, 'login_required');
  }

  // "This test ensures that the server's configurations contains end_session_endpoint." It also runs
  // CheckDiscEndpointAllEndpointsAreHttps: Latch is configured with an https issuer here, as in production behind
  // TLS (the oidcc-config plan's test does the same).
  test('oidcc-rp-initiated-logout-discovery-endpoint-verification', async () => {
    const issuer = 'https://login.example.com';
    const httpsServer = await startTestServer({ env: { LATCH_ISSUER: issuer } });
    try {
      const discovery = await fetchDiscovery(httpsServer);
      // CheckDiscEndSessionEndpoint (OIDCBCL-3, OIDCRIL-2.1): present, a valid URL, https.
      assert.equal(typeof discovery.end_session_endpoint, 'string');
      assert.equal(new URL(discovery.end_session_endpoint).protocol, 'https:');
      assert.equal(discovery.end_session_endpoint, `${issuer}/oauth2/logout`);
      // CheckDiscEndpointAllEndpointsAreHttps: every member whose name ends in _endpoint.
      const endpoints = Object.keys(discovery).filter((key) => key.endsWith('_endpoint'));
      assert.ok(endpoints.includes('end_session_endpoint'));
      for (const key of endpoints) assert.equal(new URL(discovery[key]).protocol, 'https:', `${key} must use the https scheme`);
    } finally {
      await httpsServer.stop();
    }
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint.
  // It validates the OP correctly sends the user to the post_logout_redirect_uri, then tries another
  // authentication with prompt=none which must return an error (as the user has been logged out)."
  test('oidcc-rp-initiated-logout', async () => {
    const { rp, idToken } = await signedInRp();
    const state = randomEndSessionState();
    const response = await confirmIfAsked(rp, await goToEndSession(rp, { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT, state }));
    const redirect = postLogoutRedirect(response);
    assert.ok(redirect, `sent to the post_logout_redirect_uri, got ${response.status}`);
    // CheckPostLogoutState (FAILURE) and CheckForUnexpectedParametersInPostLogoutRedirect (WARNING; held as a failure here).
    assert.equal(redirect.searchParams.get('state'), state, 'state passed to post logout redirect uri matches request');
    assert.deepEqual([...redirect.searchParams.keys()], ['state'], 'post_logout_redirect includes only expected parameters');
    await expectLoggedOut(rp);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with a post_logout_redirect_uri that is not registered at the OP. The OP must not redirect back and must
  // either show an error screen or confirm with the user if they want to logout - a screenshot of which should
  // be uploaded."
  test('oidcc-rp-initiated-logout-bad-post-logout-redirect-uri', async () => {
    const { rp, idToken } = await signedInRp();
    // AddBadPostLogoutRedirectUriToEndSessionEndpointRequest.
    const response = await goToEndSession(rp, { id_token_hint: idToken, post_logout_redirect_uri: `${SUITE_BASE}/bad_post_logout_redirect_uri`, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(response, 'even though a different uri was requested');
    assert.equal(expectErrorOrConfirmation(response), 'error');
    assert.match(pageText(response.body), /post_logout_redirect_uri .*bad_post_logout_redirect_uri is not registered for this client/);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with an id_token_hint that has been changed to alg:none. The OP must not redirect back and must either show
  // an error screen or confirm with the user if they want to logout - a screenshot of which should be uploaded."
  test('oidcc-rp-initiated-logout-modified-id-token-hint', async () => {
    const { rp, idToken } = await signedInRp();
    // ChangeIdTokenToAlgNone: the header {"alg": "none"}, the same payload, no signature.
    const algNone = `${Buffer.from('{"alg": "none"}').toString('base64url')}.${idToken.split('.')[1]}.`;
    const response = await goToEndSession(rp, { id_token_hint: algNone, post_logout_redirect_uri: POST_LOGOUT_REDIRECT, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(response, 'even though an invalid id_token_hint was provided');
    assert.equal(expectErrorOrConfirmation(response), 'error');
    assert.match(pageText(response.body), /id_token_hint is not an id_token Latch issued/);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with a post_logout_redirect_uri but no id_token_hint. The OP must not redirect back and must either show an
  // error screen or confirm with the user if they want to logout - a screenshot of which should be uploaded."
  test('oidcc-rp-initiated-logout-no-id-token-hint', async () => {
    const { rp } = await signedInRp();
    // RemoveIdTokenHintFromEndSessionEndpointRequest (and the suite never sends client_id).
    const response = await goToEndSession(rp, { post_logout_redirect_uri: POST_LOGOUT_REDIRECT, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(response, 'even though no id_token_hint was provided');
    assert.equal(expectErrorOrConfirmation(response), 'error');
    assert.match(pageText(response.body), /post_logout_redirect_uri needs id_token_hint or client_id/);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with no parameters - the OP must log the user out, a screenshot of the 'you are logged out' screen should be
  // uploaded."
  test('oidcc-rp-initiated-logout-no-params', async () => {
    const { rp } = await signedInRp();
    // RemoveAllParametersFromEndSessionEndpointRequest: Latch asks first (no hint), the runner clicks Sign out.
    const asked = await goToEndSession(rp, {});
    assert.equal(expectErrorOrConfirmation(asked), 'confirmation');
    const response = await confirmIfAsked(rp, asked);
    expectNoPostLogoutRedirect(response, "when it wasn't in the request");
    expectLoggedOutPage(response);
    await expectLoggedOut(rp);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with no post_logout_redirect_uri - the OP must log the user out, a screenshot of the 'you are logged out'
  // screen should be uploaded."
  test('oidcc-rp-initiated-logout-no-post-logout-redirect-uri', async () => {
    const { rp, idToken } = await signedInRp();
    // RemovePostLogoutRedirectUriFromEndSessionEndpointRequest: the hint names this session, so no question.
    const response = await confirmIfAsked(rp, await goToEndSession(rp, { id_token_hint: idToken, state: randomEndSessionState() }));
    expectNoPostLogoutRedirect(response, "when it wasn't in the request");
    expectLoggedOutPage(response);
    await expectLoggedOut(rp);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with no state parameter. It validates the OP correctly sends the user to the post_logout_redirect_uri with
  // no state, then tries another authentication with prompt=none which must return an error (as the user has
  // been logged out)."
  test('oidcc-rp-initiated-logout-no-state', async () => {
    const { rp, idToken } = await signedInRp();
    // RemoveStateFromEndSessionEndpointRequest.
    const response = await confirmIfAsked(rp, await goToEndSession(rp, { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT }));
    const redirect = postLogoutRedirect(response);
    assert.ok(redirect, `sent to the post_logout_redirect_uri, got ${response.status}`);
    // CheckNoPostLogoutState and CheckForUnexpectedParametersInPostLogoutRedirect.
    assert.equal(redirect.searchParams.get('state'), null, 'state not passed to post logout redirect uri');
    assert.deepEqual([...redirect.searchParams.keys()], []);
    await expectLoggedOut(rp);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with only a state parameter - the OP must log the user out, a screenshot of the 'you are logged out' screen
  // should be uploaded."
  test('oidcc-rp-initiated-logout-only-state', async () => {
    const { rp } = await signedInRp();
    // RemoveIdTokenHintFromEndSessionEndpointRequest, RemovePostLogoutRedirectUriFromEndSessionEndpointRequest.
    const asked = await goToEndSession(rp, { state: randomEndSessionState() });
    assert.equal(expectErrorOrConfirmation(asked), 'confirmation');
    const response = await confirmIfAsked(rp, asked);
    expectNoPostLogoutRedirect(response, "when it wasn't in the request");
    expectLoggedOutPage(response);
    await expectLoggedOut(rp);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with a post_logout_redirect_uri that has had '?foo=bar' added. The OP must not redirect back and must either
  // show an error screen or confirm with the user if they want to logout - a screenshot of which should be
  // uploaded."
  test('oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri', async () => {
    const { rp, idToken } = await signedInRp();
    // AddPostLogoutRedirectUriWithQueryAddedToEndSessionEndpointRequest.
    const response = await goToEndSession(rp, { id_token_hint: idToken, post_logout_redirect_uri: `${POST_LOGOUT_REDIRECT}?foo=bar`, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(response, 'even though a different uri was requested');
    assert.equal(expectErrorOrConfirmation(response), 'error');
    assert.match(pageText(response.body), /post_logout_redirect_uri .*\?foo=bar is not registered for this client/);
  });

  // "This test performs a normal authorization flow at the OP, then sends the user to the end_session_endpoint
  // with an id_token_hint signed by the test suite. The OP must not redirect back and must either show an error
  // screen or confirm with the user if they want to logout - a screenshot of which should be uploaded."
  test('oidcc-rp-initiated-logout-bad-id-token-hint', async () => {
    const { rp } = await signedInRp();
    // GenerateFakeIdTokenClaims (iss and aud "the wrong way around": issued by the client) and SignFakeIdToken
    // with a JWK made from the client secret (GenerateJWKsFromClientSecret: HS256, no kid).
    const fakeClaims = { iss: rp.client.clientId, sub: 'SubjectID', aud: server.config.issuer, nonce: 'flibble' };
    const suiteSigned = await new SignJWT(fakeClaims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(Buffer.from(rp.client.clientSecret));
    const response = await goToEndSession(rp, { id_token_hint: suiteSigned, post_logout_redirect_uri: POST_LOGOUT_REDIRECT, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(response, 'even though an invalid id_token_hint was provided');
    assert.equal(expectErrorOrConfirmation(response), 'error');
    // A client with an asymmetric key (client_jwks) signs with it instead: also not Latch's.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const asymmetric = await new SignJWT(fakeClaims).setProtectedHeader({ alg: 'ES256', kid: 'suite-key' }).sign(privateKey);
    const again = await goToEndSession(rp, { id_token_hint: asymmetric, post_logout_redirect_uri: POST_LOGOUT_REDIRECT, state: randomEndSessionState() });
    expectNoPostLogoutRedirect(again, 'even though an invalid id_token_hint was provided');
    assert.equal(expectErrorOrConfirmation(again), 'error');
  });
});
