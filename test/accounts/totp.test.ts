/**
 * Authenticator apps (TOTP, RFC 6238) over real HTTP, with codes computed by the test (otpauth) from the key
 * the page shows: set-up confirmed by a first code, the secret stored only encrypted, sign-in in two steps,
 * a code accepted once, wrong codes throttled like passwords, a password reset that keeps the app, removal
 * only with the password or a current code, and mails for each change. On SQLite, or on PostgreSQL with
 * LATCH_TEST_DATABASE=postgres.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inputValue, pageText, TestBrowser } from '../helpers/browser.js';
import { fieldError, linkFromOutbox, signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, signInWithPassword, submitSecondFactor } from '../helpers/two-step.js';

describe('authenticator apps (TOTP)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '4' } });
  });
  after(async () => server.stop());

  const mailsTo = async (email: string) => (await server.storage.outbox.listRecent(1000)).filter((mail) => mail.to === email);

  test('set-up shows a QR code drawn by Latch and the key as text, refuses a wrong code, and turns on with a right one', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<img class="qr" src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"/, 'the QR code is an inline image, no outside service');
    assert.match(pageText(page.body), /Scan this QR code/);
    const key = inputValue(page.body, 'enrolment');
    const wrong = await browser.request(`${server.baseUrl}/account/two-step/app`, { form: { _csrf: inputValue(page.body, '_csrf'), enrolment: key, code: '000000' } });
    assert.equal(wrong.status, 400);
    assert.match(fieldError(wrong.body, 'code') ?? '', /not right/);
    assert.equal(await server.storage.secondFactors.findTotp(user.id), null, 'nothing stored before a right code');

    const { app, recoveryCodes } = await enrolAuthenticator(server, browser);
    assert.equal(recoveryCodes.length, 10);
    const stored = await server.storage.secondFactors.findTotp(user.id);
    assert.ok(stored);
    assert.ok(!stored.secretEncrypted.includes(app.secret), 'the secret is stored encrypted, never in clear');
    assert.match(stored.secretEncrypted, /^v1\./);
    assert.match((await mailsTo(user.email)).map((mail) => mail.subject).join('\n'), /authenticator app was added/);
    const manage = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.match(pageText(manage.body), /On Added/);
    assert.match(pageText(manage.body), /10 codes are left/);
  });

  test('a sign-in asks for the code after the password, before any session exists; the right code signs in and goes on', async () => {
    const { user, password } = await server.createUser();
    const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    const browser = new TestBrowser();
    const afterPassword = await signInWithPassword(server, browser, user.email, password, '/account');
    assert.equal(afterPassword.status, 303);
    assert.equal(afterPassword.headers.get('location'), '/login/two-step');
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 303, 'not signed in yet');
    const factorPage = await browser.request(`${server.baseUrl}/login/two-step`);
    assert.equal(factorPage.status, 200);
    assert.match(pageText(factorPage.body), /Enter the 6-digit code from your authenticator app/);
    assert.match(factorPage.body, /<a href="\/login\/two-step\?method=recovery">Use a recovery code<\/a>/);

    // A code of ten minutes ago: right once, long outside the window.
    const wrong = await submitSecondFactor(server, browser, app.codeAtStep(Math.floor(Date.now() / 30_000) - 20));
    assert.equal(wrong.status, 401);
    assert.match(pageText(wrong.body), /not right, or was already used/);
    const done = await submitSecondFactor(server, browser, await app.freshCode());
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/account');
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 200, 'signed in');
    assert.equal((await browser.request(`${server.baseUrl}/login/two-step`)).status, 303, 'the pending sign-in is over');
  });

  test('a code is accepted once: the same code in another sign-in (or the set-up code) is refused (RFC 6238 §5.2)', async () => {
    const { user, password } = await server.createUser();
    const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    const setupStep = Math.floor(Date.now() / 30_000);
    const first = new TestBrowser();
    await signInWithPassword(server, first, user.email, password);
    const setupCode = app.codeAtStep(setupStep);
    // The set-up code's step was recorded as used: it is refused, whether or not the step has turned since.
    assert.equal((await submitSecondFactor(server, first, setupCode)).status, 401, 'the code that confirmed the set-up');
    const code = await app.freshCode();
    assert.equal((await submitSecondFactor(server, first, code)).status, 303);
    const second = new TestBrowser();
    await signInWithPassword(server, second, user.email, password);
    const replay = await submitSecondFactor(server, second, code);
    assert.equal(replay.status, 401);
    assert.equal((await second.request(`${server.baseUrl}/account`)).status, 303, 'no session from a replayed code');
  });

  test('without a correct password there is no second step: /login/two-step sends back to /login', async () => {
    const browser = new TestBrowser();
    const page = await browser.request(`${server.baseUrl}/login/two-step`);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/login');
    const { user } = await server.createUser();
    await signInWithPassword(server, browser, user.email, 'not the password');
    assert.equal((await browser.request(`${server.baseUrl}/login/two-step`)).status, 303);
  });

  test('wrong codes are throttled like passwords: after the limit even the right code is refused with 429, and the password again does not reset the count', async () => {
    const { user, password } = await server.createUser();
    const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    const browser = new TestBrowser();
    await signInWithPassword(server, browser, user.email, password);
    for (let i = 0; i < 3; i++) assert.equal((await submitSecondFactor(server, browser, '000000')).status, 401);
    // The password again (right) must not clear the account's failures.
    await signInWithPassword(server, browser, user.email, password);
    assert.equal((await submitSecondFactor(server, browser, '000001')).status, 401);
    const throttled = await submitSecondFactor(server, browser, await app.freshCode());
    assert.equal(throttled.status, 429);
    assert.match(pageText(throttled.body), /Too many failed attempts/);
    assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 303);
  });

  test('a password reset keeps the app: the next sign-in still asks for a code', async () => {
    const { user, password } = await server.createUser();
    const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    const link = await linkFromOutbox(server, user.email, '/reset-password');
    const browser = new TestBrowser();
    const form = await browser.request(link);
    const reset = await browser.request(`${server.baseUrl}/reset-password`, { form: { _csrf: inputValue(form.body, '_csrf'), token: inputValue(form.body, 'token'), password: 'a brand new passphrase' } });
    assert.equal(reset.status, 303);
    assert.ok(await server.storage.secondFactors.findTotp(user.id), 'the app is still there');
    const afterPassword = await signInWithPassword(server, browser, user.email, 'a brand new passphrase');
    assert.equal(afterPassword.headers.get('location'), '/login/two-step');
    assert.equal((await submitSecondFactor(server, browser, await app.freshCode())).status, 303);
  });

  test('removing the app needs the password or a current code; then sign-in needs the password only, and the owner is mailed', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const { app } = await enrolAuthenticator(server, browser);
    const refused = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: 'guess' });
    assert.equal(refused.status, 400);
    assert.match(fieldError(refused.body, 'remove-proof') ?? '', /neither your password nor a current code/);
    assert.ok(await server.storage.secondFactors.findTotp(user.id));

    const removed = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: await app.freshCode() });
    assert.equal(removed.status, 303);
    assert.equal(removed.headers.get('location'), '/account/two-step?notice=app-removed');
    assert.equal(await server.storage.secondFactors.findTotp(user.id), null);
    assert.deepEqual(await server.storage.secondFactors.listRecoveryCodes(user.id), [], 'the recovery codes went with it');
    assert.match((await mailsTo(user.email)).map((mail) => mail.subject).join('\n'), /authenticator app was removed/);
    const again = await signInWithPassword(server, new TestBrowser(), user.email, password);
    assert.equal(again.headers.get('location'), '/');

    // With the password as the proof, too.
    await enrolAuthenticator(server, browser);
    const withPassword = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: password });
    assert.equal(withPassword.status, 303);
    assert.equal(await server.storage.secondFactors.findTotp(user.id), null);
  });

  test('wrong proofs for a change count like failed sign-ins: after the limit even the password is refused (429)', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    await enrolAuthenticator(server, browser);
    for (let i = 0; i < 4; i++) {
      assert.equal((await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: `guess ${i}` })).status, 400);
    }
    const throttled = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: password });
    assert.equal(throttled.status, 429);
    assert.match(fieldError(throttled.body, 'remove-proof') ?? '', /Too many wrong attempts/);
    assert.ok(await server.storage.secondFactors.findTotp(user.id), 'still on');
  });

  test('the two-step pages need a session and a CSRF token', async () => {
    const anonymous = await new TestBrowser().request(`${server.baseUrl}/account/two-step`);
    assert.equal(anonymous.status, 303);
    assert.match(anonymous.headers.get('location') ?? '', /^\/login\?return_to=%2Faccount%2Ftwo-step/);
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    const forged = await browser.request(`${server.baseUrl}/account/two-step/app`, { form: { enrolment: inputValue(page.body, 'enrolment'), code: '000000' } });
    assert.equal(forged.status, 403);
  });
});
