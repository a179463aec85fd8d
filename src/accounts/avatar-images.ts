/**
 * Uploaded avatars: at most MAX_AVATAR_BYTES, and only PNG, JPEG, GIF or WebP, recognised by their first
 * bytes rather than by the name or the Content-Type the browser sent (OWASP File Upload Cheat Sheet). SVG is
 * refused: it can carry script. Images are served from Latch's own origin with the sniffed type.
 */
import { generateIdentifier } from '../crypto/secrets.js';
import type { Storage, User } from '../storage/storage.js';
import { inEnglish, type RuleProblem } from './account-rules.js';

export const MAX_AVATAR_BYTES = 1024 * 1024;
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type AvatarType = (typeof AVATAR_TYPES)[number];

export function sniffImageType(data: Buffer): AvatarType | null {
  const startsWith = (bytes: number[], offset = 0) => bytes.every((byte, i) => data[offset + i] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (data[4] === 0x37 || data[4] === 0x39) && data[5] === 0x61) return 'image/gif';
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}

/** The problem with an upload, in words a person can act on, or null when it is fine. */
/** What is wrong with an uploaded picture, as a message of the catalogue (account-rules.ts RuleProblem). */
export function avatarUploadProblem(data: Buffer): RuleProblem | null {
  if (data.length === 0) return { key: 'account.error.chooseImage' };
  if (data.length > MAX_AVATAR_BYTES) return { key: 'account.error.imageTooLarge' };
  if (!sniffImageType(data)) return { key: 'account.error.notAnImage' };
  return null;
}

export function checkAvatarUpload(data: Buffer): string | null {
  return inEnglish(avatarUploadProblem(data));
}

export function avatarPathPrefix(issuer: string): string {
  return `${issuer}/avatars/`;
}

export function isUploadedAvatar(issuer: string, avatarUrl: string | null): boolean {
  return !!avatarUrl && avatarUrl.startsWith(avatarPathPrefix(issuer));
}

/** Stores the image, points the user's avatar at it, and deletes the user's older uploads. Returns the URL. */
export async function storeAvatarImage(storage: Storage, issuer: string, user: User, data: Buffer, now = new Date()): Promise<string> {
  const contentType = sniffImageType(data);
  if (!contentType) throw new Error('checkAvatarUpload must pass before storeAvatarImage');
  const id = generateIdentifier(18);
  const url = `${avatarPathPrefix(issuer)}${id}`;
  await storage.transaction(async (tx) => {
    await tx.avatarImages.insert({ id, userId: user.id, contentType, data, createdAt: now });
    await tx.users.update(user.id, { avatarUrl: url }, now);
    await tx.avatarImages.deleteByUserExcept(user.id, id);
  });
  return url;
}
