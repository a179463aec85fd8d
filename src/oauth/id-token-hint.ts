/**
 * id_token_hint (OIDC Core §3.1.2.1): an id_token Latch issued earlier to the same client, naming the user the
 * client expects. It is accepted only with a valid signature by a key still published in the JWKS (never a
 * retired or unknown key), Latch as issuer and the requesting client as audience. An expired one is accepted:
 * it is a hint about a current or past session, and it grants nothing by itself (the browser session decides).
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { SigningKeyCache } from '../crypto/signing-key-cache.js';
import { InvalidRequest } from '../errors.js';

export interface IdTokenHint {
  sub: string;
  email: string | undefined;
}

const INVALID = 'id_token_hint is not an id_token Latch issued to this client';

export async function verifyIdTokenHint(keys: SigningKeyCache, hint: string, expected: { issuer: string; clientId: string }): Promise<IdTokenHint> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(hint).kid;
  } catch {
    throw new InvalidRequest(INVALID);
  }
  await keys.ensureLoaded();
  const key = kid === undefined ? undefined : keys.verificationKey(kid);
  if (!key) throw new InvalidRequest(`${INVALID}: its key is not (or no longer) in the JWKS`);
  let claims: Record<string, unknown>;
  try {
    const { payload } = await compactVerify(hint, key.publicKey, { algorithms: [key.alg] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw new InvalidRequest(`${INVALID}: the signature does not verify`);
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== expected.issuer || !audience.includes(expected.clientId) || typeof claims.sub !== 'string') {
    throw new InvalidRequest(`${INVALID}: issuer, audience or subject do not match`);
  }
  return { sub: claims.sub, email: typeof claims.email === 'string' ? claims.email : undefined };
}
