/**
 * PKCE (RFC 7636), S256 only: plain offers no protection once the challenge leaks, and RFC 9700 §2.1.1 says
 * to use S256.
 */
import { hash } from 'node:crypto';

/** RFC 7636 §4.1: code-verifier = 43*128unreserved. */
const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is exactly 43 characters of the base64url alphabet. */
const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;

export function isValidCodeVerifier(verifier: string): boolean {
  return CODE_VERIFIER_PATTERN.test(verifier);
}

export function isValidS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE_PATTERN.test(challenge);
}

/** RFC 7636 §4.6: code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier))). */
export function computeS256Challenge(verifier: string): string {
  // A valid verifier is ASCII (isValidCodeVerifier), so hashing its UTF-8 bytes hashes its ASCII bytes.
  return hash('sha256', verifier, 'base64url');
}
