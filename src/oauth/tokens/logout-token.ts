/**
 * The logout token (OIDC Back-Channel Logout 1.0 §2.4): a JWT signed like the client's id_tokens, by the key
 * that signs for the client's algorithm now (keys/signing-key-cache.ts), so that the app verifies it against
 * the same JWKS.
 *
 * - Header `typ: logout+jwt` (§2.4 RECOMMENDED, media type registered by §4.1), so that it can never pass for
 *   an id_token (§4 "Cross-JWT Confusion").
 * - Claims iss, aud (the client id), iat, jti (random, §2.6: apps may keep them to refuse replays), events
 *   with the one back-channel-logout member whose value is `{}`, sub and sid (§2.3: Latch supports sessions, and
 *   sends both so that apps keyed by either find theirs). Never a nonce (§2.4: an app must reject a logout
 *   token with one, which stops an id_token from being replayed as a logout token).
 * - exp two minutes after iat: the specification requires none, but §4 asks for short lifetimes, and apps
 *   that run every JWT through a generic validator expect one (docs/protocol-decisions.md "Back-channel logout").
 * Each delivery attempt gets a fresh token (new jti, iat), so that a retry is not refused as a replay.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
export const LOGOUT_TOKEN_TTL_SECONDS = 120;

export interface LogoutTokenContents {
  issuer: string;
  clientId: string;
  alg: SigningAlgorithm;
  /** The subject, as id_tokens give it (String(user id)). */
  sub: string;
  /** The ended session's public id, as the id_tokens issued in it carry it. */
  sid: string;
  now: Date;
}

export function buildLogoutTokenClaims(contents: LogoutTokenContents): Record<string, unknown> {
  const issuedAt = Math.floor(contents.now.getTime() / 1000);
  return {
    iss: contents.issuer,
    aud: contents.clientId,
    iat: issuedAt,
    exp: issuedAt + LOGOUT_TOKEN_TTL_SECONDS,
    jti: randomBytes(16).toString('base64url'),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    sub: contents.sub,
    sid: contents.sid,
  };
}

/** Signs through jose with the key's CryptoKey (all three algorithms): logout tokens are rare, no fast path needed. */
export async function createLogoutToken(keys: SigningKeyCache, contents: LogoutTokenContents): Promise<string> {
  await keys.ensureLoaded();
  const key = keys.signingKey(contents.alg, contents.now);
  return new SignJWT(buildLogoutTokenClaims(contents)).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'logout+jwt' }).sign(key.privateKey);
}
