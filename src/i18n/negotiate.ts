/**
 * Which language a page or mail is in (issue 19 item 7). In order:
 *
 * 1. The OIDC `ui_locales` of the authorization request the page belongs to (OIDC Core §3.1.2.1: space-separated
 *    BCP 47 tags, the most preferred first): the app knows what its user reads, and asked for it.
 * 2. The browser's Accept-Language (RFC 9110 §12.5.4), by quality value; q=0 means "not this one".
 * 3. English.
 *
 * A tag matches a supported language by RFC 4647 §3.4 lookup: "de-AT" falls back to "de", "en-GB" to "en".
 * Tags that are not BCP 47 are skipped, never an error: both are hints.
 */
import { DEFAULT_LOCALE, SUPPORTED_LOCALES, type Locale } from './locales.js';

/** At most this many tags are looked at: a header of thousands of entries costs no more than a short one. */
const MAX_TAGS = 32;

function isSupported(tag: string): tag is Locale {
  return (SUPPORTED_LOCALES as readonly string[]).includes(tag);
}

/** RFC 4647 §3.4 lookup of one tag: itself, then each shorter prefix, single-letter subtags (extensions) skipped. */
export function lookup(tag: string): Locale | null {
  let canonical: string;
  try {
    [canonical = ''] = Intl.getCanonicalLocales(tag.trim());
  } catch {
    return null;
  }
  const subtags = canonical.toLowerCase().split('-');
  while (subtags.length > 0) {
    const candidate = subtags.join('-');
    if (isSupported(candidate)) return candidate;
    subtags.pop();
    // A trailing singleton ("x" of "de-x-private") is not a tag of its own: drop it with what it introduced.
    if (subtags.length > 0 && subtags[subtags.length - 1]!.length === 1) subtags.pop();
  }
  return null;
}

/** The tags of an Accept-Language header, the most preferred first (stable for equal q); q=0 and "*" left out. */
export function acceptLanguageTags(header: string | undefined): string[] {
  if (!header) return [];
  const ranges = header
    .split(',')
    .slice(0, MAX_TAGS)
    .map((entry, index) => {
      const [range = '', ...params] = entry.split(';').map((part) => part.trim());
      let quality = 1;
      for (const param of params) {
        const match = /^q\s*=\s*([01](?:\.\d{0,3})?)$/i.exec(param);
        // RFC 9110 §12.4.2: a weight that is not 0 to 1 with at most three decimals is not a weight; skip the range.
        if (/^q\s*=/i.test(param)) quality = match ? Number(match[1]) : -1;
      }
      return { range, quality, index };
    })
    .filter(({ range, quality }) => range !== '' && range !== '*' && quality > 0 && quality <= 1);
  ranges.sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranges.map(({ range }) => range);
}

/** The first supported language of a `ui_locales` value, or null when none is supported. */
export function fromUiLocales(uiLocales: string | undefined): Locale | null {
  if (!uiLocales) return null;
  for (const tag of uiLocales.split(' ').filter(Boolean).slice(0, MAX_TAGS)) {
    const locale = lookup(tag);
    if (locale) return locale;
  }
  return null;
}

export function negotiateLocale({ uiLocales, acceptLanguage }: { uiLocales?: string | undefined; acceptLanguage?: string | undefined }): Locale {
  const fromApp = fromUiLocales(uiLocales);
  if (fromApp) return fromApp;
  for (const tag of acceptLanguageTags(acceptLanguage)) {
    const locale = lookup(tag);
    if (locale) return locale;
  }
  return DEFAULT_LOCALE;
}
