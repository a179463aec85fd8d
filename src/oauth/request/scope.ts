/**
 * Scopes (RFC 6749 §3.3, docs/protocol-decisions.md "Scope"): space-separated; `profile` is the service's one
 * scope (email, name, avatar); `openid` adds OpenID Connect and on its own grants the account id only (OIDC
 * Core §5.4: claims come with the scopes that ask for them); `email` grants the email claims (OIDC Core §5.4),
 * which `profile` already covers; `offline_access` asks for a refresh token (OIDC Core §11;
 * docs/protocol-decisions.md "Refresh tokens"). No scope means `profile`. Anything else is invalid_scope, except
 * in an OpenID Connect request (one with `openid`), where values Latch does not know are ignored (OIDC Core
 * §3.1.2.1: "Scope values used that are not understood by an implementation SHOULD be ignored"): libraries
 * add `address`, `phone` or custom values, and the sign-in should work anyway.
 *
 * The granted scope is exactly what was asked for, in a fixed order: client libraries (oauthlib and those
 * built on it) compare the token response's `scope` with their request and refuse a response that differs.
 */
import { InvalidScope } from '../../errors.js';

export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/**
 * The granted scope for a request's `scope` parameter: every supported value asked for, once, in SUPPORTED_SCOPES
 * order, then the values of `resourceScopes` asked for, in their order: the scopes of the resources the request
 * names (RFC 8707; README "APIs (resource servers)"), which are known only to a request for those resources.
 */
export function parseScope(raw: string | undefined, resourceScopes: readonly string[] = []): string[] {
  if (raw === undefined || raw.trim() === '') return ['profile'];
  // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
  const tokens = raw.split(' ').filter((token) => token !== '');
  const unsupported = tokens.filter((token) => !(SUPPORTED_SCOPES as readonly string[]).includes(token) && !resourceScopes.includes(token));
  if (unsupported.length > 0) {
    const extra = resourceScopes.length > 0 ? `, offline_access and the scopes of the requested resources (${resourceScopes.join(' ')})` : ' and offline_access';
    throw new InvalidScope(`Unsupported scope ${unsupported.map((t) => `'${t}'`).join(', ')}; Latch supports profile, openid, email${extra}`);
  }
  return orderedScope(tokens, resourceScopes);
}

function orderedScope(tokens: readonly string[], resourceScopes: readonly string[]): string[] {
  const own = SUPPORTED_SCOPES.filter((scope) => tokens.includes(scope));
  if (resourceScopes.length === 0) return own;
  return [...own, ...[...new Set(resourceScopes)].filter((scope) => tokens.includes(scope) && !(SUPPORTED_SCOPES as readonly string[]).includes(scope))];
}

/**
 * The scope of an authorization request: as parseScope, except that an OpenID Connect request (with `openid`)
 * ignores the values Latch does not know instead of refusing them, and says which it ignored.
 */
export function parseAuthorizationScope(raw: string | undefined, resourceScopes: readonly string[] = []): { scope: string[]; ignored: string[] } {
  const tokens = raw === undefined ? [] : raw.split(' ').filter((token) => token !== '');
  if (!tokens.includes('openid')) return { scope: parseScope(raw, resourceScopes), ignored: [] };
  const ignored = [...new Set(tokens.filter((token) => !(SUPPORTED_SCOPES as readonly string[]).includes(token) && !resourceScopes.includes(token)))];
  return { scope: orderedScope(tokens, resourceScopes), ignored };
}

/** The scope that asks for a refresh token (OIDC Core §11). */
export const OFFLINE_ACCESS = 'offline_access';

/** Whether a consent to `granted` covers a request for `requested`: `profile` covers `email` (spec: profile includes the email). */
export function includesAll(granted: readonly string[], requested: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope) || (scope === 'email' && granted.includes('profile')));
}
