/**
 * The user as the service's clients see it: the `user` of the token response and the userinfo response (with
 * the OIDC standard claims of OIDC Core §5.1). `id` is an integer, `sub` its string, `avatar_url`/`picture`
 * left out when the user has none (OIDC Core §5.3.2; docs/protocol-decisions.md "User object").
 *
 * What is handed over follows the granted scope (OIDC Core §5.4; docs/protocol-decisions.md "Scope"): the
 * id always; `email` adds email and email_verified; `profile` (the spec's scope, which covers the email)
 * adds those, the name and the avatar. So `openid` alone hands over the id only.
 */
import type { User } from '../../storage/storage.js';

export interface UserClaims {
  id: number;
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  avatar_url?: string;
  picture?: string;
}

/** The claims a scope hands over beyond the id (OIDC Core §5.4), shared by the user object, userinfo and the id_token. */
export function scopedClaims(user: User, scope: readonly string[]): Pick<UserClaims, 'email' | 'email_verified' | 'name' | 'picture'> {
  const profile = scope.includes('profile');
  if (!profile && !scope.includes('email')) return {};
  const claims: Pick<UserClaims, 'email' | 'email_verified' | 'name' | 'picture'> = { email: user.email, email_verified: user.emailVerified };
  if (profile) {
    claims.name = user.name;
    if (user.avatarUrl) claims.picture = user.avatarUrl;
  }
  return claims;
}

export function buildUserClaims(user: User, scope: readonly string[]): UserClaims {
  const { picture, ...claims } = scopedClaims(user, scope);
  // avatar_url is the service's own name for the OIDC picture claim (spec 2.3); both are sent.
  return { id: user.id, sub: String(user.id), ...claims, ...(picture !== undefined && { avatar_url: picture, picture }) };
}

/** Spec 2.3: the token response's user object, which also names the client. */
export function buildTokenResponseUser(user: User, scope: readonly string[], clientName: string): Omit<UserClaims, 'picture'> & { client: string } {
  const { picture: _picture, ...claims } = buildUserClaims(user, scope);
  return { ...claims, client: clientName };
}

/** The userinfo response (OIDC Core §5.3.2, §5.4): `sub` (and the service's `id`) always, the rest by scope. */
export function buildUserinfoResponse(user: User, scope: readonly string[]): UserClaims {
  return buildUserClaims(user, scope);
}
