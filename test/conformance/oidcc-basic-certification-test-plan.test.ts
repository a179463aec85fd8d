/**
 * The OpenID Foundation conformance suite's "Basic OP" plan (oidcc-basic-certification-test-plan,
 * OIDCCBasicTestPlan.java), mirrored as our own tests because the suite itself cannot run here (it needs
 * Maven Central and MongoDB). One test per module, named after it, in the plan's order; each does what the
 * module does (the module's summary is quoted or paraphrased above it) with the checks of ConformanceRp.
 * Variants as in the plan: response_type=code, client_secret_basic (client_secret_post for
 * oidcc-server-client-secret-post), default response mode, a statically registered client.
 * Modules that do not apply to Latch are listed as skipped, with the reason the suite itself would skip them.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { pageText } from '../helpers/browser.js';
import { ConformanceRp, fetchDiscovery, random } from '../helpers/conformance-rp.js';
import { inputValue } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('oidcc-basic-certification-test-plan (Basic OP)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  afterEach(() => mock.timers.reset());
  after(async () => server.stop());

  /** A fresh client and user per module, as the suite starts each module with its own browser. */
  async function newRp(): Promise<ConformanceRp> {
    const client = await server.createClient({ name: 'Conformance RP' });
    const { user, password } = await server.createUser();
    return new ConformanceRp(server, client, { email: user.email, password });
  }

  // "Tests primarily 'happy' flows": the full flow with client_secret_basic, every id_token check, at_hash,
  // a code of sufficient length and entropy.
  test('oidcc-server', async () => {
    const rp = await newRp();
    const { tokens, claims, outcome } = await rp.fullFlow();
    assert.deepEqual(outcome.pages, ['sign-in', 'consent']);
    assert.ok(claims.at_hash, 'at_hash present (optional at the token endpoint, checked when present)');
    assert.equal(tokens.body.scope.split(' ').includes('openid'), true);
  });

  // "This test sends an authorization request that is missing the response_type parameter. The authorization
  // server must either redirect back with an 'unsupported_response_type' or 'invalid_request' error, or must
  // display an error saying the response type is missing."
  test('oidcc-response-type-missing', async () => {
    const rp = await newRp();
    const outcome = await rp.authorize({ response_type: undefined });
    rp.expectError(outcome, 'invalid_request', 'unsupported_response_type');
    assert.match(outcome.callback.searchParams.get('error_description') ?? '', /response_type/);
  });

  // "This test requests an ID token without specifying an algorithm (which should default to RS256)", and
  // requires a kid in the header (OP-IDToken-kid).
  test('oidcc-idtoken-signature', async () => {
    const rp = await newRp();
    const { tokens } = await rp.fullFlow();
    const header = JSON.parse(Buffer.from(tokens.body.id_token.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'RS256');
    assert.ok(header.kid);
  });

  test('oidcc-idtoken-unsigned', {
    skip: 'Latch never issues unsigned id_tokens: id_token_signing_alg_values_supported does not list "none", and the suite skips this module then (servers need not support none)',
  }, () => {});

  // "make GET request to UserInfo endpoint with access token in the Authorization header".
  test('oidcc-userinfo-get', async () => {
    const rp = await newRp();
    const { userinfo, claims } = await rp.fullFlow({ scope: 'openid profile email' });
    assert.equal(userinfo.sub, claims.sub);
    assert.equal(userinfo.email, rp.account.email);
  });

  // "make POST request to UserInfo endpoint with access token in the header".
  test('oidcc-userinfo-post-header', async () => {
    const rp = await newRp();
    const { tokens, claims } = await rp.fullFlow();
    const info = await rp.userinfo(tokens.body.access_token, 'POST');
    assert.equal(info.status, 200);
    assert.equal(info.body.sub, claims.sub);
  });

  // "makes an authenticated POST request to the UserInfo endpoint with the access token in the body ... Support
  // for passing an access token in the request body is not required by the standards - it is acceptable for
  // servers not to implement this form, and the test will complete with a 'warning' if the server returns a http
  // error response." Latch reads tokens from the Authorization header only (docs/protocol-decisions.md
  // "Userinfo"), so this module ends in the suite's accepted warning: a clean RFC 6750 error, never the claims.
  test('oidcc-userinfo-post-body', async () => {
    const rp = await newRp();
    const { tokens } = await rp.fullFlow();
    const response = await fetch(`${server.baseUrl}/oauth2/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.body.access_token }).toString(),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await response.json()).error, 'invalid_token');
  });

  // "OP-nonce-NoReq-code": a code flow request without nonce must succeed; the id_token then has no nonce.
  test('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async () => {
    const rp = await newRp();
    const { claims } = await rp.fullFlow({}, { nonce: false });
    assert.equal(claims.nonce, undefined);
  });

  // "OP-scope-profile": scope openid profile; the profile claims Latch has come back from userinfo.
  test('oidcc-scope-profile', async () => {
    const rp = await newRp();
    const { userinfo, tokens } = await rp.fullFlow({ scope: 'openid profile' });
    assert.ok(tokens.body.scope.split(' ').includes('profile'));
    assert.equal(typeof userinfo.name, 'string');
    assert.equal(userinfo.picture, 'https://images.example.com/avatar.png');
  });

  // "OP-scope-email": scope openid email; email and email_verified come back from userinfo.
  test('oidcc-scope-email', async () => {
    const rp = await newRp();
    const { userinfo } = await rp.fullFlow({ scope: 'openid email' });
    assert.equal(userinfo.email, rp.account.email);
    assert.equal(userinfo.email_verified, true);
  });

  test('oidcc-scope-address', {
    skip: 'Latch has no address claim: scopes_supported does not list address, and the suite skips this module for scopes the server does not support',
  }, () => {});

  test('oidcc-scope-phone', {
    skip: 'Latch has no phone claims: scopes_supported does not list phone, and the suite skips this module for scopes the server does not support',
  }, () => {});

  test('oidcc-scope-all', {
    skip: 'requests openid profile email address phone; Latch does not support address and phone (not in scopes_supported), so the suite skips this module',
  }, () => {});

  // "makes a scope=openid email request, but with the order of the entries in the 'scope' reversed, which
  // must succeed (RFC 6749 §3.3: their order does not matter)".
  test('oidcc-ensure-other-scope-order-succeeds', async () => {
    const rp = await newRp();
    const { userinfo } = await rp.fullFlow({ scope: 'email openid' });
    assert.equal(userinfo.email, rp.account.email);
  });

  // "includes the display=page parameter ... must not cause an error at the OP"; a normal login page.
  test('oidcc-display-page', async () => {
    const rp = await newRp();
    const { outcome } = await rp.fullFlow({ display: 'page' });
    assert.equal(outcome.pages[0], 'sign-in');
  });

  // "includes the display=popup parameter ... must not cause an error at the OP".
  test('oidcc-display-popup', async () => {
    const rp = await newRp();
    const { outcome } = await rp.fullFlow({ display: 'popup' });
    assert.equal(outcome.pages[0], 'sign-in');
  });

  // "calls the authorization endpoint test twice. The second time it will include prompt=login, so that the
  // authorization server is required to ask the user to login a second time"; auth_time must differ.
  test('oidcc-prompt-login', async () => {
    const rp = await newRp();
    const first = await rp.fullFlow();
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 2000 });
    const second = await rp.fullFlow({ prompt: 'login' });
    assert.deepEqual(second.outcome.pages, ['sign-in'], 'a second login page (consent is remembered)');
    assert.ok((second.claims.auth_time as number) > (first.claims.auth_time as number), 'CheckIdTokenAuthTimeClaimsDifferIfPresent');
    assert.equal(second.claims.sub, first.claims.sub);
  });

  // "calls the authorization endpoint with prompt=none, expecting that no recent enough authentication is
  // present ... the OP will redirect back with an error as per section 3.1.2.6".
  test('oidcc-prompt-none-not-logged-in', async () => {
    const rp = await newRp();
    const outcome = await rp.authorize({ prompt: 'none' }, { expectNoPages: true });
    rp.expectError(outcome, 'login_required', 'interaction_required', 'consent_required', 'account_selection_required');
  });

  // "calls the authorization endpoint twice. The second time it will include prompt=none ... the authorization
  // server must not request user interaction"; a successful result with consistent sub and auth_time.
  test('oidcc-prompt-none-logged-in', async () => {
    const rp = await newRp();
    const first = await rp.fullFlow();
    const second = await rp.fullFlow({ prompt: 'none' }, { expectNoPages: true });
    assert.equal(second.claims.sub, first.claims.sub);
    assert.equal(second.claims.auth_time, first.claims.auth_time);
  });

  // "calls the authorization endpoint test twice. The second time it waits 1 second and includes max_age=1,
  // so that the authorization server is required to ask the user to login a second time and must return an
  // auth_time claim in the second id_token." (The suite waits 2 seconds; the clock is advanced instead.)
  test('oidcc-max-age-1', async () => {
    const rp = await newRp();
    const first = await rp.fullFlow();
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 2000 });
    const second = await rp.fullFlow({ max_age: '1' });
    assert.deepEqual(second.outcome.pages, ['sign-in'], 'ExpectSecondLoginPage');
    assert.equal(typeof second.claims.auth_time, 'number', 'CheckIdTokenAuthTimeClaimPresentDueToMaxAge');
    assert.ok((second.claims.auth_time as number) > (first.claims.auth_time as number), 'CheckSecondIdTokenAuthTimeIsLaterIfPresent');
    assert.ok(Math.floor(Date.now() / 1000) - (second.claims.auth_time as number) <= 60, 'CheckIdTokenAuthTimeIsRecentIfPresent');
  });

  // "calls the authorization endpoint test twice. The second time it includes max_age=10000, so that the
  // authorization server must not request that the user logs in", and auth_time is present and unchanged.
  test('oidcc-max-age-10000', async () => {
    const rp = await newRp();
    const first = await rp.fullFlow();
    const second = await rp.fullFlow({ max_age: '10000' }, { expectNoPages: true });
    assert.equal(second.claims.auth_time, first.claims.auth_time);
  });

  // "includes the parameter extra=foobar ... the authentication must complete successfully with the extra
  // parameter ignored as per RFC6749-3.1".
  test('oidcc-ensure-request-with-unknown-parameter-succeeds', async () => {
    const rp = await newRp();
    await rp.fullFlow({ extra: 'foobar' });
  });

  // "calls the authorization endpoint test twice. The second time it will include prompt=none with the
  // id_token_hint set to the id token from the first authorization, and the authorization server must return
  // successfully immediately without interacting with the user"; sub and auth_time consistent.
  test('oidcc-id-token-hint', async () => {
    const rp = await newRp();
    const first = await rp.fullFlow();
    const second = await rp.fullFlow({ prompt: 'none', id_token_hint: first.tokens.body.id_token }, { expectNoPages: true });
    assert.equal(second.claims.sub, first.claims.sub);
    assert.equal(second.claims.auth_time, first.claims.auth_time);
  });

  // "OP-Req-login_hint": login_hint must not cause an error; Latch pre-fills the email with it.
  test('oidcc-login-hint', async () => {
    const rp = await newRp();
    const { outcome } = await rp.fullFlow({ login_hint: rp.account.email });
    assert.equal(inputValue(outcome.signInPage!.body, 'email'), rp.account.email);
  });

  // "OP-Req-ui_locales": ui_locales must not cause an error.
  test('oidcc-ui-locales', async () => {
    const rp = await newRp();
    await rp.fullFlow({ ui_locales: 'se' });
  });

  // "OP-Req-claims_locales": claims_locales must not cause an error.
  test('oidcc-claims-locales', async () => {
    const rp = await newRp();
    await rp.fullFlow({ claims_locales: 'se' });
  });

  // "send an acr_values containing ... the values '1' and '2' (none advertised). The authorization must
  // succeed, and the returned id_tokens 'SHOULD' (but is not required to) contain an acr claim".
  test('oidcc-ensure-request-with-acr-values-succeeds', async () => {
    const rp = await newRp();
    const { claims } = await rp.fullFlow({ acr_values: '1 2' });
    // Neither value is one Latch knows: the id_token says the level the sign-in reached (a password).
    assert.equal(claims.acr, 'https://refeds.org/profile/sfa');
    assert.deepEqual(claims.amr, ['pwd']);
  });

  // "tries using an authorization code for a second time, immediately after the first use. The server should
  // return an invalid_grant error".
  test('oidcc-codereuse', async () => {
    const rp = await newRp();
    const outcome = await rp.authorize();
    const code = rp.expectCode(outcome);
    rp.expectTokens(await rp.exchange(code, outcome));
    const again = await rp.exchange(code, outcome);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
  });

  // "tries using an authorization code for a second time, 30 seconds after the first use. The server must
  // return an invalid_grant error ... The originally issued access token should be revoked (RFC6749-4.1.2)."
  // (The clock is advanced 30 seconds instead of waiting.)
  test('oidcc-codereuse-30seconds', async () => {
    const rp = await newRp();
    const outcome = await rp.authorize();
    const code = rp.expectCode(outcome);
    const tokens = await rp.exchange(code, outcome);
    rp.expectTokens(tokens);
    assert.equal((await rp.userinfo(tokens.body.access_token)).status, 200);
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 30_000 });
    const again = await rp.exchange(code, outcome);
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.equal((await rp.userinfo(tokens.body.access_token)).status, 401, 'CallProtectedResourceWithBearerTokenExpectingError');
  });

  // "uses an unregistered redirect uri. The authorization server should display an error saying the redirect
  // uri is invalid" — and must not redirect to it.
  test('oidcc-ensure-registered-redirect-uri', async () => {
    const rp = await newRp();
    const unregistered = `${rp.client.redirectUris[0]}/${random()}`;
    const query = new URLSearchParams({ response_type: 'code', client_id: rp.client.clientId, redirect_uri: unregistered, scope: 'openid', state: random(), nonce: random() });
    const page = await rp.browser.follow(`${server.baseUrl}/oauth2/authorize?${query.toString()}`, server.baseUrl);
    assert.equal(page.status, 400);
    assert.equal(page.headers.get('location'), null);
    // A page for the person, in plain words (issue 19 item 2); the technical reason is in the app's failed requests.
    assert.match(pageText(page.body), /This sign-in link does not work.*cannot be sent back to it from here/);
  });

  // "makes the call to the authorization endpoint as a POST request. The authentication should complete
  // successfully and the authorization server is expected to call the redirect_uri".
  test('oidcc-ensure-post-request-succeeds', async () => {
    const rp = await newRp();
    await rp.fullFlow({}, { method: 'POST' });
  });

  // "Tests 'happy flow' using client_secret_post client authentication".
  test('oidcc-server-client-secret-post', async () => {
    const rp = await newRp();
    await rp.fullFlow({}, { auth: 'client_secret_post' });
  });

  // "passes a request_uri that points at an unsigned jwt. The authorization server must successfully complete
  // the authorization, or return a request_uri_not_supported error." Latch returns the error (and the suite
  // then ends the module as skipped); discovery says request_uri_parameter_supported: false.
  test('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', async () => {
    const rp = await newRp();
    assert.equal((await fetchDiscovery(server)).request_uri_parameter_supported, false);
    const outcome = await rp.authorize({ request_uri: 'https://rp.example.com/requests/unsigned.jwt' });
    rp.expectError(outcome, 'request_uri_not_supported');
  });

  // "sends an unsigned request object (by value) to the authorization endpoint. The server must either accept
  // the request and process the authentication correctly, or return a request_not_supported error".
  test('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', async () => {
    const rp = await newRp();
    assert.equal((await fetchDiscovery(server)).request_parameter_supported, false);
    const requestObject = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ client_id: rp.client.clientId, response_type: 'code', scope: 'openid', redirect_uri: rp.client.redirectUris[0] }),
    ).toString('base64url')}.`;
    const outcome = await rp.authorize({ request: requestObject });
    rp.expectError(outcome, 'request_not_supported');
  });

  // "requesting the 'name' claim as essential (in the userinfo) ... the OP must return a successful result. A
  // warning is raised if the OP fails to return a value for the name claim." (EnsureUserInfoContainsName and
  // EnsureIdTokenDoesNotContainName are both WARNING conditions in the suite.) Latch ignores the claims parameter
  // (claims_parameter_supported: false) and hands over the claims of the granted scope only (docs/protocol-
  // decisions.md "Scope"): the module's scope is `openid`, so the flow succeeds with `sub` and no name, in the
  // id_token as at userinfo — the suite's accepted warning, never a failure.
  test('oidcc-claims-essential', async () => {
    const rp = await newRp();
    const { userinfo, claims } = await rp.fullFlow({ claims: JSON.stringify({ userinfo: { name: { essential: true } } }) });
    assert.equal(userinfo.sub, claims.sub, 'the flow succeeds and userinfo answers for the same user');
    assert.equal(userinfo.name, undefined, 'WARNING EnsureUserInfoContainsName: name comes with the profile scope only');
    assert.equal(claims.name, undefined, 'EnsureIdTokenDoesNotContainName');
  });

  test('oidcc-ensure-request-object-with-redirect-uri', {
    skip: 'checks that a redirect_uri inside a request object wins over the query; Latch does not process request objects (request_not_supported, see oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported)',
  }, () => {});

  // "requests a token with scope openid offline_access and prompt=consent ... If a refresh token is returned, uses it
  // to obtain a new access token and id_token ... checks the new id_token's iss, sub, aud and auth_time match the
  // original, and that the refresh token cannot be used by another client". Latch rotates: the response carries a
  // new refresh token (docs/protocol-decisions.md "Refresh tokens").
  test('oidcc-refresh-token', async () => {
    const rp = await newRp();
    const { outcome, tokens, claims } = await rp.fullFlow({ scope: 'openid offline_access', prompt: 'consent' });
    assert.equal(typeof tokens.body.refresh_token, 'string', 'a refresh token for offline_access');
    const refresh = async (as: { clientId: string; clientSecret: string }) => {
      const response = await fetch(`${server.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(as.clientId)}:${encodeURIComponent(as.clientSecret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }).toString(),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    };
    const otherRp = await newRp();
    const stolen = await refresh(otherRp.client);
    assert.equal(stolen.status, 400, 'another client cannot use the refresh token');
    assert.equal(stolen.body.error, 'invalid_grant');
    const refreshed = await refresh(rp.client);
    rp.expectTokens(refreshed);
    assert.equal(typeof refreshed.body.refresh_token, 'string');
    const again = await rp.validateIdToken(refreshed.body.id_token, { ...outcome, nonce: undefined }, refreshed.body.access_token);
    for (const claim of ['iss', 'sub', 'aud', 'auth_time'] as const) assert.deepEqual(again[claim], claims[claim], `${claim} is the original's`);
    assert.equal((await rp.userinfo(refreshed.body.access_token)).status, 200);
  });

  // "makes an authorization request using valid PKCE (RFC7636), which must succeed".
  test('oidcc-ensure-request-with-valid-pkce-succeeds', async () => {
    const rp = await newRp();
    const { outcome } = await rp.fullFlow({}, { pkce: true });
    assert.ok(outcome.codeVerifier);
  });
});
