/**
 * The user as the spec's clients see it: the user object of the token response (spec 2.3) and the userinfo
 * response (spec 4.3 with the OIDC standard claims of OIDC Core §5.1). `id` is an integer, `sub` its string,
 * `avatar_url`/`picture` left out when the user has none (DESIGN "User object").
 */
import type { User } from '../storage/storage.js';

export interface UserClaims {
  id: number;
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  avatar_url?: string;
  picture?: string;
}

export function buildUserClaims(user: User): UserClaims {
  const claims: UserClaims = {
    id: user.id,
    sub: String(user.id),
    email: user.email,
    email_verified: user.emailVerified,
    name: user.name,
  };
  if (user.avatarUrl) {
    claims.avatar_url = user.avatarUrl;
    claims.picture = user.avatarUrl;
  }
  return claims;
}

/** Spec 2.3: the token response's user object, which also names the client. */
export function buildTokenResponseUser(user: User, clientName: string): Omit<UserClaims, 'picture'> & { client: string } {
  const { picture: _picture, ...claims } = buildUserClaims(user);
  return { ...claims, client: clientName };
}

/**
 * The userinfo response (OIDC Core §5.3.2, §5.4): `sub` always; the profile claims (which in Latch include the
 * email, DESIGN "Scope") and the spec's own fields only for a token granted the profile scope.
 */
export function buildUserinfoResponse(user: User, scope: readonly string[]): UserClaims | Pick<UserClaims, 'id' | 'sub'> {
  const claims = buildUserClaims(user);
  return scope.includes('profile') ? claims : { id: claims.id, sub: claims.sub };
}
