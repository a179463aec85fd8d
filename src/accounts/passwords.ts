/**
 * Password hashing: argon2id with the OWASP Password Storage Cheat Sheet parameters (19 MiB, t=2, p=1).
 * node-argon2 runs on libuv's thread pool, so hashing never blocks the event loop.
 */
import argon2 from 'argon2';

export const PASSWORD_HASH_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PASSWORD_HASH_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for unknown emails, so that response timing does not tell
 * which emails have accounts.
 */
export async function verifyAgainstDummyHash(password: string): Promise<false> {
  dummyHash ??= hashPassword('latch-dummy-password-for-timing');
  await verifyPassword(await dummyHash, password);
  return false;
}
