/**
 * The user code of the device authorization grant (RFC 8628 §6.1; docs/protocol-decisions.md "Device
 * authorization grant"): what a person reads on a TV and types on a phone.
 *
 * - Eight letters from BCDFGHJKLMNPQRSTVWXZ (§6.1's example charset: no vowels, so no words; no digits, so
 *   nothing to mistake for O, I or 1), shown as XXXX-XXXX. 20^8 ≈ 2^34.6 codes.
 * - Typed case-insensitively, with or without the dash or spaces (§6.1: "the dash … should be ignored").
 * - Stored only as an HMAC under a key derived from LATCH_SECRET: with 34 bits a plain hash could be reversed by
 *   trying every code, so a copy of the database alone gives none of them away.
 * - Guessing is bounded by the code's short life and the /device page's attempt limits (§5.1).
 */
import { createHmac, hkdfSync, randomInt } from 'node:crypto';

export const USER_CODE_CHARSET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

const NORMALIZED = new RegExp(`^[${USER_CODE_CHARSET}]{${USER_CODE_LENGTH}}$`);

/** A new user code, as shown: XXXX-XXXX. Each letter drawn uniformly from the CSPRNG (randomInt avoids modulo bias). */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i += 1) code += USER_CODE_CHARSET[randomInt(USER_CODE_CHARSET.length)];
  return formatUserCode(code);
}

/** XXXXXXXX → XXXX-XXXX. */
export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

/**
 * What the person typed, as the eight letters it stands for: upper-cased, spaces and dashes dropped. Null when
 * that is not a code Latch could have shown (a wrong length, a vowel or a digit): no lookup, no attempt counted.
 */
export function normalizeUserCode(typed: string): string | null {
  if (typed.length > 64) return null;
  const letters = typed.toUpperCase().replace(/[\s\-‐‑‒–—]/gu, '');
  return NORMALIZED.test(letters) ? letters : null;
}

export type UserCodeHasher = (normalized: string) => string;

/** The stored form of user codes: HMAC-SHA-256 under a key of their own, derived from LATCH_SECRET with HKDF (RFC 5869). */
export function createUserCodeHasher(secret: string): UserCodeHasher {
  const key = Buffer.from(hkdfSync('sha256', secret, 'latch', 'latch device user codes v1', 32));
  return (normalized) => createHmac('sha256', key).update(normalized).digest('base64url');
}
