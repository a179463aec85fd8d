/**
 * The JWS algorithms Latch signs id_tokens with (OIDC Core §3.1.3.7, §15.1). RS256 is the default, because it
 * is the one every OpenID Connect client must support; a client can be registered for ES256 or EdDSA (Ed25519).
 */
export const SIGNING_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
export const DEFAULT_SIGNING_ALGORITHM: SigningAlgorithm = 'RS256';

export function isSigningAlgorithm(value: unknown): value is SigningAlgorithm {
  return typeof value === 'string' && (SIGNING_ALGORITHMS as readonly string[]).includes(value);
}
