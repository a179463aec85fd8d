/**
 * Whether a page is all in one language (issue 19 item 7): the English catalogue's sentences left on a page in
 * another language, and a browser that sends Accept-Language with every request. Codes, commands, ids and code
 * blocks are the same in every language and are not read; nor is what a page marks as English itself (`lang="en"`:
 * an OAuth error_description quoted as the app received it).
 */
import { parse as parseHtml } from 'node-html-parser';
import { CATALOGUES, type Message, type MessageKey } from '../../src/i18n/messages/index.js';
import type { Locale } from '../../src/i18n/locales.js';
import { pageText, TestBrowser, type BrowserResponse } from './browser.js';

/** The fixed words of a message: its text (each plural form) cut at the placeholders, four characters or more. */
export function fixedWords(message: Message): string[] {
  const forms = typeof message === 'string' ? [message] : Object.values(message);
  return forms.flatMap((form) => form.split(/\{\w+\}/)).map((part) => part.trim().replace(/^[.,;:()' ]+|[.,;:()' ]+$/g, '')).filter((part) => part.length >= 4);
}

/** Names that hold an English word and are the same in every language ("Spring Security"). */
const NAMES = ['Spring Security'];

/**
 * Everything a person reads or hears on the page but code and the values of its fields (the person's own data):
 * its text and the attributes read out or shown.
 */
export function readableText(html: string): string {
  const root = parseHtml(html);
  for (const element of root.querySelectorAll('code, pre, textarea, [lang="en"]')) element.remove();
  for (const option of root.querySelectorAll('option')) if (option.textContent.trim() === option.getAttribute('value')) option.remove();
  const attributes = root
    .querySelectorAll('[aria-label], [title], [placeholder], [alt]')
    .flatMap((element) => ['aria-label', 'title', 'placeholder', 'alt'].map((name) => element.getAttribute(name) ?? ''));
  return NAMES.reduce((text, name) => text.replaceAll(name, ''), `${pageText(root.toString())} ${attributes.join(' ')}`);
}

/** The sentences of one catalogue (`from`) left on a page in another (`to`); messages the same in both are skipped. */
export function wordsLeftOn(html: string, from: Locale = 'en', to: Locale = 'de'): string[] {
  const text = readableText(html);
  const left: string[] = [];
  for (const key of Object.keys(CATALOGUES.en) as MessageKey[]) {
    if (JSON.stringify(CATALOGUES[from][key]) === JSON.stringify(CATALOGUES[to][key])) continue;
    const kept = new Set(fixedWords(CATALOGUES[to][key]));
    for (const words of fixedWords(CATALOGUES[from][key])) {
      if (kept.has(words)) continue;
      const escaped = words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(text)) left.push(`${key}: "${words}"`);
    }
  }
  return left;
}

export function htmlLang(page: BrowserResponse): string | undefined {
  return parseHtml(page.body).querySelector('html')?.getAttribute('lang');
}

/** A browser whose every request says which languages its person reads. */
export class LanguageBrowser extends TestBrowser {
  constructor(readonly acceptLanguage: string) {
    super();
  }
  override request(url: string, init: Parameters<TestBrowser['request']>[1] = {}): Promise<BrowserResponse> {
    return super.request(url, { ...init, headers: { 'accept-language': this.acceptLanguage, ...init.headers } });
  }
}
