/**
 * What a redirect URI may be at registration (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §2.1 and §4.1):
 * absolute, no fragment, no user info, no wildcards; https, or http to a loopback host, or a private-use
 * native scheme (reverse domain name, RFC 8252 §7.1). Plain http elsewhere only in development mode.
 * Each rule returns a message that says what to change.
 */

const MAX_REDIRECT_URI_LENGTH = 2000;
/** RFC 3986 §2.2–2.3: unreserved and reserved characters, and % of a percent-encoding. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export function checkRedirectUri(uri: string, options: { developmentMode: boolean }): string | null {
  if (uri.length === 0) return 'Redirect URI must not be empty';
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `Redirect URI must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/\s/.test(uri)) return `Redirect URI ${uri} must not contain spaces`;
  if (uri.includes('#')) return `Redirect URI ${uri} must not contain a fragment (#…): RFC 6749 §3.1.2`;
  if (uri.includes('*')) return `Redirect URI ${uri} must not contain wildcards: Latch compares redirect URIs exactly`;
  // RFC 3986 §2: the WHATWG parser below would quietly correct other characters, but the string as given is
  // what is stored, compared and sent in the Location header (which cannot carry non-ASCII at all).
  if (!URI_CHARACTERS.test(uri) || /%(?![0-9A-Fa-f]{2})/.test(uri)) {
    return `Redirect URI ${JSON.stringify(uri)} contains characters a URI cannot have (RFC 3986 §2); percent-encode them (%XX)`;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `Redirect URI ${uri} is not an absolute URL (it needs a scheme such as https://)`;
  }
  if (url.username || url.password) return `Redirect URI ${uri} must not contain a user name or password`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `Redirect URI scheme ${url.protocol} can never be safe; use https://`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    if (isLoopbackHost(url.hostname) || options.developmentMode) return null;
    return `Redirect URI ${uri} uses http to a non-loopback host; use https:// (http is allowed only for localhost, 127.0.0.1 and [::1], or in development mode with LATCH_DEV_MODE=1)`;
  }
  // RFC 8252 §7.1: private-use URI schemes for native apps must be a reverse domain name (com.example.app:/cb).
  const scheme = url.protocol.slice(0, -1);
  if (!scheme.includes('.')) {
    return `Redirect URI scheme ${scheme}: is not allowed; use https://, or for a native app a private-use scheme named after a domain you own (com.example.app:/callback, RFC 8252 §7.1)`;
  }
  return null;
}
