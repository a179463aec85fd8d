/**
 * The checks a relying party makes on an id_token (OIDC Core §3.1.3.7), each on its own so that the playground
 * can tick or cross it: the signature against the keys Latch publishes (jose, with the JWKS the jwks endpoint
 * served), `iss`, `aud` (and `azp` when there are several audiences), `nonce`, and expiry. Nothing here trusts the
 * token before its check: the header and claims are decoded for display only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import type { CatalogueText } from '../i18n/translator.js';

export type IdTokenCheckName = 'signature' | 'iss' | 'aud' | 'nonce' | 'exp';

export interface IdTokenCheck {
  name: IdTokenCheckName;
  passed: boolean;
  /**
   * What was compared, as a message of the catalogue ("iss is http://…, the issuer"; i18n "developer.check."),
   * told in the page's language. Plain data: the playground keeps it in its sealed cookie between the steps.
   */
  detail: CatalogueText;
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
    const detail: CatalogueText = { key: 'developer.check.undecodable', params: { error: (error as Error).message } };
    return { header, claims, checks: (['signature', 'iss', 'aud', 'nonce', 'exp'] as const).map((name) => ({ name, passed: false, detail })) };
  }

  const checks: IdTokenCheck[] = [];
  try {
    const { protectedHeader } = await compactVerify(idToken, createLocalJWKSet(expected.jwks));
    const jwks = `${expected.issuer}/oauth2/jwks`;
    checks.push({
      name: 'signature',
      passed: true,
      detail:
        protectedHeader.kid === undefined
          ? { key: 'developer.check.signatureNoKid', params: { alg: protectedHeader.alg, jwks } }
          : { key: 'developer.check.signature', params: { alg: protectedHeader.alg, kid: String(protectedHeader.kid), jwks } },
    });
  } catch (error) {
    checks.push({ name: 'signature', passed: false, detail: { key: 'developer.check.signatureFailed', params: { jwks: `${expected.issuer}/oauth2/jwks`, error: (error as Error).message } } });
  }

  const iss = claims.iss;
  checks.push(
    typeof iss === 'string' && iss === expected.issuer
      ? { name: 'iss', passed: true, detail: { key: 'developer.check.iss', params: { iss } } }
      : { name: 'iss', passed: false, detail: { key: 'developer.check.issWrong', params: { iss: String(JSON.stringify(iss)), issuer: expected.issuer } } },
  );

  const aud = claims.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((value): value is string => typeof value === 'string') : [];
  const azpOk = audiences.length <= 1 || claims.azp === expected.clientId;
  checks.push(
    audiences.includes(expected.clientId) && azpOk
      ? { name: 'aud', passed: true, detail: { key: 'developer.check.aud', params: { clientId: expected.clientId } } }
      : {
          name: 'aud',
          passed: false,
          detail: azpOk
            ? { key: 'developer.check.audWrong', params: { aud: String(JSON.stringify(aud)), clientId: expected.clientId } }
            : { key: 'developer.check.azpWrong', params: { aud: String(JSON.stringify(aud)), azp: String(JSON.stringify(claims.azp)), clientId: expected.clientId } },
        },
  );

  const nonce = claims.nonce;
  checks.push(
    typeof nonce === 'string' && sameString(nonce, expected.nonce)
      ? { name: 'nonce', passed: true, detail: { key: 'developer.check.nonce' } }
      : { name: 'nonce', passed: false, detail: { key: 'developer.check.nonceWrong', params: { nonce: String(JSON.stringify(nonce)), sent: expected.nonce } } },
  );

  const exp = claims.exp;
  const nowSeconds = Math.floor(expected.now.getTime() / 1000);
  checks.push(
    typeof exp === 'number' && exp > nowSeconds
      // Seconds as strings: the codes' own notation ("3600 s"), not a number written for the language.
      ? { name: 'exp', passed: true, detail: { key: 'developer.check.exp', params: { time: new Date(exp * 1000).toISOString(), seconds: String(exp - nowSeconds) } } }
      : {
          name: 'exp',
          passed: false,
          detail:
            typeof exp === 'number'
              ? { key: 'developer.check.expired', params: { time: new Date(exp * 1000).toISOString(), seconds: String(nowSeconds - exp) } }
              : { key: 'developer.check.noExp' },
        },
  );
  return { header, claims, checks };
}
