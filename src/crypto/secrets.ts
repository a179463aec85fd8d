/**
 * High-entropy secrets: client secrets, access tokens, authorization codes and session ids.
 *
 * Each is 256 random bits, carried with a short recognisable prefix so that secret scanners can find leaked
 * ones, and stored only as a SHA-256 hash. A fast hash is right for 256-bit random values (a slow KDF would
 * only cost throughput); comparisons of secrets are constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = {
  clientSecret: 'latch_cs_',
  accessToken: 'latch_at_',
  authorizationCode: 'latch_ac_',
  browserSession: 'latch_bs_',
} as const;

/** A new secret: the prefix followed by 256 random bits in base64url (only RFC 3986 unreserved characters). */
export function generateSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** A random identifier that is not a secret (client ids, record ids); unreserved characters only. */
export function generateIdentifier(byteLength = 16): string {
  return randomBytes(byteLength).toString('base64url');
}

/** SHA-256 of a secret, base64url: the only form in which secrets are stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/**
 * Compares two strings in constant time, so that response timing reveals nothing about how much of a
 * secret matched. Hashing both first makes the lengths equal, which timingSafeEqual requires.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a).digest();
  const digestB = createHash('sha256').update(b).digest();
  return timingSafeEqual(digestA, digestB);
}
