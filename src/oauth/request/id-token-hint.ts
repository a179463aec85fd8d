/**
 * id_token_hint (OIDC Core §3.1.2.1; OIDC RP-Initiated Logout 1.0 §2): an id_token Latch issued earlier, naming
 * the user the client expects. It is accepted only with a valid signature by a key still published in the JWKS
 * (never a retired or unknown key; `alg: none` has no key) and Latch as issuer. An expired one is accepted: it
 * is a hint about a current or past session, and it grants nothing by itself (the browser session decides).
 * At the authorization endpoint its audience must be the requesting client; at the logout endpoint its audience
 * is what names the client.
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import { InvalidRequest } from '../../errors.js';

export interface IdTokenHint {
  sub: string;
  email: string | undefined;
}

/** A verified id_token of Latch's, whoever it was issued to. */
export interface LatchIdToken extends IdTokenHint {
  /** Its `aud`, as a list (OIDC Core §2: a string or an array). */
  audience: string[];
  /** The session it was issued in (OIDC Back-Channel Logout 1.0 §2.3), when it names one. */
  sid: string | null;
}

/**
 * Verifies signature and issuer; throws InvalidRequest whose description begins with `invalid` (redirectable
 * only where the surface may redirect errors: the authorization endpoint, once client and redirect_uri are verified).
 */
export async function verifyLatchIdToken(
  keys: SigningKeyCache,
  hint: string,
  issuer: string,
  { invalid = 'id_token_hint is not an id_token Latch issued', redirectable = false }: { invalid?: string; redirectable?: boolean } = {},
): Promise<LatchIdToken> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(hint).kid;
  } catch {
    throw new InvalidRequest(invalid, { redirectable });
  }
  await keys.ensureLoaded();
  const key = kid === undefined ? undefined : keys.verificationKey(kid);
  if (!key) throw new InvalidRequest(`${invalid}: its key is not (or no longer) in the JWKS`, { redirectable });
  let claims: Record<string, unknown>;
  try {
    const { payload } = await compactVerify(hint, key.publicKey, { algorithms: [key.alg] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw new InvalidRequest(`${invalid}: the signature does not verify`, { redirectable });
  }
  const audience = (Array.isArray(claims.aud) ? claims.aud : [claims.aud]).filter((aud): aud is string => typeof aud === 'string');
  if (claims.iss !== issuer || audience.length === 0 || typeof claims.sub !== 'string') {
    throw new InvalidRequest(`${invalid}: issuer, audience or subject do not match`, { redirectable });
  }
  return {
    sub: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    audience,
    sid: typeof claims.sid === 'string' ? claims.sid : null,
  };
}

const INVALID_FOR_CLIENT = 'id_token_hint is not an id_token Latch issued to this client';

export async function verifyIdTokenHint(keys: SigningKeyCache, hint: string, expected: { issuer: string; clientId: string }): Promise<IdTokenHint> {
  const token = await verifyLatchIdToken(keys, hint, expected.issuer, { invalid: INVALID_FOR_CLIENT, redirectable: true });
  if (!token.audience.includes(expected.clientId)) throw new InvalidRequest(`${INVALID_FOR_CLIENT}: issuer, audience or subject do not match`);
  return { sub: token.sub, email: token.email };
}
