/**
 * JWT access tokens for a resource server (RFC 9068; RFC 8707; README "APIs (resource servers)"): issued only when
 * the token request names a registered `resource`; every other access token stays opaque.
 *
 * Signed RS256 (RFC 9068 §2.1: resource servers MUST support it, so it is the one that always works) by Latch's
 * current signing key, header `typ: at+jwt` (§2.1), so that the API verifies it against the JWKS without calling
 * Latch. Its `jti` is the stored hash of an opaque access token that is never handed out: the grant's bookkeeping
 * (revocation by grant, withdrawal of consent, introspection) works on it unchanged, and the jti itself is no
 * credential (its hash is not a stored key).
 */
import { jwtVerify, SignJWT, decodeProtectedHeader } from 'jose';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';

export const ACCESS_TOKEN_JWT_TYPE = 'at+jwt';
const ALG = 'RS256';

export interface AccessTokenJwtContents {
  issuer: string;
  /** The resource indicator, the token's only audience (RFC 8707 §2; RFC 9068 §2.2). */
  audience: string;
  clientId: string;
  /** The user's id, or for a service's own token the client_id (RFC 9068 §2.2). */
  subject: string;
  scope: readonly string[];
  jti: string;
  /** The sign-in's time, when there is one (RFC 9068 §2.2.1). */
  authTime: Date | null;
  ttlSeconds: number;
  now: Date;
}

export function buildAccessTokenClaims(contents: AccessTokenJwtContents): Record<string, unknown> {
  const issuedAt = Math.floor(contents.now.getTime() / 1000);
  return {
    iss: contents.issuer,
    sub: contents.subject,
    aud: contents.audience,
    client_id: contents.clientId,
    iat: issuedAt,
    exp: issuedAt + contents.ttlSeconds,
    jti: contents.jti,
    // RFC 9068 §2.2.3: the granted scopes the resource defines; none is left out rather than sent empty.
    ...(contents.scope.length > 0 && { scope: contents.scope.join(' ') }),
    ...(contents.authTime !== null && { auth_time: Math.floor(contents.authTime.getTime() / 1000) }),
  };
}

export async function createAccessTokenJwt(keys: SigningKeyCache, contents: AccessTokenJwtContents): Promise<string> {
  const key = keys.signingKey(ALG, contents.now);
  return new SignJWT(buildAccessTokenClaims(contents)).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_JWT_TYPE }).sign(key.privateKey);
}

/** A compact JWS's shape (three base64url parts): how a JWT access token is told from an opaque one before any lookup. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

export interface VerifiedAccessTokenJwt {
  sub: string;
  aud: string;
  clientId: string;
  scope: string[];
  jti: string;
  iat: number;
  exp: number;
}

/**
 * The claims of a JWT access token Latch issued, with a valid signature by a published key, typ at+jwt, Latch as
 * issuer and not expired (RFC 9068 §4); null for anything else.
 */
export async function verifyAccessTokenJwt(keys: SigningKeyCache, token: string, issuer: string, now = new Date()): Promise<VerifiedAccessTokenJwt | null> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return null;
  }
  await keys.ensureLoaded();
  const key = kid === undefined ? undefined : keys.verificationKey(kid, now);
  if (!key) return null;
  try {
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: [key.alg],
      issuer,
      typ: ACCESS_TOKEN_JWT_TYPE,
      currentDate: now,
      requiredClaims: ['sub', 'aud', 'client_id', 'jti', 'iat', 'exp'],
    });
    if (typeof payload.aud !== 'string' || typeof payload.client_id !== 'string' || typeof payload.jti !== 'string' || typeof payload.sub !== 'string') return null;
    return {
      sub: payload.sub,
      aud: payload.aud,
      clientId: payload.client_id,
      scope: typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s) => s !== '') : [],
      jti: payload.jti,
      iat: payload.iat!,
      exp: payload.exp!,
    };
  } catch {
    return null;
  }
}
