/**
 * Authenticator apps (TOTP, RFC 6238) with otpauth: the shared secret, the otpauth:// URI the apps scan, and
 * code checks.
 *
 * SHA-1, 6 digits, 30-second steps: several authenticator apps ignore other values in the URI (Google
 * Authenticator key-URI format), and RFC 6238's default is SHA-1. The secret is 160 bits (RFC 4226 §4 R6).
 * One step either side is accepted for clock drift and typing time (RFC 6238 §5.2: "at most one time step").
 * The step a code belongs to is returned so that the caller can refuse it a second time (§5.2: "MUST NOT
 * accept the second attempt of the same OTP").
 */
import { Secret, TOTP } from 'otpauth';

const PERIOD_SECONDS = 30;
const SECRET_BYTES = 20;
/** RFC 6238 §5.2: one step of network delay either way. */
const DRIFT_STEPS = 1;

/** A new random shared secret, base32 (RFC 4648), as apps take it. */
export function createTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

function totpFor(secretBase32: string, issuerName = 'Latch', accountName = ''): TOTP {
  return new TOTP({ issuer: issuerName, label: accountName, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The `otpauth://totp/…` URI that the QR code carries. */
export function totpUri(secretBase32: string, issuerName: string, accountName: string): string {
  return totpFor(secretBase32, issuerName, accountName).toString();
}

/** The secret in groups of four for people who type it in ("ABCD EFGH …"). */
export function groupSecret(secretBase32: string): string {
  return secretBase32.replace(/(.{4})(?=.)/g, '$1 ');
}

/** What a person typed, as six digits, or null (spaces and dashes some apps show are ignored). */
export function normalizeTotpCode(input: string): string | null {
  const digits = input.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * The RFC 6238 time step (T) of the code if it is right for `now` (± one step), else null. Whether that step
 * was already used is the caller's check (storage: useTotpStep).
 */
export function matchTotpCode(secretBase32: string, code: string, now: Date): number | null {
  const normalized = normalizeTotpCode(code);
  if (normalized === null) return null;
  const totp = totpFor(secretBase32);
  const delta = totp.validate({ token: normalized, timestamp: now.getTime(), window: DRIFT_STEPS });
  return delta === null ? null : totp.counter({ timestamp: now.getTime() }) + delta;
}
