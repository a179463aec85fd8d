/**
 * Passkeys in a real browser (Debian's Chromium through playwright-core) with the Chrome DevTools Protocol's
 * virtual authenticator (WebAuthn.enable, WebAuthn.addVirtualAuthenticator): add a named passkey on the account
 * page, sign in with it alone, use it as the second step after the password, remove it. Adding and removing ask
 * for the password or a current code (docs/protocol-decisions.md "Second factors and passkeys": changes need
 * proof): without it no registration options are handed out and nothing is removed; wrong proofs are throttled.
 * Latch runs with LATCH_ISSUER=http://localhost:PORT: WebAuthn refuses an IP address as relying-party id.
 * Screenshots of each page under test-artifacts/screenshots/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { checkAccessibility } from '../helpers/accessibility.js';
import { launchChromium, screenshot, skipWithoutChromium } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const browserTest = (name: string, fn: () => Promise<void>) => test(name, { skip: skipWithoutChromium }, fn);

describe('passkeys in a real browser', () => {
  let latch: TestServer;
  let browser: Browser;
  let origin: string;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let user: { id: number; email: string };
  let password: string;

  before(async () => {
    if (skipWithoutChromium) return;
    latch = await startTestServer({ issuerHost: 'localhost' });
    origin = latch.config.issuer;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    // Chromium's virtual authenticator answers a conditional (autofill) passkey request at once, as if the person
    // had picked the passkey: every page load of /login would sign in by itself. The pages of these tests behave
    // as in a browser without conditional UI, except where the URL's fragment asks for it (the conditional UI test).
    await context.addInitScript(() => {
      if (location.hash !== '#conditional-ui' && typeof PublicKeyCredential !== 'undefined') {
        Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: undefined, configurable: true });
      }
    });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
    const created = await latch.createUser({ email: 'grace@example.com', name: 'Grace Hopper' });
    user = created.user;
    password = created.password;
  });
  after(async () => {
    await browser?.close();
    await latch?.stop();
  });

  const signInWithPassword = async () => {
    await page.goto(`${origin}/login`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  browserTest('add a named passkey on the account page: stored for the issuer host, listed with its name', async () => {
    await signInWithPassword();
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/account`);
    await page.getByRole('link', { name: 'Set up two-step verification' }).click();
    await page.waitForURL(`${origin}/account/two-step`);
    await screenshot(page, 'passkeys-01-two-step-page');
    await page.getByLabel('Name for a new passkey').fill('Work laptop');
    // Without the proof, then with a wrong one: the options are refused, the reason is beside the field, and the
    // authenticator was never asked.
    const proof = page.locator('#add-passkey-proof');
    assert.equal(await page.getByLabel('Your password or a code from your authenticator app').count(), 1, 'one proof field: the account has no passkey to remove yet');
    for (const attempt of ['', 'not my password']) {
      await proof.fill(attempt);
      const options = page.waitForResponse((response) => response.url() === `${origin}/account/passkeys/options`);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      assert.equal((await options).status(), 400);
      await page.locator('#add-passkey-proof-error').filter({ hasText: 'This is neither your password nor a current code from your app.' }).waitFor();
      assert.equal(await proof.getAttribute('aria-invalid'), 'true');
      assert.match((await proof.getAttribute('aria-describedby')) ?? '', /\badd-passkey-proof-error\b/);
      assert.equal(page.url(), `${origin}/account/two-step`);
    }
    await screenshot(page, 'passkeys-01a-wrong-proof');
    await checkAccessibility(page, 'the two-step page with a refused proof for a new passkey');
    assert.deepEqual(await latch.storage.passkeys.listByUser(user.id), [], 'no passkey stored');
    assert.deepEqual((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials, [], 'no credential made');
    await proof.fill(password);
    // Enter in the field presses "Add a passkey", as Enter in a form's field submits it.
    await proof.press('Enter');
    // The first second factor: two-step verification is on, and the recovery codes are shown, once.
    await page.waitForURL(`${origin}/account/two-step/new-recovery-codes`);
    await page.getByRole('heading', { name: 'Two-step verification is on' }).waitFor();
    await checkAccessibility(page, 'the recovery codes shown after the first passkey');
    const codes = (await page.locator('#recovery-codes').innerText()).split('\n').filter((line) => line.trim() !== '');
    assert.equal(codes.length, 10);
    assert.equal((await latch.storage.secondFactors.listRecoveryCodes(user.id)).length, 10, 'stored (as keyed hashes)');
    await screenshot(page, 'passkeys-02a-recovery-codes');
    await page.reload();
    await page.waitForURL(`${origin}/account/two-step`);
    assert.doesNotMatch(await page.locator('body').innerText(), new RegExp(codes[0]!), 'a reload does not show them again');
    assert.match(await page.locator('section[aria-labelledby="passkeys-heading"]').innerText(), /Work laptop/);
    await screenshot(page, 'passkeys-02-added');

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]?.isResidentCredential, true, 'a discoverable credential');
    assert.equal(credentials[0]?.rpId, 'localhost', 'the relying party is the issuer host');
    const stored = await latch.storage.passkeys.listByUser(user.id);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.name, 'Work laptop');
    assert.equal(stored[0]?.credentialId, credentials[0]?.credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
    const mails = (await latch.storage.outbox.listRecent(100)).filter((mail) => mail.to === user.email);
    assert.ok(mails.some((mail) => mail.subject === 'A passkey was added to your Latch account'));
  });

  browserTest('a registration that skips the proven options is refused: a real credential for a challenge of another ceremony is not stored', async () => {
    await page.goto(`${origin}/account/two-step`);
    const before = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.map((credential) => credential.credentialId);
    try {
      // Given as text: the test's TypeScript compiler would wrap named functions in a helper the page lacks.
      const answers = (await page.evaluate(`(async () => {
        const csrf = document.querySelector('input[name="_csrf"]').value;
        const post = async (url, body) => {
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ _csrf: csrf, ...body }) });
          return { status: response.status, body: await response.json() };
        };
        const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '');
        const refusedOptions = await post('/account/passkeys/options', { proof: 'a guess' });
        // A challenge anyone can have: the passkey sign-in's (its cookie replaces any other ceremony's).
        const signIn = await post('/login/passkey/options', {});
        const made = await navigator.credentials.create({
          publicKey: {
            challenge: bytes(String(signIn.body.challenge)),
            rp: { name: 'Stranger', id: location.hostname },
            user: { id: new Uint8Array(32).fill(7), name: 'stranger', displayName: 'Stranger' },
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
          },
        });
        const registered = await post('/account/passkeys', {
          name: 'Stranger key',
          credential: { id: made.id, rawId: text(made.rawId), type: made.type, clientExtensionResults: {}, response: { clientDataJSON: text(made.response.clientDataJSON), attestationObject: text(made.response.attestationObject), transports: [] } },
        });
        return { refusedOptions, registered };
      })()`)) as { refusedOptions: { status: number; body: Record<string, unknown> }; registered: { status: number; body: Record<string, unknown> } };
      assert.equal(answers.refusedOptions.status, 400);
      assert.equal(answers.refusedOptions.body.error, 'invalid_proof');
      assert.equal(answers.registered.status, 400);
      assert.equal(answers.registered.body.error_description, 'This passkey request has expired. Try again.');
      assert.deepEqual((await latch.storage.passkeys.listByUser(user.id)).map((passkey) => passkey.name), ['Work laptop'], 'nothing added');
    } finally {
      // The stranger's credential would be offered by the authenticator in the next tests' sign-ins.
      for (const credential of (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials) {
        if (!before.includes(credential.credentialId)) await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
      }
    }
  });

  browserTest('conditional UI: the sign-in page asks for a passkey as it loads, and the one picked from the email field’s autofill signs in', async () => {
    await context.clearCookies();
    const optionsRequested = page.waitForRequest((request) => request.url().endsWith('/login/passkey/options') && request.method() === 'POST');
    // The virtual authenticator picks the passkey at once, as a person would from the autofill list.
    await page.goto(`${origin}/login?return_to=%2Faccount#conditional-ui`);
    await optionsRequested;
    await page.waitForURL(`${origin}/account`);
    assert.match(await page.locator('body').innerText(), /grace@example\.com/, 'signed in without pressing the button');
    // Without conditional UI (the other tests' pages), the page waits for the button: nothing is asked on load.
    await context.clearCookies();
    let asked = false;
    const listener = (request: { url(): string }) => (asked ||= request.url().endsWith('/login/passkey/options'));
    page.on('request', listener);
    await page.goto(`${origin}/login`);
    assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username webauthn');
    await page.waitForTimeout(300);
    page.off('request', listener);
    assert.equal(asked, false);
  });

  browserTest('sign in with the passkey alone ("Sign in with a passkey"), and its last use is recorded', async () => {
    await context.clearCookies();
    await page.goto(`${origin}/login?return_to=%2Faccount`);
    await screenshot(page, 'passkeys-03-sign-in-page');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/account`);
    assert.match(await page.locator('body').innerText(), /grace@example\.com/);
    const [stored] = await latch.storage.passkeys.listByUser(user.id);
    assert.ok(stored?.lastUsedAt, 'last used time recorded');
  });

  browserTest('a captured passkey sign-in (challenge cookie and signed answer) sent again is refused: no second session (WebAuthn Level 2 §13.4.3)', async () => {
    // The passkey made a synced one, whose signature counter stays 0 (so the counter check cannot tell a replay):
    // Chromium's virtual authenticator adds one at every assertion, so the credential goes back in with a count of
    // -1 (its next assertion says 0, checked below), and Latch's stored counter back to 0.
    const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    assert.ok(credential);
    await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential.credentialId });
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential, signCount: -1 } });
    const [stored] = await latch.storage.passkeys.listByUser(user.id);
    assert.ok(stored && (await latch.storage.passkeys.recordUse(stored.credentialId, stored.counter, { counter: 0, backedUp: true, at: new Date() })));
    await context.clearCookies();
    await page.goto(`${origin}/login?return_to=%2Faccount`);
    const answer = page.waitForRequest((request) => request.url() === `${origin}/login/passkey` && request.method() === 'POST');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/account`);
    // What crossed the network: the cookies (the sealed challenge among them) and the JSON the page script posted.
    const captured = await answer;
    const cookie = (await captured.allHeaders()).cookie ?? '';
    assert.match(cookie, /(^|; )latch_webauthn=/, 'the challenge cookie went with the answer');
    const body = captured.postData() ?? '';
    assert.match(body, /"credential"/);
    assert.equal((await latch.storage.passkeys.listByUser(user.id))[0]?.counter, 0, 'the captured answer carries counter 0');
    const sessionsBefore = (await latch.storage.browserSessions.listByUser(user.id, new Date())).length;
    // Sent again as it was, within the cookie's 5 minutes: only the server's record of the used challenge tells.
    const replay = await fetch(`${origin}/login/passkey`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body });
    assert.equal(replay.status, 400);
    assert.deepEqual(await replay.json(), { error: 'invalid_request', error_description: 'This passkey request has expired. Try again.' });
    assert.ok(!replay.headers.getSetCookie().some((set) => set.startsWith('latch_session=')), 'no session cookie');
    assert.equal((await latch.storage.browserSessions.listByUser(user.id, new Date())).length, sessionsBefore, 'no new session');
  });

  browserTest('a passkey that cannot verify the user (UV off) is refused, with the reason on the page', async () => {
    await context.clearCookies();
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    try {
      await page.goto(`${origin}/login`);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      // The status first says "Follow your browser's prompt…", then why it failed: wait for the reason.
      const status = page.locator('#passkey-status');
      const reason = /could not be checked|closed or timed out/;
      await status
        .filter({ hasText: reason })
        .waitFor({ timeout: 15_000 })
        .catch(async () => assert.fail(`the page should say why the passkey was refused; it says: ${await status.innerText()}`));
      await page.goto(`${origin}/account`);
      assert.match(page.url(), /\/login\?return_to=/, 'not signed in');
    } finally {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    }
  });

  browserTest('the password of an account with a passkey asks for the passkey next; with an authenticator app on too, either is the second step', async () => {
    await context.clearCookies();
    await signInWithPassword();
    await page.waitForURL(`${origin}/login/two-step`);
    assert.match(await page.locator('body').innerText(), /Confirm it is you with your passkey/);
    assert.equal(await page.getByLabel('6-digit code').count(), 0, 'no code field: the account has no authenticator app');
    await screenshot(page, 'passkeys-03a-passkey-second-step');
    await checkAccessibility(page, 'the passkey-only second step');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${origin}/`);
    await page.goto(`${origin}/account/two-step`);
    const key = (await page.getByLabel('Key to type in instead').inputValue()).replace(/\s/g, '');
    const code = new TOTP({ secret: Secret.fromBase32(key), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    await page.getByLabel('6-digit code from the app').fill(code);
    await page.getByRole('button', { name: 'Turn on two-step verification' }).click();
    // The recovery codes made with the passkey are kept: no new set.
    await page.waitForURL(`${origin}/account/two-step`);
    assert.ok((await latch.storage.secondFactors.findTotp(user.id)) !== null, 'the app is on');
    await screenshot(page, 'passkeys-04-app-on');

    await context.clearCookies();
    await page.goto(`${origin}/login?return_to=%2Faccount`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/login/two-step`);
    assert.match(await page.locator('body').innerText(), /Enter the 6-digit code from your authenticator app/);
    await screenshot(page, 'passkeys-05-second-step');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(`${origin}/account`);
    assert.match(await page.locator('body').innerText(), /Two-step verification\s*On/);
  });

  browserTest('remove the passkey, with the password (a wrong one removes nothing): it no longer signs in', async () => {
    await page.goto(`${origin}/account/two-step`);
    const removeForm = page.locator('form[action="/account/passkeys/remove"]');
    await removeForm.getByLabel('Your password or a code from your authenticator app').fill('not my password');
    await page.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
    await page.locator('#remove-passkey-proof-1-error').filter({ hasText: 'This is neither your password nor a current code from your app.' }).waitFor();
    assert.equal((await latch.storage.passkeys.listByUser(user.id)).length, 1, 'nothing removed');
    await screenshot(page, 'passkeys-05a-remove-wrong-proof');
    await checkAccessibility(page, 'the two-step page with a refused proof for removing a passkey');
    await removeForm.getByLabel('Your password or a code from your authenticator app').fill(password);
    await page.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
    await page.waitForURL(`${origin}/account/two-step?notice=passkey-removed`);
    assert.deepEqual(await latch.storage.passkeys.listByUser(user.id), []);
    await context.clearCookies();
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('#passkey-status').filter({ hasText: /not registered/ }).waitFor();
  });

  browserTest('wrong proofs for passkeys are throttled like failed sign-ins: then even the password adds nothing and removes nothing (429)', async () => {
    const { user: other, password: otherPassword } = await latch.createUser({ email: 'katherine@example.com', name: 'Katherine Johnson' });
    await context.clearCookies();
    await page.goto(`${origin}/login?return_to=%2Faccount%2Ftwo-step`);
    await page.getByLabel('Email').fill(other.email);
    await page.getByLabel('Password').fill(otherPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${origin}/account/two-step`);
    const proof = page.locator('#add-passkey-proof');
    const error = page.locator('#add-passkey-proof-error');
    // LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT is 5 by default.
    for (let i = 0; i < 5; i++) {
      await proof.fill(`guess ${i}`);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await error.filter({ hasText: 'neither your password' }).waitFor();
    }
    await proof.fill(otherPassword);
    const options = page.waitForResponse((response) => response.url() === `${origin}/account/passkeys/options`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    assert.equal((await options).status(), 429);
    await error.filter({ hasText: 'Too many wrong attempts. Wait a few minutes, then try again.' }).waitFor();
    assert.deepEqual(await latch.storage.passkeys.listByUser(other.id), []);

    await latch.storage.passkeys.insert({ credentialId: `throttled-${other.id}`, userId: other.id, publicKey: new Uint8Array([1]), counter: 0, transports: [], aaguid: 'a', backupEligible: false, backedUp: false, name: 'Old phone', createdAt: new Date(), lastUsedAt: null });
    await page.reload();
    await page.locator('form[action="/account/passkeys/remove"]').getByLabel('Your password or a code from your authenticator app').fill(otherPassword);
    const removal = page.waitForResponse((response) => response.url() === `${origin}/account/passkeys/remove`);
    await page.getByRole('button', { name: 'Remove passkey Old phone' }).click();
    assert.equal((await removal).status(), 429);
    await page.locator('#remove-passkey-proof-1-error').filter({ hasText: 'Too many wrong attempts' }).waitFor();
    assert.equal((await latch.storage.passkeys.listByUser(other.id)).length, 1, 'still there');
  });

  browserTest('without JavaScript the sign-in page shows no passkey button and the password still works', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const noJs = await plain.newPage();
      await noJs.goto(`${origin}/login`);
      assert.equal(await noJs.getByRole('button', { name: 'Sign in with a passkey' }).count(), 0);
      assert.equal(await noJs.getByRole('button', { name: 'Sign in', exact: true }).isVisible(), true);
    } finally {
      await plain.close();
    }
  });
});
