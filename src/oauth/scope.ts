/**
 * Scopes (DESIGN "Scope"): space-separated; `profile` is the spec's one scope (email, name, avatar); `openid`
 * adds OpenID Connect; `email` is accepted and folded into `profile`, which already covers email, because
 * common libraries send `openid email profile`. No scope means `profile`. Anything else is invalid_scope.
 * The granted scope always contains `profile`: it is the only scope that carries data (spec §8).
 */
import { InvalidScope } from '../errors.js';

export const SUPPORTED_SCOPES = ['openid', 'profile', 'email'] as const;

/** The granted scope for a request's `scope` parameter: `profile`, or `openid profile`. */
export function parseScope(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return ['profile'];
  // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
  const tokens = raw.split(' ').filter((token) => token !== '');
  const unsupported = tokens.filter((token) => !(SUPPORTED_SCOPES as readonly string[]).includes(token));
  if (unsupported.length > 0) {
    throw new InvalidScope(`Unsupported scope ${unsupported.map((t) => `'${t}'`).join(', ')}; Latch supports profile, openid and email`);
  }
  return tokens.includes('openid') ? ['openid', 'profile'] : ['profile'];
}

export function includesAll(granted: readonly string[], requested: readonly string[]): boolean {
  return requested.every((scope) => granted.includes(scope));
}
