/**
 * Single-use, expiring links sent by mail: email verification and password reset (OWASP Forgot Password
 * Cheat Sheet). The token is 256 random bits, only its SHA-256 hash is stored, and using it is one conditional
 * update, so a link works once even when clicked twice at the same moment.
 */
import type { Config } from '../config.js';
import { generateSecret, hashSecret } from '../crypto/secrets.js';
import type { EmailLink, EmailLinkPurpose, Storage, User } from '../storage/storage.js';

export const EMAIL_LINK_PREFIX = 'latch_el_';

const LINK_PATHS: Record<EmailLinkPurpose, string> = {
  verify_email: '/verify-email',
  reset_password: '/reset-password',
};

function ttlSecondsFor(config: Config, purpose: EmailLinkPurpose): number {
  return purpose === 'verify_email' ? config.emailVerificationTtlSeconds : config.passwordResetTtlSeconds;
}

/** Creates a link for the user's current email address and returns its URL (the only place the token exists). */
export async function issueEmailLink(storage: Storage, config: Config, user: User, purpose: EmailLinkPurpose, now = new Date()): Promise<string> {
  const token = generateSecret(EMAIL_LINK_PREFIX);
  await storage.emailLinks.insert({
    tokenHash: hashSecret(token),
    userId: user.id,
    purpose,
    email: user.email,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlSecondsFor(config, purpose) * 1000),
  });
  const url = new URL(`${config.issuer}${LINK_PATHS[purpose]}`);
  url.searchParams.set('token', token);
  return url.href;
}

function looksLikeToken(token: string): boolean {
  return token.startsWith(EMAIL_LINK_PREFIX) && token.length < 100;
}

/** The link behind a token, when it can still be used (for showing the page it leads to). */
export async function findUsableEmailLink(storage: Storage, token: string, purpose: EmailLinkPurpose, now = new Date()): Promise<EmailLink | null> {
  if (!looksLikeToken(token)) return null;
  return storage.emailLinks.findUsable(hashSecret(token), purpose, now);
}

/** Uses the link: returns it to the first caller only, and null when unknown, expired or already used. */
export async function consumeEmailLink(storage: Storage, token: string, purpose: EmailLinkPurpose, now = new Date()): Promise<EmailLink | null> {
  if (!looksLikeToken(token)) return null;
  return storage.emailLinks.consume(hashSecret(token), purpose, now);
}
