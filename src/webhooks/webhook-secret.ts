/**
 * A webhook's signing secret (docs/protocol-decisions.md "Webhooks"): 256 random bits, shown once when the
 * webhook is created, and stored only encrypted under LATCH_SECRET. Unlike a client secret it cannot be kept as
 * a hash: Latch signs every delivery with it. AES-256-GCM under a key derived with HKDF-SHA256 and an info of its
 * own (RFC 5869 §3.2: a key per use), the webhook id as associated data, so that an encrypted secret cannot be
 * moved to another webhook's row (crypto/key-encryption.ts).
 */
import { randomBytes } from 'node:crypto';
import { createKeyEncryption, type KeyEncryption } from '../crypto/key-encryption.js';

const HKDF_INFO = 'latch webhook secrets v1';
/** Recognisable in a receiver's configuration and in a secret scanner's rules (Standard Webhooks' prefix). */
const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function generateWebhookId(): string {
  return `wh_${randomBytes(12).toString('base64url')}`;
}

export function webhookSecretEncryption(latchSecret: string): KeyEncryption {
  return createKeyEncryption(latchSecret, HKDF_INFO);
}
