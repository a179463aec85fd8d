/**
 * The checks a relying party makes on an id_token (OIDC Core §3.1.3.7), each on its own so that the playground
 * can tick or cross it: the signature against the keys Latch publishes (jose, with the JWKS the jwks endpoint
 * served), `iss`, `aud` (and `azp` when there are several audiences), `nonce`, and expiry. Nothing here trusts the
 * token before its check: the header and claims are decoded for display only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';

export type IdTokenCheckName = 'signature' | 'iss' | 'aud' | 'nonce' | 'exp';

export interface IdTokenCheck {
  name: IdTokenCheckName;
  passed: boolean;
  /** What was compared, in words: "iss is http://…, the issuer". */
  detail: string;
}

export interface DecodedIdToken {
  header: Record<string, unknown> | null;
  claims: Record<string, unknown> | null;
  checks: IdTokenCheck[];
}

/** Equal strings, compared in constant time (their SHA-256 digests have the same length). */
export function sameString(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export async function checkIdToken(
  idToken: string,
  expected: { jwks: JSONWebKeySet; issuer: string; clientId: string; nonce: string; now: Date },
): Promise<DecodedIdToken> {
  let header: Record<string, unknown> | null = null;
  let claims: Record<string, unknown> | null = null;
  try {
    header = decodeProtectedHeader(idToken) as Record<string, unknown>;
    claims = decodeJwt(idToken) as Record<string, unknown>;
  } catch (error) {
    const detail = `not a JWT that can be decoded: ${(error as Error).message}`;
    return { header, claims, checks: (['signature', 'iss', 'aud', 'nonce', 'exp'] as const).map((name) => ({ name, passed: false, detail })) };
  }

  const checks: IdTokenCheck[] = [];
  try {
    const { protectedHeader } = await compactVerify(idToken, createLocalJWKSet(expected.jwks));
    checks.push({ name: 'signature', passed: true, detail: `${protectedHeader.alg} signature verified with key ${String(protectedHeader.kid ?? '(no kid)')} from ${expected.issuer}/oauth2/jwks` });
  } catch (error) {
    checks.push({ name: 'signature', passed: false, detail: `does not verify with the keys of ${expected.issuer}/oauth2/jwks: ${(error as Error).message}` });
  }

  const iss = claims.iss;
  checks.push(
    typeof iss === 'string' && iss === expected.issuer
      ? { name: 'iss', passed: true, detail: `iss is ${iss}, the issuer` }
      : { name: 'iss', passed: false, detail: `iss is ${JSON.stringify(iss)}, expected ${expected.issuer}` },
  );

  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((value): value is string => typeof value === 'string') : [];
  const azpOk = audiences.length <= 1 || claims.azp === expected.clientId;
  checks.push(
    audiences.includes(expected.clientId) && azpOk
      ? { name: 'aud', passed: true, detail: `aud contains ${expected.clientId}, this app's client id` }
      : { name: 'aud', passed: false, detail: `aud is ${JSON.stringify(aud)}${azpOk ? '' : ` with azp ${JSON.stringify(claims.azp)}`}, expected ${expected.clientId}` },
  );

  const nonce = claims.nonce;
  checks.push(
    typeof nonce === 'string' && sameString(nonce, expected.nonce)
      ? { name: 'nonce', passed: true, detail: 'nonce is the one sent in the authorization request' }
      : { name: 'nonce', passed: false, detail: `nonce is ${JSON.stringify(nonce)}, not the one sent (${expected.nonce}): the request was changed, or the token is a replay` },
  );

  const exp = claims.exp;
  const nowSeconds = Math.floor(expected.now.getTime() / 1000);
  checks.push(
    typeof exp === 'number' && exp > nowSeconds
      ? { name: 'exp', passed: true, detail: `expires ${new Date(exp * 1000).toISOString()}, in ${exp - nowSeconds} s` }
      : { name: 'exp', passed: false, detail: typeof exp === 'number' ? `expired ${new Date(exp * 1000).toISOString()}, ${nowSeconds - exp} s ago` : 'no exp claim' },
  );
  return { header, claims, checks };
}
