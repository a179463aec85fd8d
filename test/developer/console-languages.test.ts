/**
 * The developer console and the development outbox in German (issue 19 item 7), over real HTTP: a developer whose
 * browser asks for German gets the console list, the registration form and its errors, the one-time secret page,
 * an app page with its failed requests, declines and notes, the playground through every step, the console's
 * error pages and /dev/outbox in German throughout, frame included: `<html lang="de">`, and none of the English
 * catalogue's sentences left on them. The rule problems the CLI and the registration endpoint say in English are
 * German here, and an English browser still gets the English words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parsePage } from 'node-html-parser';
import { inputValue, pageText, type BrowserResponse } from '../helpers/browser.js';
import { decide, pkcePair } from '../helpers/oauth-flow.js';
import { followRedirect, submitForm, valueById } from '../helpers/pages.js';
import { htmlLang, LanguageBrowser, wordsLeftOn } from '../helpers/page-language.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A German page: lang="de", Content-Language de, and no English sentence of the catalogue in it. */
function assertGerman(page: BrowserResponse, what: string): void {
  assert.equal(htmlLang(page), 'de', `${what}: <html lang>`);
  assert.equal(page.headers.get('content-language'), 'de', `${what}: Content-Language`);
  assert.deepEqual(wordsLeftOn(page.body, 'en', 'de'), [], `${what}: English left on the German page`);
}

describe('the developer console and the outbox in German', () => {
  let server: TestServer;
  let german: LanguageBrowser;
  let email: string;
  const get = (path: string) => german.request(`${server.baseUrl}${path}`);

  before(async () => {
    server = await startTestServer({ captureLog: true });
    const { user, password } = await server.createUser({ name: 'Dana Schmidt' });
    email = user.email;
    german = new LanguageBrowser('de-DE,de;q=0.9,en;q=0.5');
    const login = await german.request(`${server.baseUrl}/login`);
    const signedIn = await german.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(login.body, '_csrf'), return_to: '/', email, password } });
    assert.equal(signedIn.status, 303);
  });
  after(async () => server.stop());

  async function register(form: Record<string, string>): Promise<BrowserResponse> {
    return submitForm(german, server.baseUrl, '/developer', '/developer/apps', { homepage_url: '', logo_url: '', ...form });
  }

  /** An authorization request of the app, as its back end would send the browser (not followed). */
  function authorizeUrl(clientId: string, extra: Record<string, string>): string {
    const params = { response_type: 'code', client_id: clientId, scope: 'openid', state: 's', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', ...extra };
    return `${server.baseUrl}/oauth2/authorize?${new URLSearchParams(params)}`;
  }

  test('the console, its registration errors and the one-time secret page', async () => {
    const empty = await get('/developer');
    assert.equal(empty.status, 200);
    assertGerman(empty, 'console without apps');
    assert.match(pageText(empty.body), /Ihre Apps.*Sie haben noch keine App registriert\..*Neue App registrieren/);

    const refused = await register({
      name: ' ',
      app_type: 'web',
      redirect_uris: 'https://app.example/cb#x\nhttp://plain.example/cb\nmyapp:/cb',
      homepage_url: 'http://home.example',
      logo_url: 'not a url',
      post_logout_redirect_uris: 'https://after.example/#f',
      backchannel_logout_uri: 'http://localhost/logout',
    });
    assert.equal(refused.status, 400);
    assertGerman(refused, 'console with a refused registration');
    const text = pageText(refused.body);
    assert.match(text, /Der Name der App darf nicht leer sein/);
    assert.match(text, /Die Weiterleitungs-URI https:\/\/app\.example\/cb#x darf kein Fragment \(#…\) enthalten: RFC 6749 §3\.1\.2; Die Weiterleitungs-URI http:\/\/plain\.example\/cb verwendet http/);
    assert.match(text, /Das Schema myapp: ist für eine Weiterleitungs-URI nicht erlaubt/);
    assert.match(text, /Die Website-URL muss mit https:\/\/ beginnen/);
    assert.match(text, /Die Logo-URL muss eine absolute URL sein/);
    assert.match(text, /Die Post-Logout-Weiterleitungs-URI https:\/\/after\.example\/#f darf kein Fragment/);
    assert.match(text, /Die Back-Channel-Logout-URI http:\/\/localhost\/logout verwendet http/);

    const secretPage = await followRedirect(german, server.baseUrl, await register({ name: 'Orbit Notes', app_type: 'web', redirect_uris: 'https://app.example.com/cb' }));
    assert.equal(secretPage.status, 200);
    assertGerman(secretPage, 'one-time secret page');
    assert.match(pageText(secretPage.body), /Orbit Notes ist registriert.*Kopieren Sie das Secret jetzt/);
    const publicPage = await followRedirect(german, server.baseUrl, await register({ name: 'Orbit Web', app_type: 'public', redirect_uris: 'https://spa.example.com/cb' }));
    assertGerman(publicPage, 'one-time page of a public client');
    assert.match(pageText(publicPage.body), /Sie hat kein Client-Secret\./);

    const list = await get('/developer');
    assertGerman(list, 'console with apps');
    assert.match(pageText(list.body), /1 Weiterleitungs-URL · registriert am \d\d\.\d\d\.\d{4}, \d\d:\d\d UTC/);
  });

  test('an app page with failed requests, declines and notes; its errors, notices and a secret rotation', async () => {
    const secretPage = await followRedirect(german, server.baseUrl, await register({ name: 'Komet', app_type: 'web', redirect_uris: 'https://komet.example.com/cb' }));
    const clientId = valueById(secretPage.body, 'client_id');
    const appPath = `/developer/apps/${clientId}`;
    // Failed requests the app made (a redirect URL that differs in its path, one that can never be added), a
    // person's "Deny", and a scope value Latch ignored.
    for (const redirectUri of ['https://komet.example.com/other', 'https://komet.example.com/cb#frag']) {
      await fetch(authorizeUrl(clientId, { redirect_uri: redirectUri }), { redirect: 'manual' });
    }
    const allowing = await german.follow(authorizeUrl(clientId, { redirect_uri: 'https://komet.example.com/cb', scope: 'openid telepathy' }), server.baseUrl);
    assert.equal(allowing.status, 200);
    const allowed = await decide(german, server.baseUrl, allowing, 'allow');
    assert.match(allowed.headers.get('location') ?? '', /^https:\/\/komet\.example\.com\/cb\?code=/);
    const consent = await german.follow(authorizeUrl(clientId, { redirect_uri: 'https://komet.example.com/cb', scope: 'openid profile', prompt: 'consent' }), server.baseUrl);
    assert.equal(consent.status, 200);
    const denied = await decide(german, server.baseUrl, consent, 'deny');
    assert.ok(denied.status === 302 || denied.status === 303, `the decision redirects, got ${denied.status}`);

    const page = await get(appPath);
    assert.equal(page.status, 200);
    assertGerman(page, 'app page');
    const text = pageText(page.body);
    assert.match(text, /Letzte fehlgeschlagene Anfragen/);
    assert.match(text, /Unterschied ?im Pfad: \/other gesendet, \/cb registriert/);
    assert.match(text, /Kann nicht hinzugefügt werden: Die Weiterleitungs-URI https:\/\/komet\.example\.com\/cb#frag darf kein Fragment/);
    assert.match(text, /Eine Person hat kürzlich auf der Zustimmungsseite „Ablehnen“ gewählt/);
    assert.match(text, /Hinweise zu erfolgreichen Anfragen/);
    assert.match(text, /Integrationsanleitung.*Python: Authlib mit Flask/);
    // Latch's own error_description, quoted as the app received it, is marked English for screen readers.
    assert.ok(parsePage(page.body).querySelectorAll('.event p[lang="en"]').length >= 3, 'the quoted error descriptions say they are English');

    const unticked = await submitForm(german, server.baseUrl, appPath, `${appPath}/delete`, {});
    assert.equal(unticked.status, 400);
    assertGerman(unticked, 'app page, delete without the box ticked');
    assert.match(pageText(unticked.body), /Setzen Sie das Häkchen/);
    const badSettings = await submitForm(german, server.baseUrl, appPath, `${appPath}/settings`, { name: 'Komet', redirect_uris: '', homepage_url: '', logo_url: '' });
    assert.equal(badSettings.status, 400);
    assertGerman(badSettings, 'app page, settings refused');
    assert.match(pageText(badSettings.body), /Registrieren Sie mindestens eine Weiterleitungs-URI/);
    for (const notice of ['saved', 'redirect-added', 'playground-callback-removed', 'secret-shown']) {
      assertGerman(await get(`${appPath}?notice=${notice}`), `app page, notice ${notice}`);
    }

    const rotated = await followRedirect(german, server.baseUrl, await submitForm(german, server.baseUrl, appPath, `${appPath}/secret`, { grace: 'default' }));
    assertGerman(rotated, 'new secret after a rotation');
    assert.match(pageText(rotated.body), /Neues Client-Secret für Komet.*Das vorherige Secret funktioniert noch 24 Stunden lang/);
    const withPrevious = await get(appPath);
    assertGerman(withPrevious, 'app page with the previous secret still working');
    assert.match(pageText(withPrevious.body), /Das vorherige Secret funktioniert noch bis/);
  });

  test('the playground, every step, and its errors', async () => {
    const secretPage = await followRedirect(german, server.baseUrl, await register({ name: 'Testflug', app_type: 'web', redirect_uris: 'https://testflug.example.com/cb' }));
    const clientId = valueById(secretPage.body, 'client_id');
    const clientSecret = valueById(secretPage.body, 'client_secret');
    const playground = `/developer/apps/${clientId}/playground`;
    const before = await get(playground);
    assertGerman(before, 'playground before the test callback');
    assert.match(pageText(before.body), /Test-Callback hinzufügen/);
    const refused = await submitForm(german, server.baseUrl, playground, `${playground}/start`, {});
    assert.equal(refused.status, 400);
    assertGerman(refused, 'playground started without its callback');
    assert.match(pageText(refused.body), /Fügen Sie zuerst den Test-Callback/);

    assert.equal((await submitForm(german, server.baseUrl, playground, `${playground}/callback-uri`, {})).status, 303);
    assertGerman(await get(`${playground}?notice=callback-added`), 'playground, callback added');
    assertGerman(await get(`${playground}?notice=no-run`), 'playground, no run waiting');
    const marked = await get(`/developer/apps/${clientId}`);
    assertGerman(marked, 'app page with the test callback');
    assert.match(parsePage(marked.body).querySelector('#playground-callback-note')?.textContent ?? '', /ist der Test-Callback von Latch/);

    const started = await followRedirect(german, server.baseUrl, await submitForm(german, server.baseUrl, playground, `${playground}/start`, {}));
    assertGerman(started, 'playground, the authorization request');
    const authorize = parsePage(started.body).querySelector('#playground_authorize_url')?.textContent.trim() ?? '';
    let answer = await german.follow(authorize, server.baseUrl);
    if (answer.status === 200) answer = await decide(german, server.baseUrl, answer, 'allow');
    const callback = await german.request(new URL(answer.headers.get('location') ?? '', server.baseUrl).href);
    assert.equal(callback.status, 303);
    const back = await followRedirect(german, server.baseUrl, callback);
    assertGerman(back, 'playground, back at the redirect URL');
    assert.match(pageText(back.body), /✓ Bestanden state: .* ist der gesendete state \(RFC 6749 §10\.12\)/);

    const wrongSecret = await followRedirect(german, server.baseUrl, await submitForm(german, server.baseUrl, playground, `${playground}/exchange`, { client_secret: 'not the secret' }));
    assertGerman(wrongSecret, 'playground, a wrong secret');
    assert.match(pageText(wrongSecret.body), /✗ Fehlgeschlagen Der Token-Endpunkt antwortete mit HTTP 401 und invalid_client\./);
    const done = await followRedirect(german, server.baseUrl, await submitForm(german, server.baseUrl, playground, `${playground}/exchange`, { client_secret: clientSecret }));
    assertGerman(done, 'playground, every step done');
    const checks = parsePage(done.body)
      .querySelectorAll('ul.checks li')
      .map((item) => item.textContent.replace(/\s+/g, ' ').trim());
    assert.equal(checks.length, 7, pageText(done.body).slice(0, 3000));
    assert.ok(checks.every((check) => check.startsWith('✓ Bestanden')), checks.join('\n'));
    assert.match(checks.join('\n'), /aud enthält .*, die Client-ID dieser App/);
    assert.match(pageText(done.body), /Das id_token, dekodiert und geprüft/);

    // A person's "Deny": Latch's English error_description is quoted, marked as English, in a German sentence.
    const again = await followRedirect(german, server.baseUrl, await submitForm(german, server.baseUrl, playground, `${playground}/start`, {}));
    const consent = await german.follow(`${parsePage(again.body).querySelector('#playground_authorize_url')?.textContent.trim()}&prompt=consent`, server.baseUrl);
    const denied = await german.request(new URL((await decide(german, server.baseUrl, consent, 'deny')).headers.get('location') ?? '', server.baseUrl).href);
    const deniedPage = await followRedirect(german, server.baseUrl, denied);
    assertGerman(deniedPage, 'playground, the person chose Deny');
    assert.match(pageText(deniedPage.body), /✗ Fehlgeschlagen Latch schickte error=access_denied zurück: .* \(die Person hat „Ablehnen“ gewählt\)\./);
    assert.ok(parsePage(deniedPage.body).querySelector('#step-callback')?.parentNode?.querySelector('span[lang="en"]'), 'the description is marked English');

    const onlyCallback = await followRedirect(german, server.baseUrl, await register({ name: 'Nur Test', app_type: 'public', redirect_uris: 'https://nur.example.com/cb' }));
    const onlyId = valueById(onlyCallback.body, 'client_id');
    const onlyPlayground = `/developer/apps/${onlyId}/playground`;
    await submitForm(german, server.baseUrl, onlyPlayground, `${onlyPlayground}/callback-uri`, {});
    await server.storage.clients.update(onlyId, { redirectUris: [`${server.config.issuer}${onlyPlayground}/callback`] }, new Date());
    const cannotRemove = await submitForm(german, server.baseUrl, onlyPlayground, `${onlyPlayground}/callback-uri/remove`, {});
    assert.equal(cannotRemove.status, 400);
    assertGerman(cannotRemove, 'playground, removing the only redirect URL');
  });

  test("the console's error pages", async () => {
    const unknown = await get('/developer/apps/no-such-app');
    assert.equal(unknown.status, 404);
    assertGerman(unknown, 'an app that is not yours');
    assert.match(pageText(unknown.body), /Keine Ihrer Apps hat diese Client-ID\./);
    const publicApp = await followRedirect(german, server.baseUrl, await register({ name: 'Ohne Secret', app_type: 'public', redirect_uris: 'https://ohne.example.com/cb' }));
    const clientId = valueById(publicApp.body, 'client_id');
    const rotate = await submitForm(german, server.baseUrl, `/developer/apps/${clientId}`, `/developer/apps/${clientId}/secret`, {});
    assert.equal(rotate.status, 400);
    assertGerman(rotate, 'rotating the secret of a public client');
  });

  test('the development outbox', async () => {
    const forgot = await submitForm(german, server.baseUrl, '/forgot-password', '/forgot-password', { email });
    assert.equal(forgot.status, 200);
    const outbox = await get('/dev/outbox');
    assert.equal(outbox.status, 200);
    assertGerman(outbox, 'outbox');
    assert.match(pageText(outbox.body), /Entwicklungs-Postausgang.*Setzen Sie Ihr Latch-Passwort zurück/);
    assert.match(parsePage(outbox.body).querySelector('article.mail')?.getAttribute('aria-label') ?? '', /^E-Mail an /);
    const signedOut = await new LanguageBrowser('de').request(`${server.baseUrl}/dev/outbox`);
    assertGerman(signedOut, 'outbox, signed out');
  });

  test('an English browser gets the same pages in English, with none of the German words', async () => {
    const english = new LanguageBrowser('en-GB,en;q=0.9');
    const { user, password } = await server.createUser({ name: 'Sam Smith' });
    const login = await english.request(`${server.baseUrl}/login`);
    await english.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(login.body, '_csrf'), return_to: '/', email: user.email, password } });
    const posted = await submitForm(english, server.baseUrl, '/developer', '/developer/apps', { name: 'Orbit', app_type: 'web', redirect_uris: 'https://orbit.example/cb#x', homepage_url: '', logo_url: '' });
    assert.equal(posted.status, 400);
    assert.match(pageText(posted.body), /Redirect URI https:\/\/orbit\.example\/cb#x must not contain a fragment \(#…\): RFC 6749 §3\.1\.2/);
    const secretPage = await followRedirect(english, server.baseUrl, await submitForm(english, server.baseUrl, '/developer', '/developer/apps', { name: 'Orbit', app_type: 'web', redirect_uris: 'https://orbit.example/cb', homepage_url: '', logo_url: '' }));
    const clientId = valueById(secretPage.body, 'client_id');
    for (const page of [posted, secretPage, await english.request(`${server.baseUrl}/developer/apps/${clientId}`), await english.request(`${server.baseUrl}/developer/apps/${clientId}/playground`), await english.request(`${server.baseUrl}/dev/outbox`)]) {
      assert.equal(htmlLang(page), 'en');
      assert.deepEqual(wordsLeftOn(page.body, 'de', 'en'), [], 'German left on an English page');
    }
    assert.match(pageText(secretPage.body), /Orbit is registered.*Copy the secret now: this is the only time Latch shows it\./);
  });
});
