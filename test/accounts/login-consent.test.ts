/**
 * The sign-in and consent pages (docs/protocol-decisions.md "Pages" and "Sessions and cookies"; issue 2 item 3):
 * throttling per account and per address, identical answers for a wrong password and an unknown email, the
 * browser session (HttpOnly cookie, only its hash stored), CSRF on every form, pages that cannot be framed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { findRows, snapshotState } from '../helpers/database-snapshot.js';
import { authorizeUrl, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const REDIRECT_URI = 'https://app.example.com/callback';

/** POSTs the sign-in form of a freshly loaded sign-in page, from a given client address (X-Forwarded-For). */
async function attemptSignIn(
  server: TestServer,
  email: string,
  password: string,
  options: { address?: string; browser?: TestBrowser; returnTo?: string } = {},
): Promise<BrowserResponse> {
  const browser = options.browser ?? new TestBrowser();
  const headers: Record<string, string> = options.address ? { 'x-forwarded-for': options.address } : {};
  const page = await browser.request(`${server.baseUrl}/login`, { headers });
  return browser.request(`${server.baseUrl}/login`, {
    headers,
    form: { _csrf: inputValue(page.body, '_csrf'), return_to: options.returnTo ?? inputValue(page.body, 'return_to'), email, password },
  });
}

/** A page with what legitimately differs between two answers (the CSRF token, the email typed) blanked out. */
function normalizedPage(response: BrowserResponse, email: string): string {
  return response.body.replace(/name="_csrf" value="[^"]*"/, 'name="_csrf" value=""').replaceAll(email, 'EMAIL');
}

function cookieNames(response: BrowserResponse): string[] {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split('=')[0]!)
    .sort();
}

function assertNotFrameable(response: BrowserResponse): void {
  assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
}

describe('sign-in page', () => {
  let server: TestServer;
  let user: { email: string; password: string; id: number };

  before(async () => {
    server = await startTestServer();
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password, id: created.user.id };
  });
  after(async () => server.stop());

  test('has inputs labelled Email and Password and a Sign in button, in a plain form posting to Latch', async () => {
    const page = await new TestBrowser().request(`${server.baseUrl}/login`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<form[^>]*method="post"[^>]*action="\/login"/);
    assert.match(page.body, /<label for="email">Email<\/label>/);
    assert.match(page.body, /<input[^>]*id="email"[^>]*name="email"/);
    assert.match(page.body, /<label for="password">Password<\/label>/);
    assert.match(page.body, /<input[^>]*id="password"[^>]*name="password"[^>]*type="password"/);
    assert.match(page.body, /<button type="submit">Sign in<\/button>/);
    // The one script is the passkey button's, a progressive enhancement: the form itself needs none.
    assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc="\/assets\/passkeys\.js")/i, 'works without JavaScript');
    assert.match(page.body, /<button type="button"[^>]*data-passkey="sign-in"[^>]*hidden>Sign in with a passkey<\/button>/, 'the passkey button stays hidden without JavaScript');
  });

  test('a wrong password and an unknown email give the same answer', async () => {
    const wrongPassword = await attemptSignIn(server, user.email, 'not the password at all');
    const unknownEmail = await attemptSignIn(server, 'nobody-here@example.com', 'not the password at all');
    assert.equal(wrongPassword.status, 401);
    assert.equal(unknownEmail.status, wrongPassword.status);
    assert.equal(normalizedPage(unknownEmail, 'nobody-here@example.com'), normalizedPage(wrongPassword, user.email));
    assert.deepEqual(cookieNames(unknownEmail), cookieNames(wrongPassword));
    assert.ok(pageText(wrongPassword.body).includes('Email or password is incorrect'));
  });

  test('the email is matched case-insensitively', async () => {
    const response = await attemptSignIn(server, user.email.toUpperCase(), user.password);
    assert.equal(response.status, 303);
  });

  test('empty fields re-render the form with a message and start no session', async () => {
    const before = await snapshotState(server);
    const response = await attemptSignIn(server, '', '');
    assert.equal(response.status, 400);
    assert.ok(response.body.includes('action="/login"'));
    assert.deepEqual(await snapshotState(server), before);
  });

  test('the session cookie is HttpOnly, SameSite=Lax, Path=/, and only its hash is stored', async () => {
    const response = await attemptSignIn(server, user.email, user.password);
    assert.equal(response.status, 303);
    const setCookie = response.headers.getSetCookie().find((cookie) => cookie.startsWith('latch_session='));
    assert.ok(setCookie, 'a session cookie is set');
    assert.match(setCookie, /;\s*HttpOnly/i);
    assert.match(setCookie, /;\s*SameSite=Lax/i);
    assert.match(setCookie, /;\s*Path=\//i);
    const sessionId = decodeURIComponent(setCookie.slice('latch_session='.length).split(';')[0]!);
    assert.ok(sessionId.length >= 40);
    const expectedHash = createHash('sha256').update(sessionId).digest('base64url');
    const rows = await findRows(server, 'browser_sessions', { session_hash: expectedHash });
    assert.equal(rows.length, 1, 'the session is stored under the SHA-256 of its id');
    assert.ok(!JSON.stringify(await snapshotState(server)).includes(sessionId), 'the session id itself is stored nowhere');
  });

  test('every sign-in starts a new session id and ends the one the browser had (no session fixation)', async () => {
    const browser = new TestBrowser();
    await attemptSignIn(server, user.email, user.password, { browser });
    const first = (await browser.jar.getCookies(server.baseUrl)).find((c) => c.key === 'latch_session')!.value;
    await attemptSignIn(server, user.email, user.password, { browser });
    const second = (await browser.jar.getCookies(server.baseUrl)).find((c) => c.key === 'latch_session')!.value;
    assert.notEqual(first, second);
    const hash = (id: string) => createHash('sha256').update(id).digest('base64url');
    assert.equal((await findRows(server, 'browser_sessions', { session_hash: hash(first) })).length, 0);
    assert.equal((await findRows(server, 'browser_sessions', { session_hash: hash(second) })).length, 1);
  });

  test('the sign-in and sign-up pages reached from an app name it, with its homepage; an unknown or missing client names none', async () => {
    const client = await server.createClient({ name: 'Orbit Notes', redirectUris: [REDIRECT_URI] });
    await server.storage.clients.update(client.clientId, { homepageUrl: 'https://orbit.example.com/' }, new Date());
    const returnTo = `/oauth2/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
    const browser = new TestBrowser();
    for (const path of ['/login', '/signup']) {
      const page = await browser.request(`${server.baseUrl}${path}?return_to=${encodeURIComponent(returnTo)}`);
      assert.match(pageText(page.body), /to continue to Orbit Notes \(orbit\.example\.com\)/, path);
    }
    const wrong = await attemptSignIn(server, user.email, 'not the password', { browser, returnTo });
    assert.match(pageText(wrong.body), /to continue to Orbit Notes/, 'the refused sign-in still says for whom');
    for (const other of ['/oauth2/authorize?client_id=nobody', `/oauth2/authorize?client_id=${client.clientId}&client_id=x`, '/account']) {
      const page = await browser.request(`${server.baseUrl}/login?return_to=${encodeURIComponent(other)}`);
      assert.doesNotMatch(pageText(page.body), /to continue to/, other);
    }
  });

  test('the header marks the current page, and the sign-in page does not link to itself', async () => {
    const signInPage = await new TestBrowser().request(`${server.baseUrl}/login`);
    assert.ok(!/<nav[^>]*>[\s\S]*href="\/login"[\s\S]*<\/nav>/.test(signInPage.body), 'no "Sign in" link on the sign-in page');
    const browser = new TestBrowser();
    await signIn(browser, server.baseUrl, await browser.request(`${server.baseUrl}/login`), user.email, user.password);
    for (const [path, current] of [['/account', 'Account'], ['/developer', 'Developer']] as const) {
      const page = await browser.request(`${server.baseUrl}${path}`);
      assert.match(page.body, new RegExp(`<a href="${path}" aria-current="page">\\s*${current}`), path);
    }
  });

  test('sign-in returns to the authorization request it interrupted', async () => {
    const client = await server.createClient({ redirectUris: [REDIRECT_URI] });
    const browser = new TestBrowser();
    const url = authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 's' });
    const signInPage = await browser.follow(url, server.baseUrl);
    const consent = await signIn(browser, server.baseUrl, signInPage, user.email, user.password);
    assert.equal(consent.status, 200);
    assert.ok(consent.body.includes('/oauth2/authorize/decision'));
  });

  test('the consent page says what is asked for each scope, where the person goes back, and "Not you?" signs out and returns to the request', async () => {
    const client = await server.createClient({ name: 'Orbit Notes', redirectUris: [REDIRECT_URI] });
    const browser = new TestBrowser();
    const cases: Array<[scope: string, heading: RegExp, receives: RegExp, notListed: RegExp | null]> = [
      ['openid profile', /Orbit Notes wants access to your profile/, /Your name/, null],
      ['openid email', /Orbit Notes wants to know your email address/, /Your email address, and whether it is verified/, /Your name/],
      ['openid', /Orbit Notes wants to know who you are/, /An id for your Latch account/, /Your email address/],
    ];
    let consent: BrowserResponse | undefined;
    for (const [scope, heading, receives, notListed] of cases) {
      const url = authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 's', scope });
      let page = await browser.follow(url, server.baseUrl);
      if (page.body.includes('action="/login"')) page = await signIn(browser, server.baseUrl, page, user.email, user.password);
      assert.equal(page.status, 200, page.body.slice(0, 200));
      const text = pageText(page.body);
      assert.match(text, heading, scope);
      assert.match(text, receives, scope);
      if (notListed) assert.doesNotMatch(text, notListed, `${scope}: only what the scope hands over`);
      assert.match(text, /Afterwards you go back to app\.example\.com/);
      assert.ok(!page.body.includes('href="/developer"') && !page.body.includes('href="/account"'), 'no way out of the flow in the header');
      consent = page;
    }
    // "Not you? Use another account": signed out, then back at the request, which asks for a sign-in.
    const signedOut = await browser.request(`${server.baseUrl}/logout`, {
      form: { _csrf: inputValue(consent!.body, '_csrf'), return_to: inputValue(consent!.body, 'return_to') },
    });
    assert.equal(signedOut.status, 303);
    const location = signedOut.headers.get('location') ?? '';
    assert.match(location, /^\/oauth2\/authorize\?/);
    const again = await browser.follow(new URL(location, server.baseUrl).href, server.baseUrl);
    assert.ok(again.body.includes('action="/login"'), 'the sign-in page, for another account');
  });

  for (const returnTo of ['https://evil.example.net/', '//evil.example.net/', '/\\evil.example.net/', 'javascript:alert(1)', '/ok\r\nSet-Cookie: x=y']) {
    test(`return_to ${JSON.stringify(returnTo)} is not an open redirect`, async () => {
      const response = await attemptSignIn(server, user.email, user.password, { returnTo });
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), '/');
    });
  }

  test('sign-out ends the session and needs the CSRF token', async () => {
    const browser = new TestBrowser();
    await attemptSignIn(server, user.email, user.password, { browser });
    const sessionId = (await browser.jar.getCookies(server.baseUrl)).find((c) => c.key === 'latch_session')!.value;
    const hash = createHash('sha256').update(sessionId).digest('base64url');
    const home = await browser.request(`${server.baseUrl}/`);
    const forged = await browser.request(`${server.baseUrl}/logout`, { form: { _csrf: 'forged' } });
    assert.equal(forged.status, 403);
    assert.equal((await findRows(server, 'browser_sessions', { session_hash: hash })).length, 1, 'a forged sign-out does nothing');
    const response = await browser.request(`${server.baseUrl}/logout`, { form: { _csrf: inputValue(home.body, '_csrf') } });
    assert.equal(response.status, 303);
    assert.equal((await findRows(server, 'browser_sessions', { session_hash: hash })).length, 0);
  });

  describe('CSRF on the sign-in form', () => {
    test('a sign-in without the CSRF token → 403 and no session', async () => {
      const browser = new TestBrowser();
      await browser.request(`${server.baseUrl}/login`);
      const before = await snapshotState(server);
      const response = await browser.request(`${server.baseUrl}/login`, { form: { email: user.email, password: user.password, return_to: '/' } });
      assert.equal(response.status, 403);
      assert.equal(response.headers.getSetCookie().some((c) => c.startsWith('latch_session=')), false);
      assert.deepEqual(await snapshotState(server), before);
    });

    test('a sign-in with a token from another browser → 403', async () => {
      const victim = new TestBrowser();
      await victim.request(`${server.baseUrl}/login`);
      const attackerPage = await new TestBrowser().request(`${server.baseUrl}/login`);
      const response = await victim.request(`${server.baseUrl}/login`, {
        form: { _csrf: inputValue(attackerPage.body, '_csrf'), email: user.email, password: user.password, return_to: '/' },
      });
      assert.equal(response.status, 403);
    });

    test('a sign-in with a token but without the CSRF cookie (cross-site post) → 403', async () => {
      const page = await new TestBrowser().request(`${server.baseUrl}/login`);
      const response = await new TestBrowser().request(`${server.baseUrl}/login`, {
        form: { _csrf: inputValue(page.body, '_csrf'), email: user.email, password: user.password, return_to: '/' },
      });
      assert.equal(response.status, 403);
    });
  });
});

describe('consent form', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Consent <b>App</b> & "Co"', redirectUris: [REDIRECT_URI] });
  });
  after(async () => server.stop());

  async function consentPage(): Promise<{ browser: TestBrowser; page: BrowserResponse }> {
    const { user, password } = await server.createUser();
    const browser = new TestBrowser();
    const url = authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 's' });
    const signInPage = await browser.follow(url, server.baseUrl);
    const page = await signIn(browser, server.baseUrl, signInPage, user.email, password);
    assert.equal(page.status, 200);
    return { browser, page };
  }

  test('the client name is shown escaped', async () => {
    const { page } = await consentPage();
    assert.ok(!page.body.includes('<b>App</b>'), 'no markup from the client name');
    assert.ok(pageText(page.body).includes('Consent <b>App</b> & "Co"'), 'the name is shown as text');
  });

  test('a decision without the CSRF token → 403; no consent, no code', async () => {
    const { browser, page } = await consentPage();
    const before = await snapshotState(server);
    const response = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, {
      form: { authorization_request: inputValue(page.body, 'authorization_request'), decision: 'allow' },
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('location'), null);
    assert.deepEqual(await snapshotState(server), before);
  });

  test('a decision with a CSRF token from another browser → 403; no consent, no code', async () => {
    const { browser, page } = await consentPage();
    const { page: otherPage } = await consentPage();
    const before = await snapshotState(server);
    const response = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, {
      form: { _csrf: inputValue(otherPage.body, '_csrf'), authorization_request: inputValue(page.body, 'authorization_request'), decision: 'allow' },
    });
    assert.equal(response.status, 403);
    assert.deepEqual(await snapshotState(server), before);
  });
});

describe('pages cannot be framed', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('sign-in page, consent page, error page, home page and API responses', async () => {
    const client = await server.createClient({ redirectUris: [REDIRECT_URI] });
    const { user, password } = await server.createUser();
    const browser = new TestBrowser();
    const signInPage = await browser.follow(
      authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI }),
      server.baseUrl,
    );
    assertNotFrameable(signInPage);
    const consent = await signIn(browser, server.baseUrl, signInPage, user.email, password);
    assert.ok(consent.body.includes('/oauth2/authorize/decision'));
    assertNotFrameable(consent);
    assertNotFrameable(await browser.request(`${server.baseUrl}/oauth2/authorize?client_id=nope`));
    assertNotFrameable(await browser.request(`${server.baseUrl}/`));
    assertNotFrameable(await browser.request(`${server.baseUrl}/no-such-page`));
    assertNotFrameable(await browser.request(`${server.baseUrl}/oauth2/userinfo`));
  });

  test('the consent form may post only to Latch and the client origin (CSP form-action)', async () => {
    const client = await server.createClient({ redirectUris: [REDIRECT_URI] });
    const { user, password } = await server.createUser();
    const browser = new TestBrowser();
    const signInPage = await browser.follow(
      authorizeUrl(server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI }),
      server.baseUrl,
    );
    const consent = await signIn(browser, server.baseUrl, signInPage, user.email, password);
    const csp = consent.headers.get('content-security-policy') ?? '';
    assert.match(csp, /form-action 'self' https:\/\/app\.example\.com(;|$)/);
    assert.match(csp, /default-src 'none'/);
  });
});

describe('sign-in throttling', () => {
  describe('per account', () => {
    let server: TestServer;
    let user: { email: string; password: string };
    let other: { email: string; password: string };
    before(async () => {
      server = await startTestServer({
        env: { LATCH_TRUST_PROXY: '1', LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000' },
      });
      const a = await server.createUser();
      const b = await server.createUser();
      user = { email: a.user.email, password: a.password };
      other = { email: b.user.email, password: b.password };
    });
    after(async () => server.stop());

    test('after the limit of failures on one account, even the right password is refused, from any address', async () => {
      for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
        assert.equal((await attemptSignIn(server, user.email, 'wrong password!', { address })).status, 401);
      }
      const throttled = await attemptSignIn(server, user.email, user.password, { address: '10.0.0.99' });
      assert.equal(throttled.status, 429);
      assert.equal(throttled.headers.getSetCookie().some((c) => c.startsWith('latch_session=')), false);
      assert.ok(pageText(throttled.body).includes('Too many failed sign-in attempts'));
    });

    test('the account limit also applies to the email in another letter case', async () => {
      const throttled = await attemptSignIn(server, user.email.toUpperCase(), user.password, { address: '10.0.0.98' });
      assert.equal(throttled.status, 429);
    });

    test('other accounts from the same addresses are not affected', async () => {
      assert.equal((await attemptSignIn(server, other.email, other.password, { address: '10.0.0.1' })).status, 303);
    });

    test('an unknown email is throttled the same way, with the same answer', async () => {
      const unknown = 'ghost@example.com';
      for (let i = 0; i < 3; i++) await attemptSignIn(server, unknown, 'wrong password!', { address: '10.0.1.1' });
      const forUnknown = await attemptSignIn(server, unknown, 'wrong password!', { address: '10.0.1.2' });
      const forKnown = await attemptSignIn(server, user.email, 'wrong password!', { address: '10.0.1.3' });
      assert.equal(forUnknown.status, 429);
      assert.equal(forKnown.status, 429);
      assert.equal(normalizedPage(forUnknown, unknown), normalizedPage(forKnown, user.email));
    });
  });

  describe('per address', () => {
    let server: TestServer;
    let user: { email: string; password: string };
    before(async () => {
      server = await startTestServer({
        env: { LATCH_TRUST_PROXY: '1', LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1000', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '3' },
      });
      const a = await server.createUser();
      user = { email: a.user.email, password: a.password };
    });
    after(async () => server.stop());

    test('after the limit of failures from one address, that address is refused even for a valid account', async () => {
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
        assert.equal((await attemptSignIn(server, email, 'wrong password!', { address: '192.0.2.7' })).status, 401);
      }
      const throttled = await attemptSignIn(server, user.email, user.password, { address: '192.0.2.7' });
      assert.equal(throttled.status, 429);
    });

    test('another address still signs in', async () => {
      assert.equal((await attemptSignIn(server, user.email, user.password, { address: '192.0.2.8' })).status, 303);
    });
  });
});
