/**
 * A scripted browser over fetch: a real cookie jar (tough-cookie), redirects followed by hand so that tests
 * can stop at the client's redirect_uri, and form helpers for Latch's pages.
 */
import { parse as parseHtml } from 'node-html-parser';
import { CookieJar } from 'tough-cookie';

export interface BrowserResponse {
  status: number;
  url: string;
  headers: Headers;
  body: string;
}

export class TestBrowser {
  readonly jar = new CookieJar();

  async request(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = await this.jar.getCookieString(url);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) await this.jar.setCookie(setCookie, url);
    return { status: response.status, url, headers: response.headers, body: await response.text() };
  }

  /** Follows redirects while they stay on `origin`; returns the first response that leaves it or is not a redirect. */
  async follow(url: string, origin: string, init: Parameters<TestBrowser['request']>[1] = {}): Promise<BrowserResponse> {
    let response = await this.request(url, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      const next = new URL(location, response.url).href;
      if (!next.startsWith(origin)) return { ...response, url: next };
      response = await this.request(next);
    }
    throw new Error('too many redirects');
  }
}

/** The value of an input in an HTML page, read with a real HTML parser. */
export function inputValue(html: string, name: string): string {
  const input = parseHtml(html).querySelector(`input[name="${name}"]`);
  const value = input?.getAttribute('value');
  if (value === undefined) throw new Error(`no input named ${name} with a value`);
  return value;
}

/** The visible text of an HTML page. */
export function pageText(html: string): string {
  return parseHtml(html).textContent.replace(/\s+/g, ' ');
}
