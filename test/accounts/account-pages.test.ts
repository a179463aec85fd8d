import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { issueEmailLink } from '../../src/accounts/email-links.js';
import { ACCOUNT_NOTICES } from '../../src/views/pages/account-page.js';
import { translator } from '../../src/i18n/translator.js';
import { solidPng } from '../helpers/chromium.js';
import { inputValue, pageText, TestBrowser } from '../helpers/browser.js';
import { authorize, exchangeCode } from '../helpers/oauth-flow.js';
import { fieldError, linkFromOutbox, signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('sign-up, email verification and password reset', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  async function signUp(browser: TestBrowser, email: string, password = 'correct horse battery staple') {
    return submitForm(browser, server.baseUrl, '/signup', '/signup', { return_to: '/', name: 'Grace Hopper', email, password });
  }

  test('sign-up rejects a weak password with the reason next to the field and creates no account', async () => {
    const browser = new TestBrowser();
    const response = await signUp(browser, 'weak@example.com', 'aaaaaaaaaaaa');
    assert.equal(response.status, 400);
    assert.match(fieldError(response.body, 'password') ?? '', /one character repeated/);
    assert.match(response.body, /aria-invalid="true"/);
    assert.equal(await server.storage.users.findByEmail('weak@example.com'), null);
  });

  test('sign-up creates an unverified account, signs in and mails a verification link', async () => {
    const browser = new TestBrowser();
    const response = await signUp(browser, 'new@example.com');
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/account?notice=welcome');
    const user = await server.storage.users.findByEmail('new@example.com');
    assert.equal(user?.emailVerified, false);
    const account = await browser.request(`${server.baseUrl}/account`);
    assert.equal(account.status, 200);
    assert.match(pageText(account.body), /not verified/);
    await linkFromOutbox(server, 'new@example.com', '/verify-email');
  });

  test('sign-up refuses an email that already has an account', async () => {
    await server.createUser({ email: 'taken@example.com' });
    const response = await signUp(new TestBrowser(), 'TAKEN@example.com');
    assert.equal(response.status, 400);
    assert.match(fieldError(response.body, 'email') ?? '', /already exists/);
  });

  test('an email verification link verifies the address once, and only once', async () => {
    const browser = new TestBrowser();
    await signUp(browser, 'verify-once@example.com');
    const link = await linkFromOutbox(server, 'verify-once@example.com', '/verify-email');
    // Opening the link (as a mail scanner would) does not use it.
    const page = await browser.request(link);
    assert.equal(page.status, 200);
    assert.equal((await server.storage.users.findByEmail('verify-once@example.com'))?.emailVerified, false);
    const token = inputValue(page.body, 'token');
    const confirmed = await browser.request(`${server.baseUrl}/verify-email`, { form: { _csrf: inputValue(page.body, '_csrf'), token } });
    assert.equal(confirmed.status, 200);
    assert.equal((await server.storage.users.findByEmail('verify-once@example.com'))?.emailVerified, true);
    const again = await browser.request(`${server.baseUrl}/verify-email`, { form: { _csrf: inputValue(page.body, '_csrf'), token } });
    assert.equal(again.status, 400);
    assert.match(pageText(again.body), /no longer works/);
    assert.equal((await browser.request(link)).status, 400);
  });

  test('a signed-in, unverified user can ask for a new verification link, a limited number of times', async () => {
    const browser = new TestBrowser();
    await signUp(browser, 'resend@example.com');
    const count = async () => (await server.storage.outbox.listRecent(1000)).filter((m) => m.to === 'resend@example.com').length;
    assert.equal(await count(), 1);
    const resent = await submitForm(browser, server.baseUrl, '/account', '/account/verification-email', {});
    assert.equal(resent.headers.get('location'), '/account?notice=verification-sent');
    assert.equal(await count(), 2);
    for (let i = 0; i < 6; i++) await submitForm(browser, server.baseUrl, '/account', '/account/verification-email', {});
    assert.equal(await count(), 6, 'at most five resends an hour');
  });

  test('an expired verification link is refused', async () => {
    const { user } = await server.createUser({ emailVerified: false });
    const twoDaysAgo = new Date(Date.now() - 2 * 86400 * 1000);
    const link = await issueEmailLink(server.storage, server.config, user, 'verify_email', twoDaysAgo);
    const page = await new TestBrowser().request(link);
    assert.equal(page.status, 400);
    assert.match(pageText(page.body), /expired or was already used/);
  });

  test('the database holds only a hash of an email link token', async () => {
    const { user } = await server.createUser();
    const link = await issueEmailLink(server.storage, server.config, user, 'reset_password');
    const token = new URL(link).searchParams.get('token') ?? '';
    const row = await (server.storage as any).db.selectFrom('email_links').selectAll().where('user_id', '=', user.id).executeTakeFirst();
    assert.ok(row);
    assert.notEqual(row.token_hash, token);
    assert.ok(!JSON.stringify(row).includes(token));
  });

  test('password reset answers the same for unknown emails and mails nothing', async () => {
    const before = (await server.storage.outbox.listRecent(1000)).length;
    const unknown = await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: 'nobody@example.com' });
    const { user } = await server.createUser();
    const known = await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    assert.equal(unknown.status, 200);
    assert.equal(known.status, 200);
    assert.equal(pageText(unknown.body).replace('nobody@example.com', 'X'), pageText(known.body).replace(user.email, 'X'));
    assert.equal((await server.storage.outbox.listRecent(1000)).length, before + 1);
  });

  test('password reset sets the new password, ends every session, and the link works once', async () => {
    const { user, password } = await server.createUser();
    const otherBrowser = await signedInBrowser(server, user.email, password);
    await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    const link = await linkFromOutbox(server, user.email, '/reset-password');
    const browser = new TestBrowser();
    const form = await browser.request(link);
    assert.equal(form.status, 200);
    const token = inputValue(form.body, 'token');
    const csrf = inputValue(form.body, '_csrf');

    // A password that fails the rules is explained and does not use up the link.
    const weak = await browser.request(`${server.baseUrl}/reset-password`, { form: { _csrf: csrf, token, password: 'short' } });
    assert.equal(weak.status, 400);
    assert.match(fieldError(weak.body, 'password') ?? '', /at least 10 characters/);

    const done = await browser.request(`${server.baseUrl}/reset-password`, { form: { _csrf: csrf, token, password: 'a brand new passphrase' } });
    assert.equal(done.status, 303);
    assert.match(done.headers.get('location') ?? '', /^\/login\?notice=password-reset/);
    assert.equal((await otherBrowser.request(`${server.baseUrl}/account`)).status, 303, 'the other session was ended');
    await signedInBrowser(server, user.email, 'a brand new passphrase');

    const reused = await browser.request(`${server.baseUrl}/reset-password`, { form: { _csrf: csrf, token, password: 'yet another passphrase' } });
    assert.equal(reused.status, 400);
    assert.match(pageText(reused.body), /no longer works/);
  });

  test('an expired password reset link is refused', async () => {
    const { user } = await server.createUser();
    const link = await issueEmailLink(server.storage, server.config, user, 'reset_password', new Date(Date.now() - 2 * 3600 * 1000));
    assert.equal((await new TestBrowser().request(link)).status, 400);
  });
});

describe('sign-up turned off', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_SIGNUP_ENABLED: '0' } });
  });
  after(async () => server.stop());

  test('LATCH_SIGNUP_ENABLED=0 refuses the sign-up page and form and hides the link', async () => {
    const browser = new TestBrowser();
    const page = await browser.request(`${server.baseUrl}/signup`);
    assert.equal(page.status, 400);
    assert.match(pageText(page.body), /Sign-up is turned off/);
    const login = await browser.request(`${server.baseUrl}/login`);
    assert.doesNotMatch(login.body, /href="\/signup/);
    const post = await browser.request(`${server.baseUrl}/signup`, {
      form: { _csrf: inputValue(login.body, '_csrf'), name: 'X', email: 'x@example.com', password: 'correct horse battery staple' },
    });
    assert.equal(post.status, 400);
    assert.equal(await server.storage.users.findByEmail('x@example.com'), null);
  });
});

describe('account page', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('the account page needs a session and sends the browser to sign in', async () => {
    const response = await new TestBrowser().request(`${server.baseUrl}/account`);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/login?return_to=%2Faccount');
  });

  test('editing the profile saves the name and avatar URL and rejects a bad URL next to the field', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const bad = await submitForm(browser, server.baseUrl, '/account', '/account/profile', { name: 'New Name', avatar_url: 'javascript:alert(1)' });
    assert.equal(bad.status, 400);
    assert.ok(fieldError(bad.body, 'avatar_url'));
    const ok = await submitForm(browser, server.baseUrl, '/account', '/account/profile', { name: 'New Name', avatar_url: 'https://img.example.com/me.png' });
    assert.equal(ok.status, 303);
    const saved = await server.storage.users.findById(user.id);
    assert.equal(saved?.name, 'New Name');
    assert.equal(saved?.avatarUrl, 'https://img.example.com/me.png');
  });

  test('a form field sent twice is a 400 that says so, and nothing is saved', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account`);
    const cookie = await browser.jar.getCookieString(server.baseUrl);
    const body = new URLSearchParams([['_csrf', inputValue(page.body, '_csrf')], ['name', 'First'], ['name', 'Second']]);
    const response = await fetch(`${server.baseUrl}/account/profile`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /The form field name was sent more than once/);
    assert.equal((await server.storage.users.findById(user.id))?.name, user.name);
  });

  test('changing the password needs the current one and signs out the other sessions only', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const other = await signedInBrowser(server, user.email, password);
    const wrong = await submitForm(browser, server.baseUrl, '/account', '/account/password', { current_password: 'not it at all', new_password: 'another good passphrase' });
    assert.equal(wrong.status, 400);
    assert.ok(fieldError(wrong.body, 'current_password'));
    const changed = await submitForm(browser, server.baseUrl, '/account', '/account/password', { current_password: password, new_password: 'another good passphrase' });
    assert.equal(changed.status, 303);
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 200, 'this session stays');
    assert.equal((await other.request(`${server.baseUrl}/account`)).status, 303, 'the other session ended');
  });

  test('wrong current passwords count like failed sign-ins: past the limit even the right one is refused (429), and nothing changes', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const limit = server.config.signInMaxFailuresPerAccount;
    for (let attempt = 1; attempt <= limit; attempt += 1) {
      const wrong = await submitForm(browser, server.baseUrl, '/account', '/account/password', { current_password: `guess ${attempt}`, new_password: 'another good passphrase' });
      assert.equal(wrong.status, 400, `attempt ${attempt}`);
    }
    const limited = await submitForm(browser, server.baseUrl, '/account', '/account/password', { current_password: password, new_password: 'another good passphrase' });
    assert.equal(limited.status, 429, 'a borrowed signed-in browser is no way around the sign-in limit');
    assert.match(fieldError(limited.body, 'current_password') ?? '', /Too many wrong passwords/);
    const stored = await server.storage.users.findById(user.id);
    assert.equal(stored?.passwordHash, user.passwordHash, 'the password did not change');
    // One count with the sign-in page: the account's sign-in is held back too.
    const refused = await submitForm(new TestBrowser(), server.baseUrl, '/login', '/login', { email: user.email, password });
    assert.equal(refused.status, 429);
  });

  test('the sessions list can end another session of the same user', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const other = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account`);
    const sessions = await server.storage.browserSessions.listByUser(user.id, new Date());
    assert.equal(sessions.length, 2);
    const otherHash = sessions.find((s) => page.body.includes(`name="session" value="${s.sessionHash}"`))?.sessionHash;
    assert.ok(otherHash, 'the other session has a Sign out button');
    const ended = await browser.request(`${server.baseUrl}/account/sessions/end`, { form: { _csrf: inputValue(page.body, '_csrf'), session: otherHash } });
    assert.equal(ended.status, 303);
    assert.equal((await other.request(`${server.baseUrl}/account`)).status, 303);
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 200);
  });

  test('a session of another person is never ended from the account page', async () => {
    const mine = await server.createUser();
    const theirs = await server.createUser();
    const browser = await signedInBrowser(server, mine.user.email, mine.password);
    const victim = await signedInBrowser(server, theirs.user.email, theirs.password);
    const [victimSession] = await server.storage.browserSessions.listByUser(theirs.user.id, new Date());
    const page = await browser.request(`${server.baseUrl}/account`);
    const attempt = await browser.request(`${server.baseUrl}/account/sessions/end`, { form: { _csrf: inputValue(page.body, '_csrf'), session: victimSession!.sessionHash } });
    assert.equal(attempt.status, 303);
    assert.equal((await victim.request(`${server.baseUrl}/account`)).status, 200, 'their session is untouched');
  });

  test('"Sign out everywhere" ends every session of the person, this one included, and no one else\'s', async () => {
    const { user, password } = await server.createUser();
    const browsers = [await signedInBrowser(server, user.email, password), await signedInBrowser(server, user.email, password), await signedInBrowser(server, user.email, password)];
    const bystander = await server.createUser();
    const other = await signedInBrowser(server, bystander.user.email, bystander.password);
    const page = await browsers[0]!.request(`${server.baseUrl}/account`);
    assert.match(page.body, /<form method="post" action="\/account\/sessions\/end-all">/);
    assert.match(page.body, /<button type="submit"[^>]*>Sign out everywhere<\/button>/);

    const ended = await browsers[0]!.request(`${server.baseUrl}/account/sessions/end-all`, { form: { _csrf: inputValue(page.body, '_csrf') } });
    assert.equal(ended.status, 303);
    assert.equal(ended.headers.get('location'), '/login?notice=signed-out-everywhere');
    assert.ok(ended.headers.getSetCookie().some((cookie) => /^latch_session=;/.test(cookie)), 'this browser\'s cookie is cleared');
    for (const browser of browsers) assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 303, 'signed out');
    assert.deepEqual(await server.storage.browserSessions.listByUser(user.id, new Date()), []);
    assert.equal((await other.request(`${server.baseUrl}/account`)).status, 200, 'another person stays signed in');
    const login = await browsers[0]!.request(`${server.baseUrl}/login?notice=signed-out-everywhere`);
    assert.match(pageText(login.body), /You were signed out of Latch everywhere/);
  });

  test('"Sign out everywhere" needs the form\'s CSRF token: without it nothing ends (403)', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const refused = await browser.request(`${server.baseUrl}/account/sessions/end-all`, { form: {} });
    assert.equal(refused.status, 403);
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 200);
  });

  test('connected apps say "Not used yet" until the app exchanges a code, then when it last used its access', async () => {
    const client = await server.createClient({ name: 'Lazy App' });
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const redirect = await authorize(browser, server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile' }, { email: user.email, password });
    assert.match(pageText((await browser.request(`${server.baseUrl}/account`)).body), /Lazy App.*Not used yet\./);
    const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '' });
    assert.equal(token.status, 200);
    let text = '';
    for (let i = 0; i < 50 && !/Lazy App.*Last used /.test(text); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      text = pageText((await browser.request(`${server.baseUrl}/account`)).body);
    }
    assert.match(text, /Lazy App.*Last used /);
    assert.ok((await server.storage.consents.listByUser(user.id))[0]?.lastUsedAt, 'stored with the consent');
  });

  test('Remove access withdraws the consent and revokes that app’s tokens', async () => {
    const client = await server.createClient({ name: 'Connected App' });
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const redirect = await authorize(browser, server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile' }, { email: user.email, password });
    const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '' });
    assert.equal(token.status, 200);
    const userinfo = () => fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal((await userinfo()).status, 200);

    const account = await browser.request(`${server.baseUrl}/account`);
    assert.match(pageText(account.body), /Connected App.*Can see: Your email address, name and avatar/);
    // The exchange above is when the app last used its access (recorded beside the token response).
    assert.match(pageText(account.body), /Connected App.*Last used /);
    const removed = await browser.request(`${server.baseUrl}/account/apps/remove`, { form: { _csrf: inputValue(account.body, '_csrf'), client_id: client.clientId } });
    assert.equal(removed.status, 303);
    assert.equal((await userinfo()).status, 401);
    assert.equal(await server.storage.consents.find(user.id, client.clientId), null);
    // Gone from the connected apps (Recent activity keeps naming it: "Removed an app’s access").
    const after = parseHtml((await browser.request(`${server.baseUrl}/account`)).body).querySelector('#apps')?.textContent ?? '';
    assert.match(after, /You have not allowed any app/);
    assert.doesNotMatch(after, /Connected App/);
  });

  test('sign out from the account page ends the session', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const out = await submitForm(browser, server.baseUrl, '/account', '/logout', {});
    assert.equal(out.status, 303);
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 303);
  });
});

describe('account page: sections, sessions told apart, notices beside the change, one picture form (issue 19 item 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
  const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1';

  /** A browser that signs in and sends this User-Agent on every request. */
  async function signInAs(email: string, password: string, userAgent: string) {
    const browser = new TestBrowser();
    const headers = { 'user-agent': userAgent };
    const request = (url: string, init: Parameters<TestBrowser['request']>[1] = {}) => browser.request(url, { ...init, headers: { ...headers, ...init.headers } });
    const login = await request(`${server.baseUrl}/login`);
    const signedIn = await request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(login.body, '_csrf'), return_to: '/', email, password } });
    assert.equal(signedIn.status, 303);
    return { browser, request };
  }

  /** Posts the picture form as the browser does (multipart/form-data), with this browser's cookies. */
  async function postPictureForm(browser: TestBrowser, fields: Record<string, string>, file?: { name: string; type: string; data: Buffer }) {
    const page = await browser.request(`${server.baseUrl}/account`);
    const form = new FormData();
    form.set('_csrf', inputValue(page.body, '_csrf'));
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    form.set('avatar', file ? new Blob([new Uint8Array(file.data)], { type: file.type }) : new Blob([], { type: 'application/octet-stream' }), file?.name ?? '');
    const url = `${server.baseUrl}/account/avatar`;
    const response = await fetch(url, { method: 'POST', body: form, redirect: 'manual', headers: { cookie: await browser.jar.getCookieString(url) } });
    for (const setCookie of response.headers.getSetCookie()) await browser.jar.setCookie(setCookie, url);
    return { status: response.status, location: response.headers.get('location'), body: await response.text() };
  }

  const section = (html: string, id: string) => parseHtml(html).querySelector(`#${id}`);
  const noticeIn = (html: string, id: string) => section(html, id)?.querySelector('[role=status]')?.textContent.trim();

  test('the page is organised in sections a person can find: profile, security (password, two-step, sessions), connected apps, activity', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = parseHtml((await browser.request(`${server.baseUrl}/account`)).body);
    assert.deepEqual(page.querySelectorAll('nav.section-nav a').map((a) => a.getAttribute('href')), ['#profile', '#security', '#apps', '#activity']);
    assert.deepEqual(page.querySelectorAll('main h2').map((h) => h.textContent.trim()), ['Profile', 'Security', 'Connected apps', 'Recent activity']);
    assert.deepEqual(page.querySelectorAll('#security h3').map((h) => h.textContent.trim()), ['Password', 'Two-step verification', 'Where you are signed in']);
    assert.match(page.querySelector('#two-step')?.textContent.replace(/\s+/g, ' ') ?? '', /Authenticator app: none\s*Passkeys: none/);
  });

  test('sessions are told apart by browser, system, address and last activity; this device is marked, and each button says what it does', async () => {
    const { user, password } = await server.createUser();
    const laptop = await signInAs(user.email, password, FIREFOX_WINDOWS);
    await signInAs(user.email, password, SAFARI_IPHONE);
    const page = parseHtml((await laptop.request(`${server.baseUrl}/account`)).body);
    const items = page.querySelectorAll('#sessions ul.plain > li');
    assert.equal(items.length, 2);
    const [mine, phone] = items.map((li) => li.textContent.replace(/\s+/g, ' ').trim());
    assert.match(mine ?? '', /^Firefox 133 on Windows This device 127\.0\.0\.1 · last active \d{4}-\d\d-\d\d \d\d:\d\d UTC · signed in /);
    assert.match(phone ?? '', /^Safari 17 on iPhone 127\.0\.0\.1 · last active /);
    assert.doesNotMatch(phone ?? '', /This device/);
    const buttons = items.map((li) => [li.querySelector('form')?.getAttribute('action'), li.querySelector('button')?.textContent.trim(), li.querySelector('button')?.getAttribute('aria-label')]);
    assert.deepEqual(buttons, [
      ['/logout', 'Sign out this device', undefined],
      ['/account/sessions/end', 'Sign out', 'Sign out Safari 17 on iPhone, 127.0.0.1'],
    ]);
  });

  test('signing out another device: the notice beside the list names it; a reload or a crafted link shows only the general words', async () => {
    const { user, password } = await server.createUser();
    const laptop = await signInAs(user.email, password, FIREFOX_WINDOWS);
    const phone = await signInAs(user.email, password, SAFARI_IPHONE);
    const page = await laptop.request(`${server.baseUrl}/account`);
    const phoneSession = parseHtml(page.body).querySelector('#sessions input[name=session]')?.getAttribute('value') ?? '';
    const ended = await laptop.request(`${server.baseUrl}/account/sessions/end`, { form: { _csrf: inputValue(page.body, '_csrf'), session: phoneSession } });
    assert.equal(ended.status, 303);
    assert.equal(ended.headers.get('location'), '/account?notice=session-ended#sessions');
    const after = await laptop.request(`${server.baseUrl}/account?notice=session-ended`);
    assert.equal(noticeIn(after.body, 'sessions'), 'Signed out Safari 17 on iPhone, 127.0.0.1. That device must sign in again to use your account.');
    assert.equal(noticeIn(after.body, 'profile'), undefined, 'only beside the sessions');
    assert.equal((await phone.request(`${server.baseUrl}/account`)).status, 303, 'the phone is signed out');
    const reload = await laptop.request(`${server.baseUrl}/account?notice=session-ended`);
    assert.equal(noticeIn(reload.body, 'sessions'), 'That session was signed out.');
    const crafted = await laptop.request(`${server.baseUrl}/account?notice=session-ended&subject=Everything`);
    assert.equal(noticeIn(crafted.body, 'sessions'), 'That session was signed out.', 'nothing in the URL is shown');
  });

  test('"Remove access": the notice beside the connected apps names the app', async () => {
    const client = await server.createClient({ name: 'Orbit Notes' });
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    await authorize(browser, server.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile' }, { email: user.email, password });
    const removed = await submitForm(browser, server.baseUrl, '/account', '/account/apps/remove', { client_id: client.clientId });
    assert.equal(removed.headers.get('location'), '/account?notice=access-removed#apps');
    const page = await browser.request(`${server.baseUrl}/account?notice=access-removed`);
    assert.equal(noticeIn(page.body, 'apps'), 'Orbit Notes can no longer access your account, and the tokens it held stopped working.');
    // A second post for an app that has no access any more names nothing.
    const again = await submitForm(browser, server.baseUrl, '/account', '/account/apps/remove', { client_id: client.clientId });
    assert.equal(again.status, 303);
    assert.equal(noticeIn((await browser.request(`${server.baseUrl}/account?notice=access-removed`)).body, 'apps'), translator('en').t(ACCOUNT_NOTICES['access-removed']));
  });

  test('saving the name: the notice beside the name field says the new name, and the picture is left as it was', async () => {
    const { user, password } = await server.createUser({ avatarUrl: 'https://img.example.com/kept.png' });
    const browser = await signedInBrowser(server, user.email, password);
    const saved = await submitForm(browser, server.baseUrl, '/account', '/account/profile', { name: 'Katherine Johnson' });
    assert.equal(saved.headers.get('location'), '/account?notice=profile-saved#profile');
    const page = await browser.request(`${server.baseUrl}/account?notice=profile-saved`);
    assert.equal(noticeIn(page.body, 'profile'), 'Your name is now Katherine Johnson.');
    assert.equal((await server.storage.users.findById(user.id))?.avatarUrl, 'https://img.example.com/kept.png');
  });

  test('one form for the picture: an address, an upload, "Remove picture", and nothing chosen (an error beside the file field)', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = parseHtml((await browser.request(`${server.baseUrl}/account`)).body);
    const form = page.querySelector('form[action="/account/avatar"]');
    assert.equal(form?.getAttribute('enctype'), 'multipart/form-data');
    assert.ok(form?.querySelector('input[type=file][name=avatar]') && form.querySelector('input[type=url][name=avatar_url]'), 'the file and the address in the same form');
    assert.equal(page.querySelectorAll('form[action="/account/avatar/remove"]').length, 0, 'no second form');

    const none = await postPictureForm(browser, { action: 'save' });
    assert.equal(none.status, 400);
    // Told as a sentence, full stop included (issue 19 item 2).
    assert.equal(fieldError(none.body, 'avatar_file'), 'Choose an image file to upload, or enter the address of a picture.');

    const badUrl = await postPictureForm(browser, { action: 'save', avatar_url: 'javascript:alert(1)' });
    assert.equal(badUrl.status, 400);
    assert.ok(fieldError(badUrl.body, 'avatar_url'));
    // Apps receive the address as given (avatar_url, picture): plain http, a control character or a user name is refused.
    const before = (await server.storage.users.findById(user.id))?.avatarUrl;
    for (const [avatarUrl, error] of [
      ['http://img.example.com/me.png', 'Avatar URL must be an https:// URL.'],
      ['https://img.example.com/a\u0001 b.png', 'Avatar URL must not contain spaces, control characters or invisible text-direction marks.'],
      ['https://user:pw@img.example.com/me.png', 'Avatar URL must not contain a user name or password.'],
    ] as const) {
      const refused = await postPictureForm(browser, { action: 'save', avatar_url: avatarUrl });
      assert.equal(refused.status, 400, avatarUrl);
      assert.equal(fieldError(refused.body, 'avatar_url'), error, avatarUrl);
      assert.equal((await server.storage.users.findById(user.id))?.avatarUrl, before, avatarUrl);
    }

    const byAddress = await postPictureForm(browser, { action: 'save', avatar_url: 'https://img.example.com/me.png' });
    assert.deepEqual([byAddress.status, byAddress.location], [303, '/account?notice=avatar-saved#profile']);
    assert.equal((await server.storage.users.findById(user.id))?.avatarUrl, 'https://img.example.com/me.png');
    assert.equal(noticeIn((await browser.request(`${server.baseUrl}/account?notice=avatar-saved`)).body, 'profile'), 'Your picture now comes from img.example.com.');

    const uploaded = await postPictureForm(browser, { action: 'save' }, { name: 'me.png', type: 'image/png', data: solidPng(8, 8, [1, 2, 3]) });
    assert.deepEqual([uploaded.status, uploaded.location], [303, '/account?notice=avatar-uploaded#profile']);
    assert.match((await server.storage.users.findById(user.id))?.avatarUrl ?? '', /\/avatars\//);

    const withRemove = parseHtml((await browser.request(`${server.baseUrl}/account`)).body).querySelector('form[action="/account/avatar"] button[value=remove]');
    assert.equal(withRemove?.textContent.trim(), 'Remove picture');
    const removed = await postPictureForm(browser, { action: 'remove' });
    assert.deepEqual([removed.status, removed.location], [303, '/account?notice=avatar-removed#profile']);
    assert.equal((await server.storage.users.findById(user.id))?.avatarUrl, null);
  });
});
