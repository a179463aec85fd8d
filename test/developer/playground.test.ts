/**
 * The playground (issue 22 item 3), over real HTTP: "Try sign-in" runs the app's real flow at a test callback
 * Latch hosts (added only on request, marked, removable), and shows each step: the authorization request, the
 * code and state that came back, the token response with the user object (the real token endpoint, the app
 * authenticated with a secret pasted for that one request), userinfo, and the id_token with each check. A check
 * that fails is shown as failed; every step is post/redirect/get, so reloading repeats nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parsePage } from 'node-html-parser';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { decide } from '../helpers/oauth-flow.js';
import { followRedirect, signedInBrowser, submitForm, valueById } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('the playground', () => {
  let server: TestServer;
  let developer: TestBrowser;
  let ownerId: number;

  before(async () => {
    server = await startTestServer({ captureLog: true });
    const { user, password } = await server.createUser({ name: 'Dev Eloper' });
    ownerId = user.id;
    developer = await signedInBrowser(server, user.email, password);
  });
  after(async () => server.stop());

  const callbackOf = (clientId: string) => `${server.config.issuer}/developer/apps/${clientId}/playground/callback`;
  const get = (path: string) => developer.request(`${server.baseUrl}${path}`);

  async function registerApp(appType: 'web' | 'public' = 'web') {
    const posted = await submitForm(developer, server.baseUrl, '/developer', '/developer/apps', { name: 'Playground App', app_type: appType, redirect_uris: 'https://app.example.com/cb', homepage_url: '', logo_url: '' });
    const page = await followRedirect(developer, server.baseUrl, posted);
    const clientId = valueById(page.body, 'client_id');
    return { clientId, clientSecret: appType === 'web' ? valueById(page.body, 'client_secret') : null, playground: `/developer/apps/${clientId}/playground` };
  }

  async function addCallback(playground: string) {
    const added = await submitForm(developer, server.baseUrl, playground, `${playground}/callback-uri`, {});
    assert.equal(added.status, 303);
  }

  /** Starts a run and returns the playground page and its authorization request URL. */
  async function start(playground: string): Promise<{ page: BrowserResponse; authorizeUrl: string }> {
    const page = await followRedirect(developer, server.baseUrl, await submitForm(developer, server.baseUrl, playground, `${playground}/start`, {}));
    assert.equal(page.status, 200);
    const authorizeUrl = parsePage(page.body).querySelector('#playground_authorize_url')?.textContent.trim() ?? '';
    assert.ok(authorizeUrl.startsWith(`${server.config.issuer}/oauth2/authorize?`), authorizeUrl);
    return { page, authorizeUrl };
  }

  /** The developer signs in at the authorization request (already signed in: the consent page), then the callback answers. */
  async function signInAt(authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<BrowserResponse> {
    let page = await developer.follow(authorizeUrl, server.baseUrl);
    if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) page = await decide(developer, server.baseUrl, page, decision);
    // Latch's redirect to the test callback, then the callback's redirect to the playground page.
    assert.ok(page.status === 302 || page.status === 303, `expected the redirect to the callback, got ${page.status}`);
    const callback = new URL(page.headers.get('location') ?? '', server.baseUrl);
    assert.equal(`${callback.origin}${callback.pathname}`, callbackOf(new URL(authorizeUrl).searchParams.get('client_id') ?? ''));
    const answered = await developer.request(callback.href);
    assert.equal(answered.status, 303);
    assert.ok(!(answered.headers.get('location') ?? '').includes('code='), 'the code leaves the address bar');
    return developer.request(new URL(answered.headers.get('location') ?? '', server.baseUrl).href);
  }

  async function exchange(playground: string, clientSecret: string | null): Promise<BrowserResponse> {
    const form: Record<string, string> = clientSecret === null ? {} : { client_secret: clientSecret };
    return followRedirect(developer, server.baseUrl, await submitForm(developer, server.baseUrl, playground, `${playground}/exchange`, form));
  }

  const checks = (html: string) =>
    parsePage(html)
      .querySelectorAll('ul.checks li')
      .map((li) => li.textContent.replace(/\s+/g, ' ').trim());

  test('the app page offers "Try sign-in"; the test callback is added only on request, then marked on the app page', async () => {
    const { clientId, playground } = await registerApp();
    const appPage = await get(`/developer/apps/${clientId}`);
    assert.ok(parsePage(appPage.body).querySelector(`a[href="${playground}"]`), 'a "Try sign-in" link');
    assert.ok(!appPage.body.includes('playground-callback-note'));
    const page = await get(playground);
    assert.equal(page.status, 200);
    assert.match(pageText(page.body), /Add the test callback/);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['https://app.example.com/cb'], 'not added by looking');
    const refused = await submitForm(developer, server.baseUrl, playground, `${playground}/start`, {});
    assert.equal(refused.status, 400, 'no run without the callback');

    await addCallback(playground);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['https://app.example.com/cb', callbackOf(clientId)]);
    const marked = await get(`/developer/apps/${clientId}`);
    assert.match(parsePage(marked.body).querySelector('#playground-callback-note')?.textContent ?? '', /is Latch’s test callback, added for the playground/);
    assert.ok(!pageText(marked.body).includes(`LATCH_REDIRECT_URI=${callbackOf(clientId)}`), 'the snippets keep the app’s own callback');
  });

  test('a confidential app: each step shown, the token response with the user, userinfo, and every id_token check passed', async () => {
    const { clientId, clientSecret, playground } = await registerApp();
    await addCallback(playground);
    const { page, authorizeUrl } = await start(playground);
    const sent = new URL(authorizeUrl).searchParams;
    assert.equal(sent.get('client_id'), clientId);
    assert.equal(sent.get('redirect_uri'), callbackOf(clientId));
    assert.equal(sent.get('scope'), 'openid email profile');
    assert.equal(sent.get('code_challenge_method'), 'S256');
    assert.ok(sent.get('state') && sent.get('nonce') && sent.get('code_challenge'));
    assert.equal(parsePage(page.body).querySelector('#playground_continue')?.getAttribute('href'), authorizeUrl);

    const back = await signInAt(authorizeUrl);
    assert.equal(back.status, 200);
    const code = parsePage(back.body).querySelector('#playground_code')?.textContent ?? '';
    assert.match(code, /^latch_ac_/);
    assert.deepEqual(checks(back.body), [`✓ Passed state: ${sent.get('state')} is the state sent (RFC 6749 §10.12)`, `✓ Passed iss: ${server.config.issuer} is the issuer (RFC 9207)`]);
    assert.equal(parsePage(back.body).querySelector('#playground_secret')?.getAttribute('type'), 'password');

    const done = await exchange(playground, clientSecret!);
    assert.equal(done.status, 200);
    const html = parsePage(done.body);
    const token = JSON.parse(html.querySelector('#playground_token')?.textContent ?? '{}');
    assert.equal(token.token_type, 'Bearer');
    assert.match(token.access_token, /^latch_at_/);
    assert.equal(token.id_token.split('.').length, 3, 'the whole id_token, not shortened');
    assert.ok(!JSON.stringify(token).includes('shortened'), 'the run fits its cookie whole');
    const user = JSON.parse(html.querySelector('#playground_user')?.textContent ?? '{}');
    assert.equal(user.name, 'Dev Eloper');
    assert.deepEqual(user, token.user);
    const userinfo = JSON.parse(html.querySelector('#playground_userinfo')?.textContent ?? '{}');
    assert.equal(userinfo.sub, JSON.parse(html.querySelector('#playground_id_token_claims')?.textContent ?? '{}').sub);
    const idTokenChecks = html.querySelectorAll('ul[aria-label="id_token checks"] li').map((li) => li.textContent.replace(/\s+/g, ' ').trim());
    assert.deepEqual(idTokenChecks.map((check) => check.split(':')[0]), ['✓ Passed signature', '✓ Passed iss', '✓ Passed aud', '✓ Passed nonce', '✓ Passed exp']);
    assert.equal(JSON.parse(html.querySelector('#playground_id_token_claims')?.textContent ?? '{}').nonce, sent.get('nonce'));
    assert.ok(!pageText(done.body).includes('✗ Failed'));

    // The pasted secret went to the token endpoint only: in no page, cookie or log line.
    assert.ok(!done.body.includes(clientSecret!));
    assert.ok(!JSON.stringify(await developer.jar.serialize()).includes(clientSecret!));
    assert.ok(!JSON.stringify(server.logLines()).includes(clientSecret!));

    // A reload shows the same; posting the exchange again exchanges nothing (the code is not re-sent).
    const grants = await server.storage.tokens.countLiveGrants(clientId, new Date());
    const again = await exchange(playground, clientSecret!);
    assert.equal(parsePage(again.body).querySelector('#playground_token')?.textContent, html.querySelector('#playground_token')?.textContent);
    assert.equal(await server.storage.tokens.countLiveGrants(clientId, new Date()), grants);
    const events = await server.storage.clientEvents.listRecent(clientId, 10);
    assert.ok(!events.some((event) => event.error === 'invalid_grant'), 'no second exchange of the spent code reached the token endpoint');
  });

  test('a failing check is shown as failed: a nonce changed in the authorization request fails the nonce check alone', async () => {
    const { clientSecret, playground } = await registerApp();
    await addCallback(playground);
    const { authorizeUrl } = await start(playground);
    const tampered = new URL(authorizeUrl);
    tampered.searchParams.set('nonce', 'changed-by-hand');
    await signInAt(tampered.href);
    const done = parsePage((await exchange(playground, clientSecret!)).body);
    const results = done.querySelectorAll('ul[aria-label="id_token checks"] li').map((li) => li.textContent.replace(/\s+/g, ' ').trim());
    assert.deepEqual(results.map((check) => check.split(':')[0]), ['✓ Passed signature', '✓ Passed iss', '✓ Passed aud', '✗ Failed nonce', '✓ Passed exp']);
    assert.match(results[3] ?? '', /nonce is "changed-by-hand", not the one sent/);
    assert.equal(done.querySelector('ul[aria-label="id_token checks"] .check-failed')?.textContent, '✗ Failed');
  });

  test('a wrong secret: the token endpoint’s invalid_client is shown as a failed step, and the code stays unused', async () => {
    const { clientId, clientSecret, playground } = await registerApp();
    await addCallback(playground);
    await signInAt((await start(playground)).authorizeUrl);
    const done = await exchange(playground, 'latch_cs_not-the-secret');
    const text = pageText(done.body);
    assert.match(text, /✗ Failed The token endpoint answered HTTP 401 with invalid_client/);
    assert.equal(JSON.parse(parsePage(done.body).querySelector('#playground_token')?.textContent ?? '{}').error, 'invalid_client');
    assert.ok(!done.body.includes('latch_cs_not-the-secret'), 'the typed secret is not repeated');
    assert.ok(!text.includes('Userinfo'), 'no later step without a token');
    assert.equal((await server.storage.clientEvents.listRecent(clientId, 1))[0]?.error, 'invalid_client', 'recorded as the app’s failure, like any other');
    // A failed client authentication never consumes the code: with the right secret, the exchange goes through.
    assert.match(pageText(done.body), /Try the exchange again/);
    const retried = parsePage((await exchange(playground, clientSecret!)).body);
    assert.match(JSON.parse(retried.querySelector('#playground_token')?.textContent ?? '{}').access_token, /^latch_at_/);
  });

  test('a state that is not the one sent fails the state check, and no exchange is offered (as a real app must stop)', async () => {
    const { playground } = await registerApp();
    await addCallback(playground);
    const first = await start(playground);
    await start(playground); // a second run replaces the first: its state is the one kept now
    const back = await signInAt(first.authorizeUrl);
    assert.match(checks(back.body)[0] ?? '', /^✗ Failed state: ".*" is not the state sent/);
    assert.ok(!back.body.includes(`${playground}/exchange`), 'no exchange form');
    const forced = await submitForm(developer, server.baseUrl, playground, `${playground}/exchange`, { client_secret: 'x' });
    assert.equal(forced.status, 303);
    assert.ok(!(await get(playground)).body.includes('playground_token'), 'nothing exchanged');
  });

  test('"Deny" at the consent page comes back as access_denied, shown at the callback step', async () => {
    const { playground } = await registerApp();
    await addCallback(playground);
    const back = await signInAt((await start(playground)).authorizeUrl, 'deny');
    assert.match(pageText(back.body), /✗ Failed Latch sent back error=access_denied.*\(the person chose Deny\)/);
  });

  test('a public app exchanges with PKCE alone: no secret field, and the token response arrives', async () => {
    const { playground } = await registerApp('public');
    await addCallback(playground);
    const back = await signInAt((await start(playground)).authorizeUrl);
    assert.ok(!back.body.includes('name="client_secret"'));
    assert.match(pageText(back.body), /no secret/);
    const done = parsePage((await exchange(playground, null)).body);
    assert.match(JSON.parse(done.querySelector('#playground_token')?.textContent ?? '{}').access_token, /^latch_at_/);
    assert.equal(done.querySelectorAll('ul[aria-label="id_token checks"] .check-passed').length, 5);
  });

  test('the run is sealed to this browser, user and app: the callback with no run waiting keeps nothing', async () => {
    const { clientId, playground } = await registerApp();
    await addCallback(playground);
    const stray = await get(`${playground}/callback?code=latch_ac_forged&state=forged`);
    assert.equal(stray.status, 303);
    assert.match(stray.headers.get('location') ?? '', /notice=no-run/);
    const cookie = (await developer.jar.getCookies(`${server.baseUrl}${playground}`)).find((c) => c.key === 'latch_playground');
    assert.equal(cookie, undefined, 'no cookie was made');
    const { user, password } = await server.createUser();
    const stranger = await signedInBrowser(server, user.email, password);
    assert.equal((await stranger.request(`${server.baseUrl}${playground}`)).status, 404, 'not their app');
    const strangersCallback = await stranger.request(`${server.baseUrl}${playground}/callback?code=latch_ac_x&state=y`);
    assert.equal(strangersCallback.status, 404);
    assert.match(pageText(strangersCallback.body), /If you signed in as someone else on the way, sign in again as the app’s developer/);
    assert.ok(await server.storage.clients.findById(clientId));
  });

  test('"Forget this run" clears it: the tokens leave the browser', async () => {
    const { clientSecret, playground } = await registerApp();
    await addCallback(playground);
    await signInAt((await start(playground)).authorizeUrl);
    const done = await exchange(playground, clientSecret!);
    assert.ok(done.body.includes('playground_token'));
    const forgotten = await followRedirect(developer, server.baseUrl, await submitForm(developer, server.baseUrl, playground, `${playground}/reset`, {}));
    assert.ok(!forgotten.body.includes('playground_token'));
    assert.match(pageText(forgotten.body), /Start a sign-in/);
    assert.equal((await developer.jar.getCookies(`${server.baseUrl}${playground}`)).find((c) => c.key === 'latch_playground'), undefined);
  });

  test('removing the test callback takes it out of the redirect URLs and ends the run', async () => {
    const { clientId, playground } = await registerApp();
    await addCallback(playground);
    await start(playground);
    const removed = await submitForm(developer, server.baseUrl, playground, `${playground}/callback-uri/remove`, {});
    assert.equal(removed.status, 303);
    assert.match(removed.headers.get('location') ?? '', /notice=playground-callback-removed/);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['https://app.example.com/cb']);
    const page = await get(playground);
    assert.ok(!page.body.includes('playground_authorize_url'));
    assert.match(pageText(page.body), /Add the test callback/);
    assert.ok((await server.storage.clients.listByOwner(ownerId)).length > 0);
  });

  test('every playground form needs the CSRF token', async () => {
    const { playground } = await registerApp();
    const page = await get(playground);
    assert.ok(inputValue(page.body, '_csrf'));
    for (const action of ['callback-uri', 'start', 'exchange', 'reset', 'callback-uri/remove']) {
      const forged = await developer.request(`${server.baseUrl}${playground}/${action}`, { form: { client_secret: 'x' } });
      assert.equal(forged.status, 403, action);
    }
  });
});
