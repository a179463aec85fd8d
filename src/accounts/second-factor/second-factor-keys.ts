/**
 * The keys second factors use, each derived from LATCH_SECRET with HKDF under its own `info` (RFC 5869 §3.2),
 * so that none of them is the key of anything else: authenticator secrets at rest, recovery-code hashes, the
 * sign-in waiting for its second factor, and the secret of an enrolment not yet confirmed.
 */
import { hkdfSync } from 'node:crypto';
import { createKeyEncryption, type KeyEncryption } from '../../crypto/key-encryption.js';

export interface SecondFactorKeys {
  /** Authenticator secrets at rest; the associated data is `totp:<user id>` (a secret cannot move to another account). */
  totpSecrets: KeyEncryption;
  /** HMAC key of the stored recovery codes. */
  recoveryCodes: Buffer;
  /** The state between the password and the second factor (pending-sign-in.ts) and unconfirmed enrolments. */
  pendingState: KeyEncryption;
  /** HMAC key of the WebAuthn user handles (passkeys.ts): 32 bytes per account, stable, never the email. */
  webauthnUserHandles: Buffer;
}

export function deriveSecondFactorKeys(secret: string): SecondFactorKeys {
  return {
    totpSecrets: createKeyEncryption(secret, 'latch totp secrets v1'),
    recoveryCodes: Buffer.from(hkdfSync('sha256', secret, 'latch', 'latch recovery codes v1', 32)),
    pendingState: createKeyEncryption(secret, 'latch second factor state v1'),
    webauthnUserHandles: Buffer.from(hkdfSync('sha256', secret, 'latch', 'latch webauthn user handles v1', 32)),
  };
}

export const totpSecretAssociatedData = (userId: number) => `totp:${userId}`;
