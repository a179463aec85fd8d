/**
 * Recovery codes over real HTTP: ten shown once when the authenticator app is turned on, stored only as keyed
 * hashes, each signing in once in place of a code from the app (typed in any case, with or without dashes),
 * regenerated (the old set stops working) only with the password or a current code, and gone with the app.
 * On SQLite, or on PostgreSQL with LATCH_TEST_DATABASE=postgres.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pageText, TestBrowser } from '../helpers/browser.js';
import { fieldError, signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, recoveryCodesOn, signInWithPassword, submitSecondFactor } from '../helpers/two-step.js';

describe('recovery codes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('ten different codes are shown once, with the warning; Latch keeps only keyed hashes of them', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const { recoveryCodes, page } = await enrolAuthenticator(server, browser);
    assert.equal(recoveryCodes.length, 10);
    assert.equal(new Set(recoveryCodes).size, 10);
    for (const code of recoveryCodes) assert.match(code, /^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.match(pageText(page.body), /only time Latch shows them/);
    const stored = await server.storage.secondFactors.listRecoveryCodes(user.id);
    assert.equal(stored.length, 10);
    for (const { codeHash } of stored) {
      assert.ok(!recoveryCodes.some((code) => codeHash.includes(code) || codeHash.includes(code.replace(/-/g, ''))), 'no code in clear');
    }
    const manage = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.ok(!recoveryCodes.some((code) => manage.body.includes(code)), 'never shown again');
  });

  test('a recovery code signs in once instead of the app, typed loosely; it lands where the codes left are counted', async () => {
    const { user, password } = await server.createUser();
    const { recoveryCodes } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    const browser = new TestBrowser();
    await signInWithPassword(server, browser, user.email, password);
    const page = await browser.request(`${server.baseUrl}/login/two-step?method=recovery`);
    assert.match(pageText(page.body), /Enter one of your recovery codes/);
    const code = recoveryCodes[3]!;
    const done = await submitSecondFactor(server, browser, ` ${code.toLowerCase().replace(/-/g, ' ')} `, 'recovery');
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/account/two-step');
    const manage = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.equal(manage.status, 200);
    assert.match(pageText(manage.body), /9 codes are left/);

    const again = new TestBrowser();
    await signInWithPassword(server, again, user.email, password);
    const reused = await submitSecondFactor(server, again, code, 'recovery');
    assert.equal(reused.status, 401);
    assert.match(pageText(reused.body), /not right, or was already used/);
    assert.equal((await submitSecondFactor(server, again, 'AAAA-BBBB-CCCC', 'recovery')).status, 401, 'not a code of this account');
    assert.equal((await submitSecondFactor(server, again, recoveryCodes[4]!, 'app')).status, 401, 'a recovery code is not an app code');
    assert.equal((await again.request(`${server.baseUrl}/account`)).status, 303);
  });

  test('new codes need the password or a current code; they replace the old set whole, and the owner is mailed', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const { app, recoveryCodes: oldCodes } = await enrolAuthenticator(server, browser);
    const refused = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/recovery-codes', { proof: 'not my password' });
    assert.equal(refused.status, 400);
    assert.match(fieldError(refused.body, 'regenerate-proof') ?? '', /neither your password nor a current code/);

    const fresh = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/recovery-codes', { proof: await app.freshCode() });
    assert.equal(fresh.status, 200);
    assert.match(pageText(fresh.body), /Your old codes no longer work/);
    const newCodes = recoveryCodesOn(fresh.body);
    assert.equal(newCodes.length, 10);
    assert.ok(!newCodes.some((code) => oldCodes.includes(code)));
    const mails = (await server.storage.outbox.listRecent(1000)).filter((mail) => mail.to === user.email).map((mail) => mail.subject);
    assert.ok(mails.includes('New recovery codes for your Latch account'));

    const signIn = new TestBrowser();
    await signInWithPassword(server, signIn, user.email, password);
    assert.equal((await submitSecondFactor(server, signIn, oldCodes[0]!, 'recovery')).status, 401, 'an old code');
    assert.equal((await submitSecondFactor(server, signIn, newCodes[0]!, 'recovery')).status, 303, 'a new code');

    const withPassword = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/recovery-codes', { proof: password });
    assert.equal(withPassword.status, 200, 'the password works as the proof too');
  });

  test('an account without an app has no recovery codes to make, and no recovery step at sign-in', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    assert.match(pageText(page.body), /You get ten recovery codes when you turn on two-step verification/);
    const attempt = await submitForm(browser, server.baseUrl, '/account/two-step', '/account/two-step/recovery-codes', { proof: password });
    assert.equal(attempt.status, 303);
    assert.deepEqual(await server.storage.secondFactors.listRecoveryCodes(user.id), []);
  });
});
