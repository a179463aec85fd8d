/**
 * Property-based tests of GET /oauth2/authorize and the consent decision (issue 2 item 9): generated query
 * strings and forms — random, duplicated, huge, broken percent-encoding — never get a 5xx; every redirect
 * goes to Latch's sign-in page or to a registered redirect URI (never anywhere else); error pages are pages;
 * and, since no request here may grant anything, the database is unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { anyText, asRequestTarget, assertNoServerError, bodies, checkProperty, contentTypes, encodePairs, parameterList, rawFormText, sendRaw, type RawHttpResponse } from '../helpers/fuzz.js';
import { authorizeUrl, pkcePair, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const AUTHORIZE_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'nonce', 'prompt', 'max_age', 'response_mode', 'login_hint'] as const;
const REGISTERED = ['https://app.example.com/callback', 'https://app.example.com/cb?tenant=a', 'http://127.0.0.1/loopback'];

/** True when `location` is one of the registered redirect URIs with response parameters added (loopback: any port). */
function isRegisteredDestination(location: string): boolean {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return false;
  }
  return REGISTERED.some((registered) => {
    const r = new URL(registered);
    const portMatches = r.hostname === '127.0.0.1' ? true : url.port === r.port;
    const queryKept = [...r.searchParams].every(([name, value]) => url.searchParams.getAll(name)[0] === value);
    return url.protocol === r.protocol && url.hostname === r.hostname && portMatches && url.pathname === r.pathname && queryKept && location.startsWith(`${r.protocol}//`);
  });
}

describe('fuzzing /oauth2/authorize', () => {
  let server: TestServer;
  let clientId: string;
  let signedIn: TestBrowser;
  let consentPage: { csrf: string; authorizationRequest: string };
  let sessionCookie: string;

  before(async () => {
    server = await startTestServer();
    clientId = (await server.createClient({ name: 'Fuzz App', redirectUris: REGISTERED })).clientId;
    const { user, password } = await server.createUser();
    signedIn = new TestBrowser();
    const validQuery = { response_type: 'code', client_id: clientId, redirect_uri: REGISTERED[0]!, scope: 'profile', state: 's' };
    const signInPage = await signedIn.follow(authorizeUrl(server.baseUrl, validQuery), server.baseUrl);
    const page = await signIn(signedIn, server.baseUrl, signInPage, user.email, password);
    assert.ok(page.body.includes('/oauth2/authorize/decision'), 'a consent page, never answered: no consent is stored');
    consentPage = { csrf: inputValue(page.body, '_csrf'), authorizationRequest: inputValue(page.body, 'authorization_request') };
    sessionCookie = await signedIn.jar.getCookieString(server.baseUrl);
  });
  after(async () => server.stop());

  const interestingValues = () =>
    fc.oneof(
      { weight: 3, arbitrary: anyText },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          clientId,
          ...REGISTERED,
          'http://127.0.0.1:8123/loopback',
          'http://127.0.0.1:99999/loopback',
          'http://127.0.0.1:0/loopback',
          'http://127.0.0.1:65535/loopback/../loopback',
          'https://app.example.com/callback/',
          'https://evil.example.net/callback',
          'code',
          'token',
          'code id_token',
          'profile',
          'openid email profile',
          'S256',
          'plain',
          pkcePair().challenge,
          'none',
          'login consent',
          '0',
          'form_post',
          'fragment',
        ),
      },
    );

  function checkAuthorizeAnswer(response: RawHttpResponse, context: string, options: { signedIn: boolean; mayAskToSignInAgain?: boolean }): void {
    assertNoServerError(response, context);
    const location = response.headers.location;
    if (response.status === 302 || response.status === 303) {
      assert.equal(typeof location, 'string', context);
      // A signed-in user is sent to sign in again only when the request asks for it (max_age, prompt=login).
      const goesToSignIn = (!options.signedIn || options.mayAskToSignInAgain === true) && String(location).startsWith('/login?return_to=%2Foauth2%2Fauthorize%3F');
      assert.ok(goesToSignIn || isRegisteredDestination(String(location)), `${context}: redirects only to sign-in or a registered URI, not ${location}`);
      if (!goesToSignIn) {
        const url = new URL(String(location));
        assert.ok(url.searchParams.get('error'), `${context}: an error redirect (nothing may be granted here): ${location}`);
        assert.equal(url.searchParams.get('iss'), server.config.issuer, context);
        assert.equal(url.searchParams.get('code'), null, context);
      }
      return;
    }
    assert.equal(location, undefined, `${context}: only redirects carry a Location`);
    if (response.status === 200) {
      assert.ok(options.signedIn, `${context}: a page with status 200 only for a signed-in user (the consent page)`);
      assert.ok(response.text.includes('/oauth2/authorize/decision'), `${context}: the consent page`);
    } else {
      assert.ok(response.status >= 400 && response.status < 500, `${context}: ${response.status}`);
      if (response.status !== 431) assert.match(String(response.headers['content-type']), /^text\/html/, `${context}: the error page`);
    }
    if (response.status !== 431) assert.equal(response.headers['x-frame-options'], 'DENY', context);
  }

  test('random query strings, without a session: sign-in, an error page or an error redirect; nothing changes', async () => {
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(rawFormText(AUTHORIZE_PARAMETERS, interestingValues()), async (query) => {
        const response = await sendRaw(server.baseUrl, { method: 'GET', path: `/oauth2/authorize?${asRequestTarget(query)}` });
        checkAuthorizeAnswer(response, `?${query.slice(0, 300)}`, { signedIn: false });
        assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      }),
    );
  });

  test('random query strings around a valid request, signed in without consent: consent page, error page or error redirect; nothing changes', async () => {
    const before = await snapshotState(server);
    const base: Array<[string, string]> = [
      ['response_type', 'code'],
      ['client_id', clientId],
      ['redirect_uri', REGISTERED[0]!],
    ];
    await checkProperty(
      fc.asyncProperty(
        fc.subarray(base),
        parameterList(AUTHORIZE_PARAMETERS, interestingValues()),
        fc.boolean(),
        async (kept, extra, shuffle) => {
          const pairs = shuffle ? [...extra, ...kept] : [...kept, ...extra];
          const query = encodePairs(pairs);
          const response = await sendRaw(server.baseUrl, { method: 'GET', path: `/oauth2/authorize?${asRequestTarget(query)}`, headers: [['cookie', sessionCookie]] });
          const asksToSignInAgain = pairs.some(([name, value]) => name === 'max_age' || (name === 'prompt' && value.split(' ').includes('login')));
          checkAuthorizeAnswer(response, `?${query.slice(0, 300)}`, { signedIn: true, mayAskToSignInAgain: asksToSignInAgain });
          assert.deepEqual(await snapshotState(server), before, 'nothing changed');
        },
      ),
    );
  });

  test('random consent decisions (anything but allow): error page, error redirect or deny; nothing changes', async () => {
    const before = await snapshotState(server);
    const decisionForm = fc.record({
      csrf: fc.oneof({ weight: 4, arbitrary: fc.constant(consentPage.csrf) }, { weight: 1, arbitrary: anyText }),
      authorizationRequest: fc.oneof(
        { weight: 2, arbitrary: fc.constant(consentPage.authorizationRequest) },
        { weight: 3, arbitrary: rawFormText(AUTHORIZE_PARAMETERS, interestingValues()) },
        { weight: 1, arbitrary: anyText },
      ),
      decision: fc.oneof(fc.constant('deny'), anyText.filter((value) => value !== 'allow')),
      extra: parameterList(['_csrf', 'authorization_request', 'decision'], anyText.filter((value) => value !== 'allow')),
    });
    await checkProperty(
      fc.asyncProperty(decisionForm, fc.option(contentTypes, { nil: undefined }), async (form, contentType) => {
        const body = encodePairs([['_csrf', form.csrf], ['authorization_request', form.authorizationRequest], ['decision', form.decision], ...form.extra]);
        const headers: Array<[string, string]> = [['cookie', sessionCookie]];
        headers.push(['content-type', contentType ?? 'application/x-www-form-urlencoded']);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/oauth2/authorize/decision', headers, body });
        const context = `decision ${JSON.stringify(body.slice(0, 300))} as ${contentType}`;
        assertNoServerError(response, context);
        if (response.status === 302 || response.status === 303) {
          const location = new URL(String(response.headers.location));
          assert.ok(isRegisteredDestination(location.href), `${context}: only to a registered URI: ${location.href}`);
          assert.ok(location.searchParams.get('error'), `${context}: an error (never a code): ${location.href}`);
        } else {
          assert.ok(response.status >= 400 && response.status < 500, `${context}: ${response.status}`);
        }
        assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      }),
    );
  });

  test('random bodies and content types on the decision: never a 5xx; a code only ever for a registered URI', async () => {
    await checkProperty(
      fc.asyncProperty(bodies(['_csrf', 'authorization_request', 'decision'], anyText), fc.option(contentTypes, { nil: undefined }), async (body, contentType) => {
        const headers: Array<[string, string]> = [['cookie', sessionCookie]];
        if (contentType !== undefined) headers.push(['content-type', contentType]);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/oauth2/authorize/decision', headers, body });
        const context = `body ${JSON.stringify(body.toString('latin1').slice(0, 300))} as ${contentType}`;
        assertNoServerError(response, context);
        if (response.headers.location) assert.ok(isRegisteredDestination(String(response.headers.location)), context);
      }),
    );
  });
});
