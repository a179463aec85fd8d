/**
 * What a client's logout URIs may be at registration (docs/protocol-decisions.md "Logout"):
 * - post_logout_redirect_uris (OIDC RP-Initiated Logout 1.0 §3.1): where the person is sent after signing out,
 *   the same rules as redirect URIs (redirect-uri-policy.ts), since Latch redirects browsers to them too.
 * - backchannel_logout_uri (OIDC Back-Channel Logout 1.0 §2.2): where Latch's server posts logout tokens.
 *   An absolute URL without a fragment; https, or, in development mode only, http to localhost or a loopback
 *   address (a server-to-server call in clear text has no place in production).
 * Each rule returns a message that says what to change.
 */
import { inEnglish, type CatalogueText } from '../i18n/translator.js';
import { isLoopbackHost, redirectUriProblem } from './redirect-uri-policy.js';

export const MAX_POST_LOGOUT_REDIRECT_URIS = 20;

/** The first rule the URI breaks, as a message of the catalogue (the console tells it in the page's language). */
export function postLogoutRedirectUriProblem(uri: string, options: { developmentMode: boolean }): CatalogueText | null {
  return redirectUriProblem(uri, options, 'rules.uri.subject.postLogout');
}

export function checkPostLogoutRedirectUri(uri: string, options: { developmentMode: boolean }): string | null {
  const problem = postLogoutRedirectUriProblem(uri, options);
  return problem && inEnglish(problem);
}

/** Every problem of the list, as messages of the catalogue, and the list without repeats. */
export function postLogoutRedirectUriProblems(uris: readonly string[], options: { developmentMode: boolean }): { problems: CatalogueText[]; uris: string[] } {
  const problems = uris.map((uri) => postLogoutRedirectUriProblem(uri, options)).filter((p): p is CatalogueText => p !== null);
  if (uris.length > MAX_POST_LOGOUT_REDIRECT_URIS) problems.push({ key: 'rules.postLogout.tooMany', params: { max: String(MAX_POST_LOGOUT_REDIRECT_URIS) } });
  return { problems, uris: [...new Set(uris)] };
}

/** Every problem of the list, in English, or the list without repeats. */
export function checkPostLogoutRedirectUris(uris: readonly string[], options: { developmentMode: boolean }): { problems: string[]; uris: string[] } {
  const { problems, uris: unique } = postLogoutRedirectUriProblems(uris, options);
  return { problems: problems.map(inEnglish), uris: unique };
}

/** The first rule the URI breaks, as a message of the catalogue. */
export function backchannelLogoutUriProblem(uri: string, options: { developmentMode: boolean }): CatalogueText | null {
  const subject = { key: 'rules.uri.subject.backchannel' } as const;
  if (uri.length === 0) return { key: 'rules.uri.empty', params: { subject } };
  // The generic URI rules first (length, spaces, fragment (§2.2: MUST NOT include one), characters, absolute, no user info).
  const problem = redirectUriProblem(uri, { developmentMode: false }, subject.key);
  if (problem !== null && problem.key !== 'rules.uri.httpNotLoopback') return problem;
  const url = new URL(uri);
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && options.developmentMode && isLoopbackHost(url.hostname)) return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return { key: 'rules.backchannel.httpLoopback', params: { uri } };
  return { key: 'rules.backchannel.https', params: { uri } };
}

export function checkBackchannelLogoutUri(uri: string, options: { developmentMode: boolean }): string | null {
  const problem = backchannelLogoutUriProblem(uri, options);
  return problem && inEnglish(problem);
}
