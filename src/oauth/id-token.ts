/**
 * The id_token (OIDC Core §2, §3.1.3.3, §3.1.3.6): a JWS signed with the client's algorithm by the key the
 * in-process cache holds, so issuing one costs a signature and no I/O.
 *
 * The profile claims (email, email_verified, name, picture) are in the id_token as well as at userinfo: the
 * spec (§5.7) lets clients decode the id_token instead of calling userinfo.
 */
import { hash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKeyCache } from '../crypto/signing-key-cache.js';
import type { SigningAlgorithm } from '../crypto/signing-algorithms.js';
import type { User } from '../storage/storage.js';

export const ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'email', 'email_verified', 'name', 'picture'] as const;

export interface IdTokenContents {
  issuer: string;
  clientId: string;
  alg: SigningAlgorithm;
  user: User;
  scope: readonly string[];
  nonce: string | null;
  authTime: Date;
  accessToken: string;
  ttlSeconds: number;
  now: Date;
}

/**
 * at_hash (OIDC Core §3.1.3.6): base64url of the left half of the access token's hash, with the hash of the
 * JWS alg: SHA-256 for RS256 and ES256; SHA-512 for EdDSA, since Ed25519 hashes with SHA-512 (as the OpenID
 * conformance suite and the client libraries compute it).
 */
export function computeAtHash(accessToken: string, alg: SigningAlgorithm): string {
  // Access tokens are ASCII (prefix, hex digits, base64url), so their UTF-8 bytes are their ASCII bytes.
  const digest = hash(alg === 'EdDSA' ? 'sha512' : 'sha256', accessToken, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export function buildIdTokenClaims(contents: IdTokenContents): Record<string, unknown> {
  const issuedAt = Math.floor(contents.now.getTime() / 1000);
  const claims: Record<string, unknown> = {
    iss: contents.issuer,
    sub: String(contents.user.id),
    aud: contents.clientId,
    exp: issuedAt + contents.ttlSeconds,
    iat: issuedAt,
    auth_time: Math.floor(contents.authTime.getTime() / 1000),
    // OIDC Core §3.1.2.1: echoed exactly when the authorization request had one.
    ...(contents.nonce !== null && { nonce: contents.nonce }),
    at_hash: computeAtHash(contents.accessToken, contents.alg),
    azp: contents.clientId,
  };
  if (contents.scope.includes('profile')) {
    claims.email = contents.user.email;
    claims.email_verified = contents.user.emailVerified;
    claims.name = contents.user.name;
    if (contents.user.avatarUrl) claims.picture = contents.user.avatarUrl;
  }
  return claims;
}

/**
 * Two libraries, each where it is faster (bench d2, d3; measured per signature on this 2-core machine):
 * RS256 through jose, whose WebCrypto runs the RSA operation on the libuv thread pool, off the event loop
 * (about 300 µs of CPU each; signing it on the event loop cut exchanges with an RS256 id_token from 2,782 to
 * 2,012 a second). ES256 and EdDSA through fast-jwt on the calling thread: about 40 µs, where WebCrypto's job
 * dispatch made them cost 76–160 µs.
 */
export async function createIdToken(keys: SigningKeyCache, contents: IdTokenContents): Promise<string> {
  const key = keys.signingKey(contents.alg, contents.now);
  const claims = buildIdTokenClaims(contents);
  if (key.alg === 'RS256') return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
  return key.signJwt(claims);
}
