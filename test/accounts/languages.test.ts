/**
 * Issue 19 item 7 over real HTTP: pages follow the app's `ui_locales` within its flow (OIDC Core §3.1.2.1), then
 * the browser's Accept-Language, then English; `<html lang>` says which; discovery lists the languages. Each
 * translated page, in German, holds none of the English catalogue's sentences (every message whose German
 * differs), and the mails sent from a German page are in German.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { inputValue, pageText, type BrowserResponse } from '../helpers/browser.js';
import { htmlLang, LanguageBrowser, wordsLeftOn } from '../helpers/page-language.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { linkFromOutbox, submitForm } from '../helpers/pages.js';
import { enrolAuthenticator, signInWithPassword } from '../helpers/two-step.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A mail's text without its link (whose path is English: /reset-password). */
function withoutLinks(text: string): string {
  return text.split('\n').filter((line) => !/^https?:\/\//.test(line)).join('\n');
}

/** A German page: lang="de", and no English sentence of the catalogue in it. */
function assertGerman(page: BrowserResponse, what: string): void {
  assert.equal(htmlLang(page), 'de', `${what}: <html lang>`);
  assert.deepEqual(wordsLeftOn(page.body), [], `${what}: English left on the German page`);
}

describe('languages', () => {
  let server: TestServer;
  let client: { clientId: string; redirectUris: string[] };
  const flowParams = (extra: Record<string, string>) => ({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0]!,
    scope: 'openid profile',
    state: 's',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...extra,
  });

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Orbit Notes' });
  });
  after(async () => server.stop());

  test('discovery lists the languages of the pages', async () => {
    const metadata = (await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.deepEqual(metadata.ui_locales_supported, ['en', 'de']);
  });

  test('a page follows Accept-Language, and says its language in <html lang> and Content-Language', async () => {
    const german = await new LanguageBrowser('de-DE,de;q=0.9,en;q=0.5').request(`${server.baseUrl}/login`);
    assert.equal(htmlLang(german), 'de');
    assert.equal(german.headers.get('content-language'), 'de');
    assert.match(german.headers.get('vary') ?? '', /accept-language/i);
    assert.match(german.body, /Zum Inhalt springen/);
    const english = await new LanguageBrowser('en-GB').request(`${server.baseUrl}/login`);
    assert.equal(htmlLang(english), 'en');
    assert.match(english.body, /Skip to content/);
  });

  test('an unknown language falls back to English', async () => {
    for (const header of ['fr-FR,fr;q=0.9', 'x-klingon', '', 'de;q=0']) {
      const page = await new LanguageBrowser(header).request(`${server.baseUrl}/login`);
      assert.equal(htmlLang(page), 'en', header);
    }
  });

  test('ui_locales beats Accept-Language on the pages of that authorization request, and only there', async () => {
    const browser = new LanguageBrowser('en-US,en;q=0.9');
    const signIn = await browser.follow(authorizeUrl(server.baseUrl, flowParams({ ui_locales: 'fr-CA de-AT en' })), server.baseUrl);
    assert.equal(signIn.status, 200);
    assert.match(signIn.url, /\/login\?/);
    assert.equal(htmlLang(signIn), 'de');
    // The next request of the same browser without ui_locales is in the browser's language again.
    assert.equal(htmlLang(await browser.request(`${server.baseUrl}/login`)), 'en');
    // ui_locales naming no language Latch has leaves Accept-Language to choose.
    const germanBrowser = new LanguageBrowser('de');
    assert.equal(htmlLang(await germanBrowser.follow(authorizeUrl(server.baseUrl, flowParams({ ui_locales: 'fr it' })), server.baseUrl)), 'de');
  });

  /** Signs a LanguageBrowser in (with the sign-in page's form, as a person would). */
  async function signedIn(browser: LanguageBrowser, email: string, password: string): Promise<void> {
    const page = await browser.request(`${server.baseUrl}/login`);
    const response = await browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email, password } });
    assert.equal(response.status, 303);
  }

  test('ui_locales=de keeps an English browser in German through the sign-in, the second step and the consent page', async () => {
    const { user, password } = await server.createUser({ email: 'flow-de@example.com', name: 'Dana Schmidt' });
    const browser = new LanguageBrowser('en-US,en;q=0.9');
    const url = authorizeUrl(server.baseUrl, flowParams({ ui_locales: 'de' }));
    const signIn = await browser.follow(url, server.baseUrl);
    assertGerman(signIn, 'sign-in');
    assert.match(pageText(signIn.body), /weiter zu Orbit Notes/);
    const form = { _csrf: inputValue(signIn.body, '_csrf'), return_to: inputValue(signIn.body, 'return_to') };
    const wrong = await browser.request(`${server.baseUrl}/login`, { form: { ...form, email: user.email, password: 'not the password' } });
    assert.equal(wrong.status, 401);
    assertGerman(wrong, 'sign-in with a wrong password');
    assert.match(pageText(wrong.body), /E-Mail-Adresse oder Passwort ist falsch\./);

    const consent = await browser.follow(`${server.baseUrl}/login`, server.baseUrl, { form: { ...form, email: user.email, password } });
    assert.equal(consent.status, 200);
    assertGerman(consent, 'consent');
    assert.match(pageText(consent.body), /Orbit Notes möchte auf Ihr Profil zugreifen/);
    assert.match(pageText(consent.body), /Zulassen/);
  });

  test('the second step of a sign-in is in the language of the authorization request it continues', async () => {
    const { user, password } = await server.createUser({ email: 'two-step-de@example.com', name: 'Dana Schmidt' });
    const setUp = new LanguageBrowser('en');
    await signedIn(setUp, user.email, password);
    await enrolAuthenticator(server, setUp);
    const browser = new LanguageBrowser('en');
    const returnTo = new URL(authorizeUrl(server.baseUrl, flowParams({ ui_locales: 'de-CH' }))).href.slice(server.baseUrl.length);
    const first = await signInWithPassword(server, browser, user.email, password, returnTo);
    assert.equal(first.headers.get('location'), '/login/two-step');
    const step = await browser.request(`${server.baseUrl}/login/two-step`);
    assertGerman(step, 'second step');
    assert.match(pageText(step.body), /Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App ein\./);
    const wrong = await browser.request(`${server.baseUrl}/login/two-step`, { form: { _csrf: inputValue(step.body, '_csrf'), method: 'app', code: '000000' } });
    assertGerman(wrong, 'second step with a wrong code');
    assertGerman(await browser.request(`${server.baseUrl}/login/two-step?method=recovery`), 'second step with a recovery code');
    // Without ui_locales the same step is in the browser's language.
    const english = new LanguageBrowser('en');
    await signInWithPassword(server, english, user.email, password);
    assert.equal(htmlLang(await english.request(`${server.baseUrl}/login/two-step`)), 'en');
  });

  test('sign-up, its errors, the confirmation mail and the confirmation pages in German', async () => {
    const browser = new LanguageBrowser('de-DE,de;q=0.9');
    const page = await browser.request(`${server.baseUrl}/signup`);
    assertGerman(page, 'sign-up');
    const refused = await browser.request(`${server.baseUrl}/signup`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', name: 'Jo', email: 'jo@example.com', password: 'short' } });
    assert.equal(refused.status, 400);
    assertGerman(refused, 'sign-up with a short password');
    assert.match(pageText(refused.body), /Bitte korrigieren Sie das markierte Feld\./);
    assert.match(pageText(refused.body), /Das Passwort muss mindestens 10 Zeichen lang sein\./);
    const created = await browser.request(`${server.baseUrl}/signup`, {
      form: { _csrf: inputValue(refused.body, '_csrf'), return_to: '/', name: 'Jo', email: 'jo@example.com', password: 'four words of german' },
    });
    assert.equal(created.status, 303);
    const [mail] = (await server.storage.outbox.listRecent(100)).filter((message) => message.to === 'jo@example.com');
    assert.ok(mail);
    assert.equal(mail.subject, 'Bestätigen Sie Ihre E-Mail-Adresse für Latch');
    assert.match(mail.text, /^Hallo Jo,$/m);
    assert.match(mail.text, /Der Link funktioniert einmal und ist \d+ (Stunden|Tage|Minuten) lang gültig\./);
    assert.deepEqual(wordsLeftOn(`<p>${mail.subject}\n${withoutLinks(mail.text)}</p>`), []);

    const link = await linkFromOutbox(server, 'jo@example.com', '/verify-email');
    const confirm = await browser.request(link);
    assertGerman(confirm, 'confirm email');
    const confirmed = await browser.request(`${server.baseUrl}/verify-email`, { form: { _csrf: inputValue(confirm.body, '_csrf'), token: inputValue(confirm.body, 'token') } });
    assertGerman(confirmed, 'email confirmed');
    assert.match(pageText(confirmed.body), /E-Mail-Adresse bestätigt/);
    assertGerman(await browser.request(link), 'used confirmation link');
  });

  test('forgotten password: the pages, the mail and the reset in German', async () => {
    const { user } = await server.createUser({ email: 'reset-de@example.com', name: 'Kim' });
    const browser = new LanguageBrowser('de');
    assertGerman(await browser.request(`${server.baseUrl}/forgot-password`), 'forgot password');
    const malformed = await submitForm(browser, server.baseUrl, '/forgot-password', '/forgot-password', { email: 'not an address' });
    assertGerman(malformed, 'forgot password with a malformed address');
    const sent = await submitForm(browser, server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    assertGerman(sent, 'reset mail sent');
    const [mail] = (await server.storage.outbox.listRecent(100)).filter((message) => message.to === user.email);
    assert.ok(mail);
    assert.equal(mail.subject, 'Setzen Sie Ihr Latch-Passwort zurück');
    assert.match(mail.text, /^Hallo Kim,$/m);
    assert.deepEqual(wordsLeftOn(`<p>${mail.subject}\n${withoutLinks(mail.text)}</p>`), []);

    const link = await linkFromOutbox(server, user.email, '/reset-password');
    const reset = await browser.request(link);
    assertGerman(reset, 'choose a new password');
    const short = await browser.request(`${server.baseUrl}/reset-password`, { form: { _csrf: inputValue(reset.body, '_csrf'), token: inputValue(reset.body, 'token'), password: 'x' } });
    assertGerman(short, 'new password too short');
    assert.match(pageText(short.body), /Das Passwort muss mindestens 10 Zeichen lang sein\./);
    assertGerman(await browser.request(`${server.baseUrl}/reset-password?token=unknown`), 'reset link that no longer works');
  });

  test('the start page, error pages, the sign-out pages and the device page in German', async () => {
    const browser = new LanguageBrowser('de');
    const unknownApp = await browser.request(authorizeUrl(server.baseUrl, { ...flowParams({}), client_id: 'no-such-app' }));
    assert.equal(unknownApp.status, 400);
    assertGerman(unknownApp, 'authorization error');
    assert.match(pageText(unknownApp.body), /Dieser Anmeldelink funktioniert nicht/);
    const notFound = await browser.request(`${server.baseUrl}/no-such-page`);
    assert.equal(notFound.status, 404);
    assertGerman(notFound, 'page not found');

    assertGerman(await browser.request(`${server.baseUrl}/`), 'start page, signed out');
    const { user, password } = await server.createUser({ email: 'logout-de@example.com', name: 'Dana Schmidt' });
    await signedIn(browser, user.email, password);
    assertGerman(await browser.request(`${server.baseUrl}/`), 'start page, signed in');
    const device = await browser.request(`${server.baseUrl}/device`);
    assertGerman(device, 'device');
    const wrongCode = await browser.request(`${server.baseUrl}/device`, { form: { _csrf: inputValue(device.body, '_csrf'), user_code: 'BCDF-GHJK' } });
    assertGerman(wrongCode, 'device with an unknown code');
    assert.match(pageText(wrongCode.body), /Kein Gerät wartet auf diesen Code/);

    const question = await browser.request(`${server.baseUrl}/oauth2/logout`);
    assertGerman(question, 'sign out?');
    assert.match(pageText(question.body), /Von Latch abmelden\?/);
    const bad = await browser.request(`${server.baseUrl}/oauth2/logout?client_id=no-such-app&post_logout_redirect_uri=https://elsewhere.example/`);
    assert.equal(bad.status, 400);
    assertGerman(bad, 'sign-out request that cannot be followed');
    const done = await browser.follow(`${server.baseUrl}/oauth2/logout/confirm`, server.baseUrl, { form: { _csrf: inputValue(question.body, '_csrf') } });
    assertGerman(done, 'signed out');
    assert.match(pageText(done.body), /Sie sind abgemeldet/);
  });

  test('the two-step settings, the recovery codes and the mail about them in German', async () => {
    const { user, password } = await server.createUser({ email: 'settings-de@example.com', name: 'Alex' });
    const browser = new LanguageBrowser('de-DE');
    await signedIn(browser, user.email, password);
    const off = await browser.request(`${server.baseUrl}/account/two-step`);
    assertGerman(off, 'two-step settings, off');
    const wrongCode = await browser.request(`${server.baseUrl}/account/two-step/app`, { form: { _csrf: inputValue(off.body, '_csrf'), enrolment: inputValue(off.body, 'enrolment'), code: '000000' } });
    assertGerman(wrongCode, 'two-step settings, a wrong first code');
    const { page: codes } = await enrolAuthenticator(server, browser);
    assertGerman(codes, 'recovery codes');
    assert.match(pageText(codes.body), /Die Bestätigung in zwei Schritten ist eingeschaltet/);
    const on = await browser.request(`${server.baseUrl}/account/two-step`);
    assertGerman(on, 'two-step settings, on');
    assert.match(pageText(on.body), /Es sind noch 10 Codes übrig\./);
    assert.match(pageText(on.body), /Hinzugefügt am \d\d\.\d\d\.\d{4}, \d\d:\d\d UTC/);
    const wrongProof = await browser.request(`${server.baseUrl}/account/two-step/recovery-codes`, { form: { _csrf: inputValue(on.body, '_csrf'), proof: 'not it' } });
    assertGerman(wrongProof, 'two-step settings, a wrong password');
    assert.match(pageText(wrongProof.body), /Das ist weder Ihr Passwort noch ein aktueller Code aus Ihrer App\./);
    const [mail] = (await server.storage.outbox.listRecent(100)).filter((message) => message.to === user.email);
    assert.ok(mail);
    assert.equal(mail.subject, 'Ihrem Latch-Konto wurde eine Authenticator-App hinzugefügt');
    assert.deepEqual(wordsLeftOn(`<p>${mail.subject}\n${withoutLinks(mail.text)}</p>`), []);
  });

  test('RP-initiated logout: its ui_locales chooses the language of the sign-out question', async () => {
    const { user, password } = await server.createUser({ email: 'logout-ui-locales@example.com', name: 'Dana Schmidt' });
    const browser = new LanguageBrowser('en');
    await signedIn(browser, user.email, password);
    const question = await browser.request(`${server.baseUrl}/oauth2/logout?ui_locales=de-AT`);
    assertGerman(question, 'sign out? with ui_locales');
    assert.equal(htmlLang(await browser.request(`${server.baseUrl}/oauth2/logout`)), 'en');
  });

  test('the account page, its notices, its errors and its activity in German', async () => {
    const { user, password } = await server.createUser({ email: 'konto-de@example.com', name: 'Sam' });
    const other = new LanguageBrowser('en');
    await signedIn(other, user.email, password);
    const browser = new LanguageBrowser('de');
    await signedIn(browser, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account`);
    assertGerman(page, 'account');
    assert.match(pageText(page.body), /Letzte Aktivitäten/);
    assert.match(pageText(page.body), /Angemeldet/);
    assert.match(pageText(page.body), /Dieses Gerät/);
    const renamed = await browser.follow(`${server.baseUrl}/account/profile`, server.baseUrl, { form: { _csrf: inputValue(page.body, '_csrf'), name: 'Samira' } });
    assertGerman(renamed, 'account, name saved');
    assert.match(pageText(renamed.body), /Ihr Name ist jetzt Samira\./);
    const wrong = await browser.request(`${server.baseUrl}/account/password`, { form: { _csrf: inputValue(page.body, '_csrf'), current_password: 'not it', new_password: 'a new long password' } });
    assert.equal(wrong.status, 400);
    assertGerman(wrong, 'account, wrong current password');
    assert.match(pageText(wrong.body), /Das ist nicht Ihr aktuelles Passwort\./);
    const empty = await browser.request(`${server.baseUrl}/account/profile`, { form: { _csrf: inputValue(page.body, '_csrf'), name: ' ' } });
    assertGerman(empty, 'account, empty name');
    assert.match(pageText(empty.body), /Der Name darf nicht leer sein\./);
    const sessionId = parseHtml(page.body).querySelector('input[name="session"]')?.getAttribute('value');
    assert.ok(sessionId, 'the other session has a sign-out button');
    const ended = await browser.follow(`${server.baseUrl}/account/sessions/end`, server.baseUrl, { form: { _csrf: inputValue(page.body, '_csrf'), session: sessionId } });
    assertGerman(ended, 'account, a session signed out');
    assert.match(pageText(ended.body), /wurde abgemeldet\. Dieses Gerät muss sich neu anmelden/);
  });

  test('the admin console in German: users, one user, clients, one client, events, signing keys', async () => {
    const { user: admin, password } = await server.createUser({ email: 'admin-de@example.com', name: 'Dana Schmidt' });
    await server.storage.users.update(admin.id, { isAdmin: true }, new Date());
    const { user: other } = await server.createUser({ email: 'someone-de@example.com', name: 'Dana Schmidt' });
    const browser = new LanguageBrowser('de');
    await signedIn(browser, admin.email, password);
    for (const path of ['/admin/users', `/admin/users/${other.id}`, `/admin/users/${admin.id}`, '/admin/clients', `/admin/clients/${encodeURIComponent(client.clientId)}`, '/admin/events', '/admin/keys']) {
      const page = await browser.request(`${server.baseUrl}${path}`);
      assert.equal(page.status, 200, path);
      assertGerman(page, path);
    }
    const events = await browser.request(`${server.baseUrl}/admin/events`);
    assert.match(pageText(events.body), /Angemeldet/);
    const badFilter = await browser.request(`${server.baseUrl}/admin/events?since=yesterday&type=nothing`);
    assert.equal(badFilter.status, 400);
    assertGerman(badFilter, 'events with filters that cannot be read');
    const userPage = await browser.request(`${server.baseUrl}/admin/users/${other.id}`);
    const refused = await browser.request(`${server.baseUrl}/admin/users/${other.id}/delete`, { form: { _csrf: inputValue(userPage.body, '_csrf'), confirm_email: 'wrong' } });
    assert.equal(refused.status, 400);
    assertGerman(refused, 'delete refused');
    assert.match(pageText(refused.body), /Geben Sie someone-de@example\.com ein/);
    assertGerman(await browser.request(`${server.baseUrl}/admin/users/999999`), 'unknown account');
  });
});
