/**
 * The optional public details of an app shown to its users (homepage, logo): absolute https URLs (http only
 * to a loopback host or in development mode), so that the consent and account pages never load mixed or
 * script content. Shown on Latch's pages, so checked as strictly as redirect URIs.
 */
import { isLoopbackHost } from '../clients/redirect-uri-policy.js';

export function checkAppUrl(label: 'Homepage URL' | 'Logo URL' | 'Privacy policy URL' | 'Terms of service URL', raw: string, options: { developmentMode: boolean }): string | null {
  if (raw.length > 2000) return `${label} must be at most 2000 characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${label} must be an absolute URL starting with https://`;
  }
  if (url.username || url.password) return `${label} must not contain a user name or password`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && (isLoopbackHost(url.hostname) || options.developmentMode)) return null;
  return `${label} must start with https://`;
}

/** Redirect URLs typed one per line: trimmed, blank lines dropped. */
export function parseRedirectUriLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
