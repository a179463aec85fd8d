/**
 * Adding and removing a passkey need the account's password or a current code from its authenticator app, as
 * the other two-step changes do (docs/protocol-decisions.md "Second factors and passkeys": changes need proof),
 * over real HTTP: no registration challenge without the proof (and no registration without that challenge), no
 * removal without it, wrong proofs counted in the sign-in throttle with the app's removal and the new recovery
 * codes. The ceremonies themselves, with a virtual authenticator, are in test/browser/passkeys.test.ts. On
 * SQLite, or on PostgreSQL with LATCH_TEST_DATABASE=postgres.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { fieldError, signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, signInWithPassword } from '../helpers/two-step.js';

describe('passkey changes need proof', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '4' } });
  });
  after(async () => server.stop());

  const mailsTo = async (email: string) => (await server.storage.outbox.listRecent(1000)).filter((mail) => mail.to === email);

  /** A JSON post as /assets/passkeys.js makes it: the page's CSRF token as `_csrf` in the body, the browser's cookies. */
  async function postJson(browser: TestBrowser, path: string, body: Record<string, unknown>) {
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.equal(page.status, 200);
    const url = `${server.baseUrl}${path}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: await browser.jar.getCookieString(url) },
      body: JSON.stringify({ _csrf: inputValue(page.body, '_csrf'), ...body }),
      redirect: 'manual',
    });
    const setCookies = response.headers.getSetCookie();
    for (const setCookie of setCookies) await browser.jar.setCookie(setCookie, url);
    const text = await response.text();
    return { status: response.status, setCookies, body: text, json: () => JSON.parse(text) as Record<string, unknown> };
  }

  const challengeCookie = (setCookies: string[]) => setCookies.find((cookie) => /^(__Host-)?latch_webauthn=[^;]/.test(cookie));

  async function addPasskey(userId: number, credentialId: string, name: string) {
    assert.ok(
      await server.storage.passkeys.insert({ credentialId, userId, publicKey: new Uint8Array([1]), counter: 0, transports: [], aaguid: 'a', backupEligible: false, backedUp: false, name, createdAt: new Date(), lastUsedAt: null }),
    );
  }

  test('no registration options without the password or a current code: missing or wrong, a JSON error and no challenge', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const { app } = await enrolAuthenticator(server, browser);
    for (const body of [{}, { proof: 'not my password' }, { proof: app.codeAtStep(Math.floor(Date.now() / 30_000) - 20) }]) {
      const refused = await postJson(browser, '/account/passkeys/options', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.deepEqual(refused.json(), { error: 'invalid_proof', error_description: 'This is neither your password nor a current code from your app.' });
      assert.equal(challengeCookie(refused.setCookies), undefined, 'no registration challenge handed out');
    }
    const withPassword = await postJson(browser, '/account/passkeys/options', { proof: password });
    assert.equal(withPassword.status, 200, withPassword.body.slice(0, 200));
    assert.equal(typeof withPassword.json().challenge, 'string');
    assert.ok(challengeCookie(withPassword.setCookies), 'the challenge is sealed in its cookie');
    const withCode = await postJson(browser, '/account/passkeys/options', { proof: await app.freshCode() });
    assert.equal(withCode.status, 200, withCode.body.slice(0, 200));
    // A plain form post is held to the same rule (the limit of wrong proofs is 4 here: this is the last one).
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    const form = await browser.request(`${server.baseUrl}/account/passkeys/options`, { form: { _csrf: inputValue(page.body, '_csrf'), proof: 'guess' } });
    assert.equal(form.status, 400);
    assert.equal(challengeCookie(form.headers.getSetCookie()), undefined);
  });

  test('the registration step cannot skip the proof: without the challenge of a proven /options it is refused, and nothing is stored', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    assert.equal((await postJson(browser, '/account/passkeys/options', { proof: 'guess' })).status, 400);
    const credential = { id: 'bm90LWEta2V5', rawId: 'bm90LWEta2V5', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', attestationObject: 'oA', transports: [] } };
    const registered = await postJson(browser, '/account/passkeys', { credential, name: 'Stranger key' });
    assert.equal(registered.status, 400);
    assert.deepEqual(registered.json(), { error: 'invalid_request', error_description: 'This passkey request has expired. Try again.' });
    // A challenge of another ceremony (a passkey sign-in's, whose options anyone can ask for) is not one either.
    const signInOptions = await postJson(browser, '/login/passkey/options', {});
    assert.equal(signInOptions.status, 200);
    assert.ok(challengeCookie(signInOptions.setCookies));
    const again = await postJson(browser, '/account/passkeys', { credential, name: 'Stranger key' });
    assert.equal(again.status, 400);
    assert.match(String(again.json().error_description), /request has expired/);
    assert.deepEqual(await server.storage.passkeys.listByUser(user.id), []);
    assert.ok(!(await mailsTo(user.email)).some((mail) => /passkey was added/.test(mail.subject)));
  });

  test('removing a passkey needs the password or a current code: a wrong one re-renders the page with the error beside that passkey’s field, and removes nothing', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const { app } = await enrolAuthenticator(server, browser);
    await addPasskey(user.id, `proof-a-${user.id}`, 'Phone');
    await addPasskey(user.id, `proof-b-${user.id}`, 'Work laptop');

    const attempts: Record<string, string>[] = [{ credential_id: `proof-b-${user.id}` }, { credential_id: `proof-b-${user.id}`, proof: 'not my password' }];
    for (const form of attempts) {
      const refused = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', form);
      assert.equal(refused.status, 400);
      assert.match(fieldError(refused.body, 'remove-passkey-proof-2') ?? '', /neither your password nor a current code/, 'beside the second passkey’s field');
      assert.equal(fieldError(refused.body, 'remove-passkey-proof-1'), undefined, 'not beside the other passkey’s');
      const field = parseHtml(refused.body).querySelector('#remove-passkey-proof-2');
      assert.equal(field?.getAttribute('aria-invalid'), 'true');
      assert.match(field?.getAttribute('aria-describedby') ?? '', /\bremove-passkey-proof-2-error\b/);
      assert.equal(parseHtml(refused.body).querySelector('label[for="remove-passkey-proof-2"]')?.textContent.trim(), 'Your password or a code from your authenticator app');
    }
    assert.deepEqual((await server.storage.passkeys.listByUser(user.id)).map((passkey) => passkey.name), ['Phone', 'Work laptop'], 'nothing removed');
    assert.ok(!(await mailsTo(user.email)).some((mail) => /passkey was removed/.test(mail.subject)));

    const removed = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', { credential_id: `proof-b-${user.id}`, proof: password });
    assert.equal(removed.status, 303);
    assert.equal(removed.headers.get('location'), '/account/two-step?notice=passkey-removed');
    const withCode = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', { credential_id: `proof-a-${user.id}`, proof: await app.freshCode() });
    assert.equal(withCode.status, 303);
    assert.deepEqual(await server.storage.passkeys.listByUser(user.id), []);
    assert.equal((await mailsTo(user.email)).filter((mail) => /passkey was removed/.test(mail.subject)).length, 2);
  });

  test('a borrowed browser cannot remove the last passkey, which would take the recovery codes with it', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    await addPasskey(user.id, `last-${user.id}`, 'Only key');
    await server.storage.secondFactors.replaceRecoveryCodes(user.id, ['hash-1', 'hash-2'], new Date());
    const refused = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', { credential_id: `last-${user.id}`, proof: 'guess' });
    assert.equal(refused.status, 400);
    assert.equal((await server.storage.passkeys.listByUser(user.id)).length, 1);
    assert.equal((await server.storage.secondFactors.listRecoveryCodes(user.id)).length, 2, 'the recovery codes are kept');
  });

  test('wrong proofs for passkeys count like failed sign-ins, with the other two-step changes: after the limit even the password is refused (429)', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    await enrolAuthenticator(server, browser);
    await addPasskey(user.id, `throttle-${user.id}`, 'Phone');
    assert.equal((await postJson(browser, '/account/passkeys/options', { proof: 'guess 1' })).status, 400);
    assert.equal((await postJson(browser, '/account/passkeys/options', { proof: 'guess 2' })).status, 400);
    assert.equal((await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', { credential_id: `throttle-${user.id}`, proof: 'guess 3' })).status, 400);
    assert.equal((await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/app/remove', { proof: 'guess 4' })).status, 400);

    const options = await postJson(browser, '/account/passkeys/options', { proof: password });
    assert.equal(options.status, 429);
    assert.deepEqual(options.json(), { error: 'slow_down', error_description: 'Too many wrong attempts. Wait a few minutes, then try again.' });
    assert.equal(challengeCookie(options.setCookies), undefined);
    const remove = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/passkeys/remove', { credential_id: `throttle-${user.id}`, proof: password });
    assert.equal(remove.status, 429);
    assert.match(fieldError(remove.body, 'remove-passkey-proof-1') ?? '', /Too many wrong attempts/);
    assert.equal((await server.storage.passkeys.listByUser(user.id)).length, 1, 'still there');
    // The same count as a sign-in's: the password does not sign in a new browser for now either.
    assert.equal((await signInWithPassword(server, new TestBrowser(), user.email, password)).status, 429);
  });

  test('the two-step page asks for the proof where a passkey is added, with the other proof fields’ label', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    await addPasskey(user.id, `page-${user.id}`, 'Phone');
    const page = parseHtml((await browser.request(`${server.baseUrl}/account/two-step`)).body);
    const field = page.querySelector('#add-passkey-proof');
    assert.equal(field?.getAttribute('name'), 'proof');
    assert.equal(field?.getAttribute('type'), 'password');
    assert.equal(field?.getAttribute('autocomplete'), 'current-password');
    assert.equal(page.querySelector('label[for="add-passkey-proof"]')?.textContent.trim(), 'Your password or a code from your authenticator app');
    const button = page.querySelector('button[data-passkey="register"]');
    assert.equal(button?.getAttribute('data-proof-input'), 'add-passkey-proof');
    assert.equal(button?.getAttribute('data-say-proof-wrong'), 'This is neither your password nor a current code from your app.');
    const removeForm = page.querySelector('form[action="/account/passkeys/remove"]');
    assert.ok(removeForm?.querySelector('input[name="proof"][type="password"]'), 'the remove form has the proof field');
    assert.equal(removeForm?.querySelector('button')?.getAttribute('aria-label'), 'Remove passkey Phone');
  });
});
