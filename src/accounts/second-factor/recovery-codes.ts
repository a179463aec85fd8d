/**
 * Recovery codes: ten single-use codes for when the authenticator is lost. Each is 60 random bits written as
 * three groups of four Crockford base32 characters (`7K3M-Q9TD-2XWA`), read back forgivingly (any case, with
 * or without dashes and spaces, O for 0, I and L for 1).
 *
 * Stored only as HMAC-SHA-256 under a key derived from LATCH_SECRET (second-factor-keys.ts): a fast unkeyed
 * hash of a 60-bit code could be brute-forced from a stolen database, a keyed one cannot without the secret.
 * A typed code is compared with each stored hash in constant time (timingSafeEqual).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_CHARACTERS = 12;

/** `count` new codes, as shown to the person (once). */
export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    // 12 characters × 5 bits = 60 bits; one random byte per character, its low 5 bits (256 is a multiple of 32: no bias).
    const characters = [...randomBytes(CODE_CHARACTERS)].map((byte) => CROCKFORD[byte & 31]).join('');
    return characters.replace(/(.{4})(?=.)/g, '$1-');
  });
}

/** The canonical form of what was typed (12 Crockford characters), or null when it cannot be a code. */
export function normalizeRecoveryCode(input: string): string | null {
  const cleaned = input
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  return cleaned.length === CODE_CHARACTERS && [...cleaned].every((character) => CROCKFORD.includes(character)) ? cleaned : null;
}

/** The stored form of a code: HMAC-SHA-256 of its canonical form under `key`, base64url. */
export function hashRecoveryCode(key: Buffer, code: string): string {
  const canonical = normalizeRecoveryCode(code);
  if (canonical === null) throw new Error('not a recovery code');
  return createHmac('sha256', key).update(canonical).digest('base64url');
}

/**
 * The stored hash among `unusedHashes` that the typed code matches, or null. Every hash is compared, in
 * constant time each, whatever matched.
 */
export function findRecoveryCode(key: Buffer, typed: string, unusedHashes: readonly string[]): string | null {
  if (normalizeRecoveryCode(typed) === null) return null;
  const candidate = Buffer.from(hashRecoveryCode(key, typed));
  let found: string | null = null;
  for (const stored of unusedHashes) {
    const storedBytes = Buffer.from(stored);
    if (storedBytes.length === candidate.length && timingSafeEqual(storedBytes, candidate)) found = stored;
  }
  return found;
}
