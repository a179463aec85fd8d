/**
 * Issue 19 items 2 and 6 over real HTTP: the operator's brand (LATCH_BRAND_*) on every page and in the mails,
 * the default favicon, and error pages for people: plain words, the request id, a way on, and a header that
 * knows whether the browser is signed in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { inputValue, pageText, TestBrowser } from '../helpers/browser.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { signedInBrowser, submitForm } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The header's navigation links, by their text. */
function headerLinks(html: string): string[] {
  return parseHtml(html).querySelectorAll('header.site nav a').map((a) => a.textContent.trim());
}

describe('branding through LATCH_BRAND_*', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      env: {
        LATCH_BRAND_NAME: 'Orbit Accounts',
        LATCH_BRAND_LOGO_URL: 'https://cdn.orbit.example/logo.svg',
        LATCH_BRAND_ACCENT: '#7c3aed',
        LATCH_BRAND_PRIVACY_URL: 'https://orbit.example/privacy',
        LATCH_BRAND_TERMS_URL: 'https://orbit.example/terms',
        LATCH_BRAND_HELP_URL: 'https://help.orbit.example/',
      },
    });
  });
  after(async () => server.stop());

  test('every page carries the name, the logo, the footer links and a stylesheet with the accent colour', async () => {
    const browser = new TestBrowser();
    for (const path of ['/', '/login', '/signup', '/forgot-password', '/no-such-page']) {
      const page = await browser.request(`${server.baseUrl}${path}`);
      const html = parseHtml(page.body);
      assert.match(html.querySelector('title')?.textContent ?? '', /Orbit Accounts$/, path);
      assert.equal(html.querySelector('header.site .brand')?.textContent.trim(), 'Orbit Accounts', path);
      assert.equal(html.querySelector('header.site .brand img')?.getAttribute('src'), 'https://cdn.orbit.example/logo.svg', path);
      const footer = html.querySelectorAll('footer.site a').map((a) => [a.textContent.trim(), a.getAttribute('href')]);
      assert.deepEqual(footer, [['Privacy', 'https://orbit.example/privacy'], ['Terms', 'https://orbit.example/terms'], ['Help', 'https://help.orbit.example/']], path);
      assert.doesNotMatch(pageText(page.body), /Latch identity provider/, path);
    }
    const home = parseHtml((await browser.request(`${server.baseUrl}/`)).body);
    // Pages that name the product name the operator's (the title of the home page is the name alone).
    assert.equal(home.querySelector('title')?.textContent, 'Orbit Accounts');
    assert.equal(home.querySelector('h1')?.textContent.trim(), 'Orbit Accounts');
    assert.match(pageText(home.toString()), /offers “Sign in with Orbit Accounts”/);
    assert.doesNotMatch(pageText(home.toString()), /Latch/);
    const href = home.querySelector('link[rel=stylesheet]')?.getAttribute('href') ?? '';
    assert.match(href, /^\/assets\/latch\.css\?v=[0-9a-f]{12}$/);
    const css = await (await fetch(`${server.baseUrl}${href}`)).text();
    assert.match(css, /:root \{ --accent: #7c3aed; \}\s*$/, 'the accent colour is the last word on --accent');
  });

  test('the mails carry the brand name, and come from it', async () => {
    const { user } = await server.createUser({ email: 'brand-mail@example.com' });
    await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    const [mail] = (await server.storage.outbox.listRecent(10)).filter((m) => m.to === user.email);
    assert.equal(mail?.subject, 'Reset your Orbit Accounts password');
    assert.match(mail?.text ?? '', /your Orbit Accounts account/);
    assert.match(server.config.mailFrom, /^Orbit Accounts <no-reply@/);
  });

  test('passkey dialogs name the brand as the relying party', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const page = await browser.request(`${server.baseUrl}/account/two-step`);
    const options = await browser.request(`${server.baseUrl}/account/passkeys/options`, { form: { _csrf: inputValue(page.body, '_csrf'), proof: password } });
    assert.equal(options.status, 200, options.body.slice(0, 200));
    assert.equal(JSON.parse(options.body).rp?.name, 'Orbit Accounts');
  });

  test('with a favicon URL configured, the pages link it and /favicon.ico and /favicon.svg send there', async () => {
    const branded = await startTestServer({ env: { LATCH_BRAND_FAVICON_URL: 'https://cdn.orbit.example/icon.png' } });
    try {
      const page = parseHtml((await fetch(`${branded.baseUrl}/login`).then((r) => r.text())));
      assert.equal(page.querySelector('link[rel=icon]')?.getAttribute('href'), 'https://cdn.orbit.example/icon.png');
      for (const path of ['/favicon.ico', '/favicon.svg']) {
        const response = await fetch(`${branded.baseUrl}${path}`, { redirect: 'manual' });
        assert.ok([301, 302].includes(response.status), path);
        assert.equal(response.headers.get('location'), 'https://cdn.orbit.example/icon.png', path);
      }
    } finally {
      await branded.stop();
    }
  });

  test('an invalid accent colour refuses to start, naming the variable', async () => {
    await assert.rejects(startTestServer({ env: { LATCH_BRAND_ACCENT: '#ffdd00' } }), /LATCH_BRAND_ACCENT #ffdd00 is too light/);
  });
});

describe('the default frame, and error pages for people', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('the default favicon: an SVG at /favicon.svg linked from every page, and /favicon.ico sends browsers to it', async () => {
    const page = parseHtml(await fetch(`${server.baseUrl}/login`).then((r) => r.text()));
    assert.equal(page.querySelector('link[rel=icon]')?.getAttribute('href'), '/favicon.svg');
    const icon = await fetch(`${server.baseUrl}/favicon.svg`);
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(await icon.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*fill="#0b5cd5"/);
    const ico = await fetch(`${server.baseUrl}/favicon.ico`, { redirect: 'manual' });
    assert.equal(ico.status, 301);
    assert.equal(ico.headers.get('location'), '/favicon.svg');
    assert.equal(parseHtml(await fetch(`${server.baseUrl}/`).then((r) => r.text())).querySelector('footer.site')?.textContent.trim(), 'Latch');
  });

  test('a page that does not exist: plain words ending in a full stop, the request id, ways on, and a header that knows who is signed in', async () => {
    const signedOut = await new TestBrowser().request(`${server.baseUrl}/no-such-page`);
    assert.equal(signedOut.status, 404);
    const text = pageText(signedOut.body);
    assert.match(text, /Page not found/);
    assert.match(text, /There is no page at \/no-such-page\. /);
    assert.ok(text.includes(signedOut.headers.get('x-request-id') ?? 'missing'), 'the request id is shown');
    assert.deepEqual(headerLinks(signedOut.body), ['Sign in']);
    const ways = parseHtml(signedOut.body).querySelectorAll('ul.ways-on a').map((a) => [a.textContent.trim(), a.getAttribute('href')]);
    assert.deepEqual(ways, [['Go to the start page', '/'], ['Sign in', '/login']]);

    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const signedIn = await browser.request(`${server.baseUrl}/no-such-page`);
    assert.deepEqual(headerLinks(signedIn.body), ['Account', 'Developer'], 'the header of an error page says the person is signed in');
    assert.deepEqual(parseHtml(signedIn.body).querySelectorAll('ul.ways-on a').map((a) => a.getAttribute('href')), ['/', '/account']);
  });

  test('pages that are not told the sign-in state still show it in the header (forgot password, sign-up)', async () => {
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    for (const path of ['/forgot-password', '/signup']) {
      assert.deepEqual(headerLinks((await browser.request(`${server.baseUrl}${path}`)).body), ['Account', 'Developer'], path);
      assert.deepEqual(headerLinks((await new TestBrowser().request(`${server.baseUrl}${path}`)).body), ['Sign in'], path);
    }
  });

  test('an authorization request that cannot be trusted: the app named in plain words, its homepage as the way back, no OAuth words; the reason in the log', async () => {
    const logged = await startTestServer({ captureLog: true });
    try {
      const client = await logged.createClient({ name: 'Orbit Notes', redirectUris: ['https://notes.example.com/cb'] });
      await logged.storage.clients.update(client.clientId, { homepageUrl: 'https://notes.example.com/' }, new Date());
      const response = await new TestBrowser().request(authorizeUrl(logged.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: 'https://evil.example.net/cb', scope: 'profile' }));
      assert.equal(response.status, 400);
      const text = pageText(response.body);
      assert.match(text, /This sign-in link does not work/);
      assert.match(text, /Orbit Notes sent you here with a sign-in request that cannot be accepted/);
      assert.doesNotMatch(text, /invalid_request|redirect_uri|client_id|evil\.example\.net/);
      const requestId = response.headers.get('x-request-id') ?? '';
      assert.ok(text.includes(requestId));
      const back = parseHtml(response.body).querySelector('ul.ways-on a');
      assert.deepEqual([back?.textContent.trim(), back?.getAttribute('href')], ['Back to Orbit Notes', 'https://notes.example.com/']);
      const line = logged.logLines().find((entry) => entry.reqId === requestId && entry.error === 'invalid_request');
      assert.ok(line, 'the log line of the request names the OAuth error');
      assert.match(String(line.reason), /evil\.example\.net/, 'and the exact reason');

      const unknown = await new TestBrowser().request(authorizeUrl(logged.baseUrl, { response_type: 'code', client_id: 'no-such-app', redirect_uri: 'https://x.example/cb' }));
      assert.match(pageText(unknown.body), /The link that brought you here does not name an app that may sign people in here, or is incomplete\./);
    } finally {
      await logged.stop();
    }
  });
});
