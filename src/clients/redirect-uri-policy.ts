/**
 * What a redirect URI may be at registration (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §2.1 and §4.1):
 * absolute, no fragment, no user info, no wildcards; https, or http to a loopback host, or a private-use
 * native scheme (reverse domain name, RFC 8252 §7.1). Plain http elsewhere only in development mode.
 * Each rule returns a message that says what to change.
 */
import { inEnglish, type CatalogueText } from '../i18n/translator.js';

const MAX_REDIRECT_URI_LENGTH = 2000;
/** RFC 3986 §2.2–2.3: unreserved and reserved characters, and % of a percent-encoding. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** What a URI is called in its problems: a redirect URI, or one of the logout URIs held to the same rules. */
export type UriSubject = 'rules.uri.subject.redirect' | 'rules.uri.subject.postLogout' | 'rules.uri.subject.backchannel';

/**
 * The first rule the URI breaks, as a message of the catalogue (i18n "rules.uri."), so that the console tells it
 * in the page's language; checkRedirectUri gives it in English, for the CLI and the registration endpoint.
 */
export function redirectUriProblem(uri: string, options: { developmentMode: boolean }, subjectKey: UriSubject = 'rules.uri.subject.redirect'): CatalogueText | null {
  const subject = { key: subjectKey };
  if (uri.length === 0) return { key: 'rules.uri.empty', params: { subject } };
  // A string: a number would be written "2,000".
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return { key: 'rules.uri.tooLong', params: { subject, max: String(MAX_REDIRECT_URI_LENGTH) } };
  if (/\s/.test(uri)) return { key: 'rules.uri.spaces', params: { subject, uri } };
  if (uri.includes('#')) return { key: 'rules.uri.fragment', params: { subject, uri } };
  if (uri.includes('*')) return { key: 'rules.uri.wildcard', params: { subject, uri } };
  // RFC 3986 §2: the WHATWG parser below would quietly correct other characters, but the string as given is
  // what is stored, compared and sent in the Location header (which cannot carry non-ASCII at all).
  if (!URI_CHARACTERS.test(uri) || /%(?![0-9A-Fa-f]{2})/.test(uri)) {
    return { key: 'rules.uri.characters', params: { subject, uri: JSON.stringify(uri) } };
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { key: 'rules.uri.notAbsolute', params: { subject, uri } };
  }
  if (url.username || url.password) return { key: 'rules.uri.userInfo', params: { subject, uri } };
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return { key: 'rules.uri.forbiddenScheme', params: { subject, scheme: url.protocol } };
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname) || options.developmentMode) return null;
    return { key: 'rules.uri.httpNotLoopback', params: { subject, uri } };
  }
  // RFC 8252 §7.1: private-use URI schemes for native apps must be a reverse domain name (com.example.app:/cb).
  const scheme = url.protocol.slice(0, -1);
  if (!scheme.includes('.')) return { key: 'rules.uri.scheme', params: { subject, scheme } };
  return null;
}

export function checkRedirectUri(uri: string, options: { developmentMode: boolean }): string | null {
  const problem = redirectUriProblem(uri, options);
  return problem && inEnglish(problem);
}
