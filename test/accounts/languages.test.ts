/**
 * Issue 19 item 7 over real HTTP: pages follow the app's `ui_locales` within its flow (OIDC Core §3.1.2.1), then
 * the browser's Accept-Language, then English; `<html lang>` says which; discovery lists the languages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse as parseHtml } from 'node-html-parser';
import { TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A browser whose every request says which languages its person reads. */
class LanguageBrowser extends TestBrowser {
  constructor(readonly acceptLanguage: string) {
    super();
  }
  override request(url: string, init: Parameters<TestBrowser['request']>[1] = {}): Promise<BrowserResponse> {
    return super.request(url, { ...init, headers: { 'accept-language': this.acceptLanguage, ...init.headers } });
  }
}

function htmlLang(page: BrowserResponse): string | undefined {
  return parseHtml(page.body).querySelector('html')?.getAttribute('lang');
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
});
