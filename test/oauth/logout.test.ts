/**
 * GET and POST /oauth2/logout, the end_session_endpoint (OIDC RP-Initiated Logout 1.0 §2–§4;
 * docs/protocol-decisions.md "Logout"), over real HTTP on SQLite and on PostgreSQL. Each rule is a test named
 * after its clause; "signed out" is asked of Latch itself (the account page and prompt=none), "never
 * redirected" of the response (no Location), and the attacks are the ones a hostile page or app can try:
 * unregistered or altered redirect targets, hints that are forged, foreign or for someone else, cross-site
 * form posts without the CSRF token, and plain GETs from another site.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { runOidcFlow } from '../helpers/oidc.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;
interface Person {
  id: number;
  email: string;
  password: string;
}

/** A state as the OIDF suite makes them (RFC 6749 Appendix A VSCHAR), with the characters URLs are hardest on. */
const AWKWARD_STATE = 'st&te=1 %20+/?#ü~"<x>' + 'x'.repeat(100);

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`the logout endpoint (OIDC RP-Initiated Logout 1.0) on ${database}`, { skip }, () => {
    let server: TestServer;
    let client: Client;
    let otherClient: Client;
    let postLogoutUri: string;

    before(async () => {
      server = await startTestServer({ database });
      client = await server.createClient({ name: 'Logout App' });
      otherClient = await server.createClient({ name: 'Other App' });
      postLogoutUri = 'http://127.0.0.1:9999/signed-out';
      const registered = [postLogoutUri, 'https://app.example.com/bye?from=latch'];
      await server.storage.clients.update(client.clientId, { postLogoutRedirectUris: registered }, new Date());
      await server.storage.clients.update(otherClient.clientId, { postLogoutRedirectUris: ['https://other.example.com/bye'] }, new Date());
    });
    afterEach(() => mock.timers.reset());
    after(async () => server?.stop());

    async function newPerson(): Promise<Person> {
      const { user, password } = await server.createUser();
      return { id: user.id, email: user.email, password };
    }

    /** A browser signed in to Latch through `app`'s code flow; returns the id_token it got. */
    async function signedInTo(person: Person, app: Client = client, browser?: TestBrowser): Promise<{ browser: TestBrowser; idToken: string }> {
      const flow = await runOidcFlow(server, app, person, browser ? { browser } : {});
      assert.equal(flow.token.status, 200, JSON.stringify(flow.token.body));
      return { browser: flow.browser, idToken: flow.token.body.id_token };
    }

    const logoutUrl = (params: Record<string, string | undefined> = {}) => authorizeUrl(server.baseUrl, params).replace('/oauth2/authorize', '/oauth2/logout');

    /** Whether this browser is still signed in at Latch (the account page answers, or sends to sign-in). */
    async function isSignedIn(browser: TestBrowser): Promise<boolean> {
      const page = await browser.request(`${server.baseUrl}/account`);
      assert.ok(page.status === 200 || page.status === 303, `account page: ${page.status}`);
      return page.status === 200;
    }

    /** prompt=none after logout must need a user interface (what the OIDF module checks afterwards). */
    async function promptNoneError(browser: TestBrowser, app: Client = client): Promise<string | null> {
      const response = await browser.request(
        authorizeUrl(server.baseUrl, { response_type: 'code', client_id: app.clientId, redirect_uri: app.redirectUris[0], scope: 'openid', prompt: 'none', state: 's' }),
      );
      return new URL(response.headers.get('location') ?? '', server.baseUrl).searchParams.get('error');
    }

    function assertRefused(response: BrowserResponse, description: RegExp): void {
      assert.equal(response.status, 400, response.body.slice(0, 300));
      assert.equal(response.headers.get('location'), null, 'never a redirect');
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(pageText(response.body), /This sign-out request cannot be followed/);
      assert.match(pageText(response.body), description);
    }

    function assertConfirmationPage(response: BrowserResponse): void {
      assert.equal(response.status, 200, response.body.slice(0, 300));
      assert.equal(response.headers.get('location'), null);
      assert.match(pageText(response.body), /Sign out of Latch\?/);
      assert.match(response.body, /<form method="post" action="\/oauth2\/logout\/confirm">/);
      assert.match(response.body, /<button type="submit"[^>]*>Sign out<\/button>/);
      assert.match(response.body, /name="_csrf"/);
      assert.doesNotMatch(response.body, /<script/, 'works without JavaScript');
    }

    /** Presses "Sign out" on a page that offers it (the confirmation page, or the error page). */
    async function pressSignOut(browser: TestBrowser, page: BrowserResponse): Promise<BrowserResponse> {
      const form: Record<string, string> = { _csrf: inputValue(page.body, '_csrf') };
      for (const name of ['client_id', 'post_logout_redirect_uri', 'state']) {
        if (page.body.includes(`name="${name}"`)) form[name] = inputValue(page.body, name);
      }
      return browser.request(`${server.baseUrl}/oauth2/logout/confirm`, { form });
    }

    function expectRedirectTo(response: BrowserResponse, expected: string): void {
      assert.equal(response.status, 303, response.body.slice(0, 300));
      assert.equal(response.headers.get('location'), expected);
    }

    test('Discovery §3 and RPIL §2.1: the end_session_endpoint is advertised with back-channel session support, front-channel left out', async () => {
      const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
      assert.equal(metadata.end_session_endpoint, `${server.config.issuer}/oauth2/logout`);
      assert.equal(metadata.backchannel_logout_supported, true);
      assert.equal(metadata.backchannel_logout_session_supported, true);
      assert.equal('frontchannel_logout_supported' in metadata, false);
      assert.ok(metadata.claims_supported.includes('sid'));
    });

    test('§2, §3: a valid id_token_hint of this session, a registered post_logout_redirect_uri and state: signed out at once, 303 back with state unchanged and nothing else', async () => {
      const person = await newPerson();
      const { browser, idToken } = await signedInTo(person);
      const response = await browser.request(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: postLogoutUri, state: AWKWARD_STATE }));
      assert.equal(response.status, 303);
      const location = new URL(response.headers.get('location') ?? '');
      assert.equal(`${location.origin}${location.pathname}`, postLogoutUri);
      assert.equal(location.searchParams.get('state'), AWKWARD_STATE, 'state byte for byte');
      assert.deepEqual([...location.searchParams.keys()], ['state'], 'no other parameter (CheckForUnexpectedParametersInPostLogoutRedirect)');
      assert.ok(response.headers.getSetCookie().some((cookie) => /^latch_session=;/.test(cookie) && /Expires=Thu, 01 Jan 1970/.test(cookie)), 'the session cookie is cleared');
      assert.equal(await isSignedIn(browser), false);
      assert.equal(await promptNoneError(browser), 'login_required');
    });

    test('§3: without state the redirect is the registered URI exactly; a registered query is kept and state appended', async () => {
      const first = await signedInTo(await newPerson());
      expectRedirectTo(await first.browser.request(logoutUrl({ id_token_hint: first.idToken, post_logout_redirect_uri: postLogoutUri })), postLogoutUri);
      const second = await signedInTo(await newPerson());
      const response = await second.browser.request(
        logoutUrl({ id_token_hint: second.idToken, post_logout_redirect_uri: 'https://app.example.com/bye?from=latch', state: 'abc' }),
      );
      expectRedirectTo(response, 'https://app.example.com/bye?from=latch&state=abc');
    });

    test('§2: the OP MUST support POST: the form is answered with a 303 to the same request as a GET, which then signs out and returns', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      const form = { id_token_hint: idToken, post_logout_redirect_uri: postLogoutUri, state: AWKWARD_STATE };
      const posted = await browser.request(`${server.baseUrl}/oauth2/logout`, { form });
      assert.equal(posted.status, 303);
      assert.equal(await isSignedIn(browser), true, 'the POST alone ends nothing (its cookie would not come along cross-site)');
      const landed = await browser.follow(`${server.baseUrl}/oauth2/logout`, server.baseUrl, { form });
      assert.equal(landed.url, `${postLogoutUri}?${new URLSearchParams({ state: AWKWARD_STATE })}`);
      assert.equal(await isSignedIn(browser), false);
    });

    test('§2: an expired id_token_hint is still a valid hint', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      const exp = decodeJwt(idToken).exp!;
      // Past the id_token's expiry, well within the browser session's lifetime.
      mock.timers.enable({ apis: ['Date'], now: (exp + 600) * 1000 });
      expectRedirectTo(await browser.request(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: postLogoutUri, state: 's' })), `${postLogoutUri}?state=s`);
      mock.timers.reset();
      assert.equal(await isSignedIn(browser), false);
    });

    test('§3: an unregistered post_logout_redirect_uri is never followed, even with a valid hint: a 400 page, still signed in, with a way to sign out', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      for (const uri of [
        'https://evil.example.com/steal',
        // The OIDF module oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri.
        `${postLogoutUri}?foo=bar`,
        // No loopback port rule here: exact comparison.
        'http://127.0.0.1:9998/signed-out',
        `${postLogoutUri}/`,
        // Registered for another client.
        'https://other.example.com/bye',
      ]) {
        const response = await browser.request(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: uri, state: 's' }));
        assertRefused(response, /post_logout_redirect_uri .* is not registered for this client/);
        assert.equal(await isSignedIn(browser), true, `still signed in after ${uri}`);
      }
      const page = await browser.request(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: 'https://evil.example.com/steal' }));
      const signedOut = await pressSignOut(browser, page);
      assert.equal(signedOut.status, 200);
      assert.equal(signedOut.headers.get('location'), null, 'the sign-out from the error page goes nowhere else');
      assert.match(pageText(signedOut.body), /You are signed out/);
      assert.equal(await isSignedIn(browser), false);
    });

    test('§3: a post_logout_redirect_uri with neither id_token_hint nor client_id is never followed (no app to compare it with)', async () => {
      const { browser } = await signedInTo(await newPerson());
      const response = await browser.request(logoutUrl({ post_logout_redirect_uri: postLogoutUri, state: 's' }));
      assertRefused(response, /post_logout_redirect_uri needs id_token_hint or client_id/);
      assert.equal(await isSignedIn(browser), true);
    });

    test('§2: client_id with a registered URI but no hint: Latch asks first (a plain GET from another site ends nothing), then signs out and returns with state', async () => {
      const { browser } = await signedInTo(await newPerson());
      const page = await browser.request(logoutUrl({ client_id: client.clientId, post_logout_redirect_uri: postLogoutUri, state: AWKWARD_STATE }));
      assertConfirmationPage(page);
      assert.match(pageText(page.body), /Logout App asks to sign you out of Latch/);
      assert.match(page.headers.get('content-security-policy') ?? '', /form-action 'self' http:\/\/127\.0\.0\.1:9999/, 'the form may lead to the app');
      assert.equal(await isSignedIn(browser), true, 'showing the question ends nothing');
      expectRedirectTo(await pressSignOut(browser, page), `${postLogoutUri}?${new URLSearchParams({ state: AWKWARD_STATE })}`);
      assert.equal(await isSignedIn(browser), false);
    });

    test('§2: a valid hint for another person asks first, and the confirmation signs out the person actually signed in', async () => {
      const someoneElse = await signedInTo(await newPerson());
      const victim = await signedInTo(await newPerson());
      const page = await victim.browser.request(logoutUrl({ id_token_hint: someoneElse.idToken, post_logout_redirect_uri: postLogoutUri, state: 's' }));
      assertConfirmationPage(page);
      assert.equal(await isSignedIn(victim.browser), true);
      expectRedirectTo(await pressSignOut(victim.browser, page), `${postLogoutUri}?state=s`);
      assert.equal(await isSignedIn(victim.browser), false);
      assert.equal(await isSignedIn(someoneElse.browser), true, "the hint's own person stays signed in elsewhere");
    });

    test("§2: a valid hint of the same person from another session (another sid) asks first", async () => {
      const person = await newPerson();
      const laptop = await signedInTo(person);
      const phone = await signedInTo(person);
      assert.notEqual(decodeJwt(laptop.idToken).sid, decodeJwt(phone.idToken).sid);
      assertConfirmationPage(await phone.browser.request(logoutUrl({ id_token_hint: laptop.idToken, post_logout_redirect_uri: postLogoutUri })));
      assert.equal(await isSignedIn(phone.browser), true);
      assert.equal(await isSignedIn(laptop.browser), true);
    });

    test('§2: a forged or foreign id_token_hint is not trusted: alg none, altered claims, another key with Latch\'s kid, an HMAC by the client; a 400 page, never a redirect', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      const [header, payload, signature] = idToken.split('.') as [string, string, string];
      const claims = decodeJwt(idToken);
      const kid = decodeProtectedHeader(idToken).kid!;
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const forged = {
        // The OIDF module oidcc-rp-initiated-logout-modified-id-token-hint (ChangeIdTokenToAlgNone).
        'alg none': `${encode({ alg: 'none' })}.${payload}.`,
        'altered claims': `${header}.${encode({ ...claims, sub: '1' })}.${signature}`,
        "another key under Latch's kid": await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey),
        'another issuer': await new SignJWT({ ...claims, iss: 'https://idp.example.com' }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey),
        // The OIDF module oidcc-rp-initiated-logout-bad-id-token-hint (SignFakeIdToken: HS256 with the client secret).
        'HMAC by the client': await new SignJWT({ iss: client.clientId, sub: 'SubjectID', aud: server.config.issuer, nonce: 'flibble' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(Buffer.from(client.clientSecret)),
        'not a JWT': 'not-a-jwt',
      };
      for (const [what, hint] of Object.entries(forged)) {
        const response = await browser.request(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: postLogoutUri, state: 's' }));
        assertRefused(response, /id_token_hint is not an id_token Latch issued/);
        assert.equal(await isSignedIn(browser), true, `still signed in after: ${what}`);
      }
    });

    test('§2: client_id must agree with the hint\'s audience; an unknown client_id is refused', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      assertRefused(
        await browser.request(logoutUrl({ id_token_hint: idToken, client_id: otherClient.clientId, post_logout_redirect_uri: 'https://other.example.com/bye' })),
        /client_id is not the client the id_token_hint was issued to/,
      );
      assertRefused(await browser.request(logoutUrl({ client_id: 'no-such-client', post_logout_redirect_uri: postLogoutUri })), /client_id no-such-client is not a registered client/);
      // Agreeing ones are fine.
      expectRedirectTo(await browser.request(logoutUrl({ id_token_hint: idToken, client_id: client.clientId, post_logout_redirect_uri: postLogoutUri })), postLogoutUri);
    });

    test('RFC 6749 §3.1 (as for every endpoint): a parameter sent twice is refused with a page, never a redirect', async () => {
      const { browser, idToken } = await signedInTo(await newPerson());
      for (const name of ['state', 'post_logout_redirect_uri', 'id_token_hint']) {
        const url = `${logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: postLogoutUri, state: 's' })}&${name}=again`;
        assertRefused(await browser.request(url), new RegExp(`${name} was sent more than once`));
      }
      assert.equal(await isSignedIn(browser), true);
    });

    test('CSRF: the confirmation without its token, or with another browser\'s, is refused (403) and ends nothing', async () => {
      const { browser } = await signedInTo(await newPerson());
      const page = await browser.request(logoutUrl({ client_id: client.clientId, post_logout_redirect_uri: postLogoutUri }));
      assertConfirmationPage(page);
      const withoutToken = await browser.request(`${server.baseUrl}/oauth2/logout/confirm`, { form: { post_logout_redirect_uri: postLogoutUri, client_id: client.clientId } });
      assert.equal(withoutToken.status, 403);
      const attacker = new TestBrowser();
      const attackerPage = await attacker.request(`${server.baseUrl}/login`);
      const foreignToken = await browser.request(`${server.baseUrl}/oauth2/logout/confirm`, { form: { _csrf: inputValue(attackerPage.body, '_csrf'), client_id: client.clientId } });
      assert.equal(foreignToken.status, 403);
      assert.equal(await isSignedIn(browser), true);
    });

    test('the confirmation checks its fields again: a post_logout_redirect_uri changed in the form is never followed', async () => {
      const { browser } = await signedInTo(await newPerson());
      const page = await browser.request(logoutUrl({ client_id: client.clientId, post_logout_redirect_uri: postLogoutUri }));
      const tampered = await browser.request(`${server.baseUrl}/oauth2/logout/confirm`, {
        form: { _csrf: inputValue(page.body, '_csrf'), client_id: client.clientId, post_logout_redirect_uri: 'https://evil.example.com/steal' },
      });
      assertRefused(tampered, /is not registered for this client/);
      assert.equal(await isSignedIn(browser), true);
    });

    test('§2, §4: no parameters, or only state: Latch asks, then shows "You are signed out" and redirects nowhere', async () => {
      for (const params of [{}, { state: 'only-state' }]) {
        const { browser } = await signedInTo(await newPerson());
        const page = await browser.request(logoutUrl(params));
        assertConfirmationPage(page);
        assert.doesNotMatch(page.body, /name="state"/, 'a state without a redirect goes nowhere');
        const done = await pressSignOut(browser, page);
        assert.equal(done.status, 200);
        assert.equal(done.headers.get('location'), null);
        assert.match(pageText(done.body), /You are signed out/);
        assert.equal(await isSignedIn(browser), false);
      }
    });

    test('§2: a hint of this session without post_logout_redirect_uri: signed out at once, then the signed-out page with a way back to the app', async () => {
      await server.storage.clients.update(client.clientId, { homepageUrl: 'https://app.example.com/' }, new Date());
      const { browser, idToken } = await signedInTo(await newPerson());
      const done = await browser.request(logoutUrl({ id_token_hint: idToken, state: 's' }));
      assert.equal(done.status, 200);
      assert.match(pageText(done.body), /You are signed out/);
      assert.match(done.body, /href="https:\/\/app\.example\.com\/"[^>]*>\s*Back to Logout App/);
      assert.equal(await isSignedIn(browser), false);
      await server.storage.clients.update(client.clientId, { homepageUrl: null }, new Date());
    });

    test('nobody signed in: nothing to end, so a verified redirect is followed and otherwise the signed-out page is shown', async () => {
      const { idToken } = await signedInTo(await newPerson());
      const stranger = new TestBrowser();
      expectRedirectTo(await stranger.request(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: postLogoutUri, state: 's' })), `${postLogoutUri}?state=s`);
      expectRedirectTo(await stranger.request(logoutUrl({ client_id: client.clientId, post_logout_redirect_uri: postLogoutUri })), postLogoutUri);
      const page = await stranger.request(logoutUrl());
      assert.equal(page.status, 200);
      assert.match(pageText(page.body), /You are signed out/);
      assertRefused(await stranger.request(logoutUrl({ post_logout_redirect_uri: postLogoutUri })), /needs id_token_hint or client_id/);
    });

    test('signing out ends only this browser\'s session: the same person stays signed in on another device', async () => {
      const person = await newPerson();
      const laptop = await signedInTo(person);
      const phone = await signedInTo(person);
      expectRedirectTo(await laptop.browser.request(logoutUrl({ id_token_hint: laptop.idToken, post_logout_redirect_uri: postLogoutUri })), postLogoutUri);
      assert.equal(await isSignedIn(laptop.browser), false);
      assert.equal(await isSignedIn(phone.browser), true);
    });
  });
}
