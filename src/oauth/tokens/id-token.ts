/**
 * The id_token (OIDC Core §2, §3.1.3.3, §3.1.3.6): a JWS signed with the client's algorithm by the key the
 * in-process cache holds, so issuing one costs a signature and no I/O.
 *
 * The claims of the granted scope (email, email_verified, name, picture: user-object.ts) are in the id_token as
 * well as at userinfo: the spec (§5.7) lets clients decode the id_token instead of calling userinfo.
 */
import { hash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { SigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { User } from '../../storage/storage.js';
import { endPhase, startPhase } from '../../observability/server-timing.js';
import { scopedClaims } from './user-object.js';

export const ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'azp', 'sid', 'acr', 'amr', 'email', 'email_verified', 'name', 'picture'] as const;

export interface IdTokenContents {
  issuer: string;
  clientId: string;
  alg: SigningAlgorithm;
  user: User;
  scope: readonly string[];
  nonce: string | null;
  authTime: Date;
  /** The browser session the grant was approved in (BrowserSession.sid); null for grants from before sids. */
  sid: string | null;
  /** RFC 8176 methods of the grant's sign-in, and its acr (session/authentication-methods.ts); empty and null when not known. */
  amr: readonly string[];
  acr: string | null;
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
    // OIDC Back-Channel Logout 1.0 §2.3 (and Front-Channel §3): the session, so that a logout token naming it
    // can be matched; the same value for every id_token of the grant, the refreshed ones too.
    ...(contents.sid !== null && { sid: contents.sid }),
    // OIDC Core §2: how the person authenticated, and what that is worth. Grants from before Latch kept this
    // carry neither, rather than a guess.
    ...(contents.acr !== null && { acr: contents.acr }),
    ...(contents.amr.length > 0 && { amr: [...contents.amr] }),
  };
  return { ...claims, ...scopedClaims(contents.user, contents.scope) };
}

/**
 * Two libraries, each where it is faster: RS256 through jose, whose WebCrypto runs the costly RSA operation on
 * the libuv thread pool, off the event loop; ES256 and EdDSA through fast-jwt on the calling thread, where
 * WebCrypto's job dispatch would cost more than the signature itself
 * (BENCHMARKS.md, "id_token signatures: jose for RS256, fast-jwt for ES256 and EdDSA").
 */
export async function createIdToken(keys: SigningKeyCache, contents: IdTokenContents): Promise<string> {
  const key = keys.signingKey(contents.alg, contents.now);
  const claims = buildIdTokenClaims(contents);
  // Server-Timing's sign phase (observability/server-timing.ts); nothing is measured unless it is on.
  const clock = startPhase();
  const token = key.alg === 'RS256' ? await new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey) : key.signJwt(claims);
  endPhase(clock, 'sign');
  return token;
}
