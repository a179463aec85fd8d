/**
 * Small state kept by the browser between two requests, sealed (AES-256-GCM, second-factor-keys.ts) so that it
 * can be neither read nor changed nor moved to another purpose: the sign-in waiting for its second factor (a
 * cookie) and an authenticator enrolment not yet confirmed (a hidden form field). Each carries its expiry.
 */
import type { KeyEncryption } from '../../crypto/key-encryption.js';

export function sealState(encryption: KeyEncryption, purpose: string, value: Record<string, unknown>, expiresAt: Date): string {
  return encryption.encrypt(JSON.stringify({ ...value, exp: expiresAt.getTime() }), purpose);
}

/** The sealed value, or null when it is missing, was changed, is for another purpose or has expired. */
export function openState(encryption: KeyEncryption, purpose: string, sealed: string | undefined, now: Date): Record<string, unknown> | null {
  if (!sealed) return null;
  try {
    const value = JSON.parse(encryption.decrypt(sealed, purpose)) as Record<string, unknown>;
    return typeof value.exp === 'number' && value.exp > now.getTime() ? value : null;
  } catch {
    return null;
  }
}
