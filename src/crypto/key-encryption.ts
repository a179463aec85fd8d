/**
 * Encryption of signing keys at rest (docs/protocol-decisions.md "Secrets at rest"): AES-256-GCM under a key
 * derived from LATCH_SECRET with HKDF-SHA256 (RFC 5869), a fresh 96-bit IV per value (NIST SP 800-38D §8.2), and
 * the key id as additional authenticated data, so that an encrypted private key cannot be moved to another row.
 *
 * Stored form: `v1.<iv>.<ciphertext>.<tag>`, base64url. The version leaves room for a later scheme.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const HKDF_SALT = 'latch';
const HKDF_INFO = 'latch signing keys v1';

export class KeyDecryptionError extends Error {}

export interface KeyEncryption {
  encrypt(plaintext: string, associatedData: string): string;
  decrypt(stored: string, associatedData: string): string;
}

/** `info` separates the keys derived for different uses (RFC 5869 §3.2); signing keys use the default. */
export function createKeyEncryption(secret: string, info: string = HKDF_INFO): KeyEncryption {
  const key = Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, info, 32));
  return {
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [FORMAT_VERSION, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    decrypt(stored, associatedData) {
      const [version, iv, ciphertext, tag] = stored.split('.');
      if (version !== FORMAT_VERSION || !iv || ciphertext === undefined || !tag) throw new KeyDecryptionError('unknown encrypted key format');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new KeyDecryptionError('the key cannot be decrypted with this LATCH_SECRET', { cause: error });
      }
    },
  };
}
