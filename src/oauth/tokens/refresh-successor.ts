/**
 * The successor of a rotated refresh token, recoverable for a retry within the grace window
 * (docs/protocol-decisions.md "Refresh tokens").
 *
 * A retry of the old token must get the same successor back (a lost response, two tabs, two pods), so Latch
 * must be able to produce it again, and must not store it in the clear. The successor is derived: its random
 * part is HMAC-SHA-256, under a key derived from LATCH_SECRET (HKDF, its own `info`), of the token it
 * replaces. Only its time digits (not secret) are stored with the old token, as `d1.<digits>`. Whoever presents
 * the old token again can be given the successor, and nobody else can compute it: it takes both the old token
 * and the key. Deriving costs one HMAC; the previous scheme (AES-256-GCM of a random successor, `v1.…`, still
 * read for tokens rotated before an upgrade) cost a cipher set-up and a fresh IV from the CSPRNG on every
 * refresh, 8% of its CPU time (BENCHMARKS.md, "Refresh (g) and introspection (h) beside the peer").
 */
import { createHmac, hkdfSync } from 'node:crypto';
import type { Config } from '../../config.js';
import { createKeyEncryption, type KeyEncryption } from '../../crypto/key-encryption.js';
import { SECRET_PREFIX, timeDigits } from '../../crypto/secrets.js';

const DERIVED = 'd1.';

interface SuccessorKeys {
  derivation: Buffer;
  /** For successors stored encrypted (`v1.`), before derivation. */
  legacy: KeyEncryption;
}

const keysByConfig = new WeakMap<Config, SuccessorKeys>();
function keysFor(config: Config): SuccessorKeys {
  let keys = keysByConfig.get(config);
  if (!keys) {
    keys = {
      derivation: Buffer.from(hkdfSync('sha256', config.secret, 'latch', 'latch refresh token successors v2', 32)),
      legacy: createKeyEncryption(config.secret, 'latch refresh token successors v1'),
    };
    keysByConfig.set(config, keys);
  }
  return keys;
}

function derive(keys: SuccessorKeys, presented: string, digits: string): string {
  return SECRET_PREFIX.refreshToken + digits + createHmac('sha256', keys.derivation).update(presented).digest('base64url');
}

/** The successor of `presented` issued at `now`, and what to store with the old token to give it again. */
export function successorOf(config: Config, presented: string, now: Date): { successor: string; recovery: string } {
  const digits = timeDigits(now.getTime());
  return { successor: derive(keysFor(config), presented, digits), recovery: DERIVED + digits };
}

/** The successor given when `presented` was rotated, from what was stored then; null when it cannot be recovered. */
export function recoverSuccessor(config: Config, presented: string, presentedHash: string, recovery: string): string | null {
  const keys = keysFor(config);
  if (recovery.startsWith(DERIVED)) {
    const digits = recovery.slice(DERIVED.length);
    return /^[0-9a-f]{11}$/.test(digits) ? derive(keys, presented, digits) : null;
  }
  try {
    return keys.legacy.decrypt(recovery, presentedHash);
  } catch {
    return null;
  }
}
