/**
 * The optional public details of an app shown to its users (homepage, logo): absolute https URLs (http only
 * to a loopback host or in development mode), so that the consent and account pages never load mixed or
 * script content. Shown on Latch's pages, so checked as strictly as redirect URIs.
 */
import { isLoopbackHost } from '../clients/redirect-uri-policy.js';
import type { CatalogueText } from '../i18n/translator.js';

/** Which of the app's public addresses a problem is about ("Homepage URL must start with https://"). */
export type AppUrlSubject = 'rules.appUrl.subject.homepage' | 'rules.appUrl.subject.logo' | 'rules.appUrl.subject.policy' | 'rules.appUrl.subject.terms';

/** The first rule the address breaks, as a message of the catalogue, told in the console page's language. */
export function appUrlProblem(subjectKey: AppUrlSubject, raw: string, options: { developmentMode: boolean }): CatalogueText | null {
  const subject = { key: subjectKey };
  if (raw.length > 2000) return { key: 'rules.appUrl.tooLong', params: { subject, max: '2000' } };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { key: 'rules.appUrl.notAbsolute', params: { subject } };
  }
  if (url.username || url.password) return { key: 'rules.appUrl.userInfo', params: { subject } };
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && (isLoopbackHost(url.hostname) || options.developmentMode)) return null;
  return { key: 'rules.appUrl.https', params: { subject } };
}

/** Redirect URLs typed one per line: trimmed, blank lines dropped. */
export function parseRedirectUriLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
