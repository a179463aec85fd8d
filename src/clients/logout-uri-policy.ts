/**
 * What a client's logout URIs may be at registration (docs/protocol-decisions.md "Logout"):
 * - post_logout_redirect_uris (OIDC RP-Initiated Logout 1.0 §3.1): where the person is sent after signing out,
 *   the same rules as redirect URIs (redirect-uri-policy.ts), since Latch redirects browsers to them too.
 * - backchannel_logout_uri (OIDC Back-Channel Logout 1.0 §2.2): where Latch's server posts logout tokens.
 *   An absolute URL without a fragment; https, or, in development mode only, http to localhost or a loopback
 *   address (a server-to-server call in clear text has no place in production).
 * Each rule returns a message that says what to change.
 */
import { checkRedirectUri, isLoopbackHost } from './redirect-uri-policy.js';

export const MAX_POST_LOGOUT_REDIRECT_URIS = 20;

export function checkPostLogoutRedirectUri(uri: string, options: { developmentMode: boolean }): string | null {
  const problem = checkRedirectUri(uri, options);
  return problem === null ? null : problem.replace(/^Redirect URI/, 'Post-logout redirect URI');
}

/** Every problem of the list, or the list without repeats. */
export function checkPostLogoutRedirectUris(uris: readonly string[], options: { developmentMode: boolean }): { problems: string[]; uris: string[] } {
  const problems = uris.map((uri) => checkPostLogoutRedirectUri(uri, options)).filter((p): p is string => p !== null);
  if (uris.length > MAX_POST_LOGOUT_REDIRECT_URIS) problems.push(`At most ${MAX_POST_LOGOUT_REDIRECT_URIS} post-logout redirect URIs per client`);
  return { problems, uris: [...new Set(uris)] };
}

export function checkBackchannelLogoutUri(uri: string, options: { developmentMode: boolean }): string | null {
  if (uri.length === 0) return 'Back-channel logout URI must not be empty';
  // The generic URI rules first (length, spaces, fragment (§2.2: MUST NOT include one), characters, absolute, no user info).
  const problem = checkRedirectUri(uri, { developmentMode: false });
  if (problem !== null && !problem.includes('uses http to a non-loopback host')) return problem.replace(/^Redirect URI/, 'Back-channel logout URI');
  const url = new URL(uri);
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && options.developmentMode && isLoopbackHost(url.hostname)) return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) {
    return `Back-channel logout URI ${uri} uses http; use https:// (http to localhost, 127.0.0.1 or [::1] is allowed only in development mode, LATCH_DEV_MODE=1)`;
  }
  return `Back-channel logout URI ${uri} must start with https:// (Latch's server posts logout tokens to it; http only to localhost, 127.0.0.1 or [::1] in development mode)`;
}
