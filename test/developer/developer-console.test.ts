import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inputValue, pageText, TestBrowser } from '../helpers/browser.js';
import { authorize, authorizeUrl, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { fieldError, followRedirect, signedInBrowser, submitForm, valueById } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { en } from '../../src/i18n/messages/en.js';

describe('developer console', () => {
  let server: TestServer;
  let owner: { email: string; password: string; id: number };
  let browser: TestBrowser;

  before(async () => {
    server = await startTestServer();
    const { user, password } = await server.createUser();
    owner = { email: user.email, password, id: user.id };
    browser = await signedInBrowser(server, user.email, password);
  });
  after(async () => server.stop());

  async function registerApp(form: Partial<Record<'name' | 'redirect_uris' | 'homepage_url' | 'logo_url' | 'policy_url' | 'terms_url', string>> = {}) {
    const response = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', {
      name: 'Console App',
      redirect_uris: 'http://127.0.0.1:9999/callback',
      homepage_url: '',
      logo_url: '',
      ...form,
    });
    const page = await followRedirect(browser, server.baseUrl, response);
    assert.equal(page.status, 200, pageText(page.body).slice(0, 400));
    return { clientId: valueById(page.body, 'client_id'), clientSecret: valueById(page.body, 'client_secret'), page };
  }

  /** Authenticates at the token endpoint with a code that does not exist: invalid_grant means the secret was accepted. */
  async function secretIsAccepted(clientId: string, clientSecret: string): Promise<boolean> {
    const response = await exchangeCode(server.baseUrl, { clientId, clientSecret, redirectUris: [] }, { grant_type: 'authorization_code', code: 'latch_ac_nonexistent' });
    assert.ok(response.body.error === 'invalid_grant' || response.body.error === 'invalid_client', JSON.stringify(response.body));
    return response.body.error === 'invalid_grant';
  }

  test('a privacy policy and terms of service registered in the console are linked on the consent page (policy_uri, tos_uri), and checked like the other URLs', async () => {
    const { clientId, page } = await registerApp({ policy_url: 'https://app.example.com/privacy', terms_url: 'https://app.example.com/terms' });
    assert.equal(page.status, 200);
    const stored = await server.storage.clients.findById(clientId);
    assert.deepEqual([stored?.policyUrl, stored?.termsUrl], ['https://app.example.com/privacy', 'https://app.example.com/terms']);
    const settings = (await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body;
    assert.equal(inputValue(settings, 'policy_url'), 'https://app.example.com/privacy');
    const { user, password } = await server.createUser();
    const person = await signedInBrowser(server, user.email, password);
    const consent = await person.follow(authorizeUrl(server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback', scope: 'openid profile', state: 's' }), server.baseUrl);
    assert.equal(consent.status, 200);
    assert.match(consent.body, /href="https:\/\/app\.example\.com\/privacy"/);
    assert.match(consent.body, /href="https:\/\/app\.example\.com\/terms"/);

    const refused = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Bad Links', redirect_uris: 'http://127.0.0.1:9999/callback', policy_url: 'javascript:alert(1)', terms_url: 'ftp://app.example.com/terms' });
    assert.equal(refused.status, 400);
    assert.match(fieldError(refused.body, 'policy_url') ?? '', /Privacy policy URL must start with https/);
    assert.match(fieldError(refused.body, 'terms_url') ?? '', /Terms of service URL must start with https/);
  });

  test('the console needs a session', async () => {
    const response = await new TestBrowser().request(`${server.baseUrl}/developer`);
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), '/login?return_to=%2Fdeveloper');
  });

  test('registering an app shows the secret once, stores only its hash, and the secret works', async () => {
    const { clientId, clientSecret, page } = await registerApp({ homepage_url: 'https://app.example.com', logo_url: 'https://app.example.com/logo.png' });
    assert.match(pageText(page.body), /only time Latch shows it/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const stored = await server.storage.clients.findById(clientId);
    assert.equal(stored?.ownerUserId, owner.id);
    assert.equal(stored?.homepageUrl, 'https://app.example.com');
    assert.ok(!JSON.stringify(stored).includes(clientSecret));
    const appPage = await browser.request(`${server.baseUrl}/developer/apps/${clientId}`);
    assert.equal(appPage.status, 200);
    assert.ok(!appPage.body.includes(clientSecret), 'never shown again');
    assert.equal(await secretIsAccepted(clientId, clientSecret), true);
  });

  test('registration applies the CLI redirect URI rules and explains each problem next to the field', async () => {
    const response = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', {
      name: '',
      redirect_uris: 'http://app.example.com/cb\nhttps://app.example.com/cb#frag',
      homepage_url: 'javascript:alert(1)',
      logo_url: '',
    });
    assert.equal(response.status, 400);
    assert.match(fieldError(response.body, 'app_name') ?? '', /must not be empty/);
    const redirectError = fieldError(response.body, 'redirect_uris') ?? '';
    assert.match(redirectError, /uses http to a non-loopback host/);
    assert.match(redirectError, /must not contain a fragment/);
    assert.match(fieldError(response.body, 'homepage_url') ?? '', /https/);
    assert.equal((await server.storage.clients.listByOwner(owner.id)).some((c) => c.name === ''), false);
  });

  test('an app is visible and changeable only by the user who registered it', async () => {
    const { clientId } = await registerApp();
    const { user, password } = await server.createUser();
    const stranger = await signedInBrowser(server, user.email, password);
    assert.equal((await stranger.request(`${server.baseUrl}/developer/apps/${clientId}`)).status, 404);
    const console = await stranger.request(`${server.baseUrl}/developer`);
    assert.ok(!console.body.includes(clientId));
    const attempt = await stranger.request(`${server.baseUrl}/developer/apps/${clientId}/delete`, { form: { _csrf: inputValue(console.body, '_csrf'), confirm: 'yes' } });
    assert.equal(attempt.status, 404);
    assert.ok(await server.storage.clients.findById(clientId));
  });

  test('editing redirect URLs uses the same checks as the CLI and saves valid ones', async () => {
    const { clientId } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    const bad = await submitForm(browser, server.baseUrl, path, `${path}/settings`, { name: 'Console App', redirect_uris: 'https://ok.example.com/cb\nmyapp:/cb', homepage_url: '', logo_url: '' });
    assert.equal(bad.status, 400);
    assert.match(fieldError(bad.body, 'redirect_uris') ?? '', /private-use scheme/);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['http://127.0.0.1:9999/callback']);
    const good = await submitForm(browser, server.baseUrl, path, `${path}/settings`, {
      name: 'Renamed App',
      redirect_uris: 'https://ok.example.com/cb\r\n\r\ncom.example.app:/cb\n',
      homepage_url: '',
      logo_url: '',
    });
    assert.equal(good.status, 303);
    const saved = await server.storage.clients.findById(clientId);
    assert.deepEqual(saved?.redirectUris, ['https://ok.example.com/cb', 'com.example.app:/cb']);
    assert.equal(saved?.name, 'Renamed App');
  });

  test('"Require two-step verification for every user": ticked, the app requires it; unticked, it no longer does', async () => {
    const { clientId } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    const fields = { name: 'Console App', redirect_uris: 'http://127.0.0.1:9999/callback', homepage_url: '', logo_url: '' };
    const before = await browser.request(`${server.baseUrl}${path}`);
    assert.match(pageText(before.body), /Require two-step verification for every user/);
    assert.doesNotMatch(before.body, /id="require_mfa"[^>]*checked/, 'off by default');
    assert.equal((await submitForm(browser, server.baseUrl, path, `${path}/settings`, { ...fields, require_mfa: 'yes' })).status, 303);
    assert.equal((await server.storage.clients.findById(clientId))?.requireMfa, true);
    assert.match((await browser.request(`${server.baseUrl}${path}`)).body, /<input[^>]*id="require_mfa"[^>]*checked/, 'shown ticked');
    assert.equal((await submitForm(browser, server.baseUrl, path, `${path}/settings`, fields)).status, 303);
    assert.equal((await server.storage.clients.findById(clientId))?.requireMfa, false, 'an unticked box is not sent: off');
  });

  test('registering with post-logout redirect URLs and a back-channel logout URL stores them, and the app page shows them in its settings', async () => {
    const response = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', {
      name: 'Logout Console App',
      redirect_uris: 'http://127.0.0.1:9999/callback',
      homepage_url: '',
      logo_url: '',
      post_logout_redirect_uris: 'https://app.example.com/bye\r\n\r\nhttp://127.0.0.1:9999/signed-out\n',
      backchannel_logout_uri: ' https://app.example.com/backchannel-logout ',
    });
    const clientId = valueById((await followRedirect(browser, server.baseUrl, response)).body, 'client_id');
    const stored = await server.storage.clients.findById(clientId);
    assert.deepEqual(stored?.postLogoutRedirectUris, ['https://app.example.com/bye', 'http://127.0.0.1:9999/signed-out']);
    assert.equal(stored?.backchannelLogoutUri, 'https://app.example.com/backchannel-logout');
    const appPage = await browser.request(`${server.baseUrl}/developer/apps/${clientId}`);
    assert.match(appPage.body, /<label for="post_logout_redirect_uris">Sign-out return URLs \(optional\)<\/label>/);
    assert.match(appPage.body, /<textarea[^>]*name="post_logout_redirect_uris"[^>]*>https:\/\/app\.example\.com\/bye\nhttp:\/\/127\.0\.0\.1:9999\/signed-out<\/textarea>/);
    assert.equal(inputValue(appPage.body, 'backchannel_logout_uri'), 'https://app.example.com/backchannel-logout');
    // The registered URL is the one the logout endpoint follows.
    const logout = await fetch(`${server.baseUrl}/oauth2/logout?${new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: 'https://app.example.com/bye' })}`, { redirect: 'manual' });
    assert.equal(logout.headers.get('location'), 'https://app.example.com/bye');
  });

  test('logout URLs are checked as the CLI checks them, each problem in words next to its field, and nothing changes', async () => {
    const { clientId } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    const bad = await submitForm(browser, server.baseUrl, path, `${path}/settings`, {
      name: 'Console App',
      redirect_uris: 'http://127.0.0.1:9999/callback',
      homepage_url: '',
      logo_url: '',
      post_logout_redirect_uris: 'https://app.example.com/bye#top\nhttp://app.example.com/bye',
      backchannel_logout_uri: 'http://127.0.0.1:3000/logout',
    });
    assert.equal(bad.status, 400);
    const postLogoutError = fieldError(bad.body, 'post_logout_redirect_uris') ?? '';
    assert.match(postLogoutError, /Post-logout redirect URI https:\/\/app\.example\.com\/bye#top must not contain a fragment/);
    assert.match(postLogoutError, /Post-logout redirect URI http:\/\/app\.example\.com\/bye uses http to a non-loopback host; use https:\/\//);
    assert.match(fieldError(bad.body, 'backchannel_logout_uri') ?? '', /Back-channel logout URI http:\/\/127\.0\.0\.1:3000\/logout uses http; use https:\/\//);
    assert.match(bad.body, /aria-invalid="true"[^>]*name="backchannel_logout_uri"|name="backchannel_logout_uri"[^>]*aria-invalid="true"/);
    const unchanged = await server.storage.clients.findById(clientId);
    assert.deepEqual(unchanged?.postLogoutRedirectUris, []);
    assert.equal(unchanged?.backchannelLogoutUri, null);

    const good = await submitForm(browser, server.baseUrl, path, `${path}/settings`, {
      name: 'Console App',
      redirect_uris: 'http://127.0.0.1:9999/callback',
      homepage_url: '',
      logo_url: '',
      post_logout_redirect_uris: 'https://app.example.com/bye',
      backchannel_logout_uri: 'https://app.example.com/logout',
    });
    assert.equal(good.status, 303);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.postLogoutRedirectUris, ['https://app.example.com/bye']);
    // Emptied fields remove them.
    const cleared = await submitForm(browser, server.baseUrl, path, `${path}/settings`, {
      name: 'Console App',
      redirect_uris: 'http://127.0.0.1:9999/callback',
      homepage_url: '',
      logo_url: '',
      post_logout_redirect_uris: '',
      backchannel_logout_uri: '',
    });
    assert.equal(cleared.status, 303);
    const saved = await server.storage.clients.findById(clientId);
    assert.deepEqual(saved?.postLogoutRedirectUris, []);
    assert.equal(saved?.backchannelLogoutUri, null);
  });

  test('rotating the secret with the grace period keeps the old one working until the stated time, then it stops', async () => {
    const { clientId, clientSecret: oldSecret } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    const rotated = await followRedirect(browser, server.baseUrl, await submitForm(browser, server.baseUrl, path, `${path}/secret`, { grace: 'default' }));
    assert.equal(rotated.status, 200);
    const newSecret = valueById(rotated.body, 'client_secret');
    assert.notEqual(newSecret, oldSecret);
    assert.match(pageText(rotated.body), /previous secret keeps working for 24 hours, until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.equal(await secretIsAccepted(clientId, newSecret), true);
    assert.equal(await secretIsAccepted(clientId, oldSecret), true, 'old secret during the grace period');
    assert.match(pageText((await browser.request(`${server.baseUrl}${path}`)).body), /previous secret keeps working until/);

    // The grace period ends: move its end into the past, as time would.
    await server.storage.clients.update(clientId, { previousSecretExpiresAt: new Date(Date.now() - 1000) }, new Date());
    assert.equal(await secretIsAccepted(clientId, oldSecret), false, 'old secret after the grace period');
    assert.equal(await secretIsAccepted(clientId, newSecret), true);
  });

  test('rotating with "stop it immediately" ends the old secret at once', async () => {
    const { clientId, clientSecret: oldSecret } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    const rotated = await followRedirect(browser, server.baseUrl, await submitForm(browser, server.baseUrl, path, `${path}/secret`, { grace: 'none' }));
    assert.match(pageText(rotated.body), /stopped working immediately/);
    assert.equal(await secretIsAccepted(clientId, oldSecret), false);
    assert.equal(await secretIsAccepted(clientId, valueById(rotated.body, 'client_secret')), true);
  });

  test('a grace or an app kind the forms do not offer is a 400 that says what to choose, and changes nothing', async () => {
    const { clientId, clientSecret } = await registerApp();
    const path = `/developer/apps/${clientId}`;
    for (const grace of ['bogus', '-5', '0', '999999999']) {
      const refused = await submitForm(browser, server.baseUrl, path, `${path}/secret`, { grace });
      assert.equal(refused.status, 400, grace);
      assert.match(pageText(refused.body), /Choose when the old secret stops working/, grace);
    }
    assert.equal(await secretIsAccepted(clientId, clientSecret), true, 'no rotation happened');
    const appsBefore = (await server.storage.clients.listByOwner(owner.id)).length;
    const kind = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Admin kind', app_type: 'admin', redirect_uris: 'https://app.example.com/cb', homepage_url: '', logo_url: '' });
    assert.equal(kind.status, 400);
    assert.match(pageText(kind.body), /Choose the kind of app/);
    assert.equal((await server.storage.clients.listByOwner(owner.id)).length, appsBefore, 'no app registered');
  });

  test('a redirect_uri mismatch is listed with the comparison and request id, and "add this redirect URL" registers it', async () => {
    const { clientId } = await registerApp({ redirect_uris: 'https://app.example.com/auth/callback' });
    const sent = 'https://app.example.com/auth/callback/';
    const failed = await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(sent)}`, { redirect: 'manual' });
    assert.equal(failed.status, 400);
    const requestId = failed.headers.get('x-request-id') ?? '';
    const page = await browser.request(`${server.baseUrl}/developer/apps/${clientId}`);
    const text = pageText(page.body);
    assert.ok(text.includes(requestId), 'shows the request id');
    // dt and dd follow each other without text between them.
    assert.ok(text.includes(`redirect_uri sent${sent}`), text);
    assert.ok(text.includes('Closest registeredhttps://app.example.com/auth/callback'));
    assert.match(text, /They differ inthe trailing slash: \/auth\/callback\/ sent, \/auth\/callback registered/);
    const added = await browser.request(`${server.baseUrl}/developer/apps/${clientId}/redirect-uris/add`, { form: { _csrf: inputValue(page.body, '_csrf'), redirect_uri: sent } });
    assert.equal(added.status, 303);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['https://app.example.com/auth/callback', sent]);
  });

  test('a mismatched redirect_uri that would fail registration gets no add button, and a forged add is refused', async () => {
    const { clientId } = await registerApp({ redirect_uris: 'https://app.example.com/cb' });
    const sent = 'http://app.example.com/cb';
    await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(sent)}`, { redirect: 'manual' });
    const page = await browser.request(`${server.baseUrl}/developer/apps/${clientId}`);
    assert.ok(!page.body.includes('Add this redirect URL'));
    assert.match(pageText(page.body), /Cannot be added: Redirect URI http:\/\/app.example.com\/cb uses http to a non-loopback host/);
    const forged = await browser.request(`${server.baseUrl}/developer/apps/${clientId}/redirect-uris/add`, { form: { _csrf: inputValue(page.body, '_csrf'), redirect_uri: sent } });
    assert.equal(forged.status, 400);
    assert.deepEqual((await server.storage.clients.findById(clientId))?.redirectUris, ['https://app.example.com/cb']);
  });

  test('the integration guide carries the app’s real issuer, client id and redirect URI in every snippet', async () => {
    const { clientId } = await registerApp({ redirect_uris: 'https://app.example.com/cb' });
    const text = pageText((await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body);
    const issuer = server.config.issuer;
    assert.ok(text.includes(`${issuer}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=openid+email+profile`));
    assert.ok(text.includes(`curl -X POST ${issuer}/oauth2/token \\ -u "${clientId}:$LATCH_CLIENT_SECRET"`), 'client_secret_basic');
    assert.ok(text.includes(`-d client_id=${clientId} \\ --data-urlencode "client_secret=$LATCH_CLIENT_SECRET"`), 'client_secret_post');
    assert.ok(text.includes(`curl ${issuer}/oauth2/userinfo \\ -H "Authorization: Bearer $ACCESS_TOKEN"`));
    assert.ok(text.includes(`LATCH_ISSUER=${issuer} LATCH_CLIENT_ID=${clientId}`));
  });

  test('the app page counts its live grants: none at first, one per sign-in with a live token, none once revoked', async () => {
    const { clientId, clientSecret } = await registerApp();
    const path = `${server.baseUrl}/developer/apps/${clientId}`;
    assert.match(pageText((await browser.request(path)).body), /No live grants/);
    const { user, password } = await server.createUser();
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const redirect = await authorize(new TestBrowser(), server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback' }, { email: user.email, password });
      const token = await exchangeCode(server.baseUrl, { clientId, clientSecret, redirectUris: [] }, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '' });
      assert.equal(token.status, 200);
      tokens.push(token.body.access_token);
    }
    assert.match(pageText((await browser.request(path)).body), /2 live grants: /);
    for (const token of tokens) {
      const revoked = await fetch(`${server.baseUrl}/oauth2/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: clientId, client_secret: clientSecret }) });
      assert.equal(revoked.status, 200);
    }
    assert.match(pageText((await browser.request(path)).body), /No live grants/);
  });

  test('the guide’s curl token exchange works as written (Basic and post)', async () => {
    const { clientId, clientSecret } = await registerApp({ redirect_uris: 'http://127.0.0.1:9999/callback' });
    const { user, password } = await server.createUser();
    for (const style of ['basic', 'post'] as const) {
      const userBrowser = new TestBrowser();
      const redirect = await authorize(userBrowser, server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback', scope: 'profile' }, { email: user.email, password });
      const token = await exchangeCode(server.baseUrl, { clientId, clientSecret, redirectUris: [] }, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '', redirect_uri: 'http://127.0.0.1:9999/callback' }, style);
      assert.equal(token.status, 200, JSON.stringify(token.body));
    }
  });

  test('deleting an app needs the confirmation box, then its tokens stop working', async () => {
    const { clientId, clientSecret } = await registerApp();
    const { user, password } = await server.createUser();
    const redirect = await authorize(new TestBrowser(), server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback' }, { email: user.email, password });
    const token = await exchangeCode(server.baseUrl, { clientId, clientSecret, redirectUris: [] }, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '' });
    const userinfo = () => fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal((await userinfo()).status, 200);

    const path = `/developer/apps/${clientId}`;
    assert.match(pageText((await browser.request(`${server.baseUrl}${path}`)).body), /1 live grant: /, 'the console counts the live grant');
    const unconfirmed = await submitForm(browser, server.baseUrl, path, `${path}/delete`, {});
    assert.equal(unconfirmed.status, 400);
    assert.ok(fieldError(unconfirmed.body, 'confirm_delete'));
    assert.ok(await server.storage.clients.findById(clientId));

    const deleted = await submitForm(browser, server.baseUrl, path, `${path}/delete`, { confirm: 'yes' });
    assert.equal(deleted.status, 303);
    assert.equal(await server.storage.clients.findById(clientId), null);
    assert.equal((await userinfo()).status, 401);
  });

  test('"Single-page or mobile app" registers a public client: no secret shown or rotatable, client_id alone with PKCE works', async () => {
    const registerPage = await browser.request(`${server.baseUrl}/developer`);
    assert.match(pageText(registerPage.body), /Single-page or mobile app/);
    assert.match(registerPage.body, /name="app_type" value="web" checked/, 'a web app with a back end by default');
    const response = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', {
      name: 'Console SPA',
      app_type: 'public',
      redirect_uris: 'http://127.0.0.1:5173/callback',
      homepage_url: '',
      logo_url: '',
    });
    const shown = await followRedirect(browser, server.baseUrl, response);
    const clientId = valueById(shown.body, 'client_id');
    assert.ok(!shown.body.includes('id="client_secret"'), 'no secret is shown');
    assert.match(pageText(shown.body), /no client secret/);
    assert.equal((await server.storage.clients.findById(clientId))?.tokenEndpointAuthMethod, 'none');

    const path = `/developer/apps/${clientId}`;
    const appPage = await browser.request(`${server.baseUrl}${path}`);
    assert.match(pageText(appPage.body), /it has no secret/);
    assert.match(pageText(appPage.body), /client id alone, no secret/, 'the guide shows the exchange as the app makes it');
    assert.ok(!appPage.body.includes('LATCH_CLIENT_SECRET'), 'no secret in the guide');
    assert.ok(!appPage.body.includes(`action="${path}/secret"`), 'no rotation form');
    const rotate = await submitForm(browser, server.baseUrl, path, `${path}/secret`, { grace: 'none' });
    assert.equal(rotate.status, 400);

    const { user, password } = await server.createUser();
    const pkce = pkcePair();
    const redirect = await authorize(
      new TestBrowser(),
      server.baseUrl,
      { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:5173/callback', code_challenge: pkce.challenge, code_challenge_method: 'S256' },
      { email: user.email, password },
    );
    const token = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:5173' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '', code_verifier: pkce.verifier, client_id: clientId }),
    });
    assert.equal(token.status, 200);
    assert.equal(token.headers.get('access-control-allow-origin'), 'http://127.0.0.1:5173');
  });

  test('a registration form with errors keeps the "Single-page or mobile app" choice', async () => {
    const response = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: '', app_type: 'public', redirect_uris: 'http://127.0.0.1:5173/callback', homepage_url: '', logo_url: '' });
    assert.equal(response.status, 400);
    assert.match(response.body, /name="app_type" value="public" checked/);
  });
  describe('post/redirect/get: reloading the result of a console form changes nothing (issue 19 item 4)', () => {
    test('registering answers 303; the one-time page shows the secret once, and a reload neither shows it again nor registers again', async () => {
      const before = (await server.storage.clients.listByOwner(owner.id)).length;
      const posted = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Reload App', redirect_uris: 'https://reload.example.com/cb', homepage_url: '', logo_url: '' });
      assert.equal(posted.status, 303);
      const location = posted.headers.get('location') ?? '';
      assert.match(location, /^\/developer\/apps\/[^/]+\/new-secret$/);
      assert.ok(!posted.body.includes('latch_cs_'), 'the POST answer itself carries no secret');
      const shown = await browser.request(`${server.baseUrl}${location}`);
      assert.equal(shown.status, 200);
      assert.equal(shown.headers.get('cache-control'), 'no-store');
      const secret = valueById(shown.body, 'client_secret');
      assert.ok(!JSON.stringify(shown.headers.getSetCookie()).includes(secret), 'the secret is not in a cookie in clear');
      // The reload: the browser GETs the page again (a 303 is never re-posted).
      const reloaded = await browser.request(`${server.baseUrl}${location}`);
      assert.equal(reloaded.status, 303);
      assert.match(reloaded.headers.get('location') ?? '', /\?notice=secret-shown$/);
      assert.ok(!reloaded.body.includes(secret));
      const appPage = await browser.request(new URL(reloaded.headers.get('location') ?? '', server.baseUrl).href);
      assert.match(pageText(appPage.body), /shown once and cannot be shown again/);
      assert.ok(!appPage.body.includes(secret));
      assert.equal((await server.storage.clients.listByOwner(owner.id)).length, before + 1, 'registered once');
    });

    test('the sealed secret cookie is bound to its app: moved to another app’s one-time page, it shows nothing', async () => {
      const first = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Bound App', redirect_uris: 'https://bound.example.com/cb', homepage_url: '', logo_url: '' });
      const firstPath = first.headers.get('location') ?? '';
      const cookie = (await browser.jar.getCookies(`${server.baseUrl}${firstPath}`)).find((c) => c.key === 'latch_new_secret');
      assert.ok(cookie, 'the secret rides in a cookie scoped to the one-time page');
      assert.equal(cookie.path, firstPath);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'strict');
      const second = await submitForm(browser, server.baseUrl, '/developer', '/developer/apps', { name: 'Other App', redirect_uris: 'https://bound.example.com/cb', homepage_url: '', logo_url: '' });
      const secondPath = second.headers.get('location') ?? '';
      await browser.jar.setCookie(`latch_new_secret=${cookie.value}; Path=${secondPath}; HttpOnly`, `${server.baseUrl}${secondPath}`);
      const moved = await browser.request(`${server.baseUrl}${secondPath}`);
      assert.equal(moved.status, 303, 'sealed for another app: nothing to show');
      assert.match(moved.headers.get('location') ?? '', /notice=secret-shown/);
    });

    test('rotating answers 303; a reload of the one-time page rotates nothing, and the new secret keeps working', async () => {
      const { clientId } = await registerApp();
      const path = `/developer/apps/${clientId}`;
      const posted = await submitForm(browser, server.baseUrl, path, `${path}/secret`, { grace: 'none' });
      const shown = await followRedirect(browser, server.baseUrl, posted);
      const secret = valueById(shown.body, 'client_secret');
      const hashAfterRotation = (await server.storage.clients.findById(clientId))?.secretHash;
      const reloaded = await browser.request(`${server.baseUrl}${posted.headers.get('location')}`);
      assert.equal(reloaded.status, 303);
      assert.equal((await server.storage.clients.findById(clientId))?.secretHash, hashAfterRotation, 'not rotated again');
      assert.equal(await secretIsAccepted(clientId, secret), true);
    });

    test('every other console form answers 303 with a GET target, and GETting it twice changes nothing', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'https://prg.example.com/cb' });
      const path = `/developer/apps/${clientId}`;
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('https://prg.example.com/cb2')}`, { redirect: 'manual' });
      const forms: [string, Record<string, string>][] = [
        [`${path}/settings`, { name: 'PRG App', redirect_uris: 'https://prg.example.com/cb', homepage_url: '', logo_url: '' }],
        [`${path}/redirect-uris/add`, { redirect_uri: 'https://prg.example.com/cb2' }],
        [`${path}/delete`, { confirm: 'yes' }],
      ];
      for (const [action, form] of forms) {
        const posted = await submitForm(browser, server.baseUrl, action.endsWith('/delete') ? path : path, action, form);
        assert.equal(posted.status, 303, action);
        const snapshot = JSON.stringify(await server.storage.clients.findById(clientId));
        const target = new URL(posted.headers.get('location') ?? '', server.baseUrl).href;
        assert.ok([200].includes((await browser.request(target)).status), action);
        assert.ok([200].includes((await browser.request(target)).status), `${action}, reloaded`);
        assert.equal(JSON.stringify(await server.storage.clients.findById(clientId)), snapshot, `reloading after ${action} changed nothing`);
      }
    });
  });

  describe('the app page (issue 19 item 4)', () => {
    test('recent failed requests come first when there are any, and below the settings when there are none', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'https://order.example.com/cb' });
      const path = `${server.baseUrl}/developer/apps/${clientId}`;
      const quiet = (await browser.request(path)).body;
      assert.ok(quiet.indexOf('id="failures-heading"') > quiet.indexOf('id="settings-heading"'), 'no failures: below the settings');
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('https://order.example.com/cb/')}`, { redirect: 'manual' });
      const busy = (await browser.request(path)).body;
      const failures = busy.indexOf('id="failures-heading"');
      assert.ok(failures > busy.indexOf('id="app-heading"'));
      for (const later of ['secret-heading', 'settings-heading', 'guide-heading']) assert.ok(failures < busy.indexOf(`id="${later}"`), `failures before ${later}`);
    });

    test('a person pressing "Deny" is not listed as a failure of the app, but apart', async () => {
      const { clientId } = await registerApp();
      const { user, password } = await server.createUser();
      const back = await authorize(new TestBrowser(), server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: 'http://127.0.0.1:9999/callback', scope: 'openid profile', state: 's' }, { email: user.email, password }, 'deny');
      assert.equal(back.searchParams.get('error'), 'access_denied');
      const page = (await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body;
      const text = pageText(page);
      assert.match(text, /Recent failed requestsNo failed authorization or token requests recently/);
      assert.ok(!/failures-heading[\s\S]*access_denied[\s\S]*settings-heading/.test(page));
      assert.match(text, /Declined by peopleOne person chose “Deny” on the consent page recently/);
    });

    test('the mismatch comparison names the real difference: a loopback URL on another port and another path differs in the path', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'http://127.0.0.1:3000/callback' });
      const sent = 'http://127.0.0.1:8080/auth/callback';
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(sent)}`, { redirect: 'manual' });
      const text = pageText((await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body);
      assert.match(text, /They differ inthe path: \/auth\/callback sent, \/callback registered \(The ports were not compared: a URL on http:\/\/127\.0\.0\.1 or http:\/\/\[::1\] matches any port\.\)/);
      assert.doesNotMatch(text, /differ inthe port/);
    });

    test('localhost on another port differs in the port, and the page says why the any-port rule does not apply', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'http://localhost:3000/callback' });
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('http://localhost:5173/callback')}`, { redirect: 'manual' });
      const text = pageText((await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body);
      assert.match(text, /They differ inthe port: 5173 sent, 3000 registered \(Only http:\/\/127\.0\.0\.1 and http:\/\/\[::1\] match any port/);
    });

    test('a failed request whose URL was registered since says so, instead of a difference', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'https://since.example.com/cb' });
      const sent = 'https://since.example.com/other';
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(sent)}`, { redirect: 'manual' });
      await server.storage.clients.update(clientId, { redirectUris: ['https://since.example.com/cb', sent] }, new Date());
      const text = pageText((await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body);
      assert.match(text, /Nowregistered: the same request would pass today/);
      assert.ok(!text.includes('Add this redirect URL'));
    });

    test('the redirect-URL rules are worded the same on the register form, the settings form and beside a mismatch', async () => {
      const { clientId } = await registerApp({ redirect_uris: 'https://rules.example.com/cb' });
      await fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent('https://rules.example.com/cb/')}`, { redirect: 'manual' });
      const register = pageText((await browser.request(`${server.baseUrl}/developer`)).body);
      const app = (await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body;
      const rules = pageText(`<p>${en['developer.redirectRules']}</p>`).trim();
      assert.ok(register.includes(rules), 'on the register form');
      assert.equal(pageText(app).split(rules).length - 1, 2, 'in the settings hint and beside the mismatch');
    });

    test('ids and secrets are set in a monospace font', async () => {
      const { clientId, page } = await registerApp();
      assert.match(page.body, /<input id="client_id"[^>]*class="mono"/);
      assert.match(page.body, /<input id="client_secret"[^>]*class="mono"/);
      const app = (await browser.request(`${server.baseUrl}/developer/apps/${clientId}`)).body;
      assert.match(app, /<input id="client_id"[^>]*class="mono"/);
      const list = (await browser.request(`${server.baseUrl}/developer`)).body;
      assert.ok(list.includes(`<code>${clientId}</code>`), 'the app list shows the id as code');
      const css = await (await fetch(`${server.baseUrl}/assets/latch.css`)).text();
      assert.match(css, /\.mono[^{]*\{[^}]*monospace/);
      assert.match(css, /#redirect_uris[^{]*\{[^}]*monospace/, 'redirect URLs are typed in a monospace font too');
    });
  });
});
