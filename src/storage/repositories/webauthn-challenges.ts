/** WebAuthn challenges already tried (migration 2026_11_28_0000): their hashes, until their cookie expired. */
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { WebauthnChallengeRepository } from '../storage.js';
import { toEpochSeconds, toExpiryEpochSeconds } from './columns.js';
import { deleteRows } from './batched-delete.js';

export function createWebauthnChallengeRepository(db: Kysely<Database>): WebauthnChallengeRepository {
  return {
    async markUsed(challengeHash, expiresAt) {
      // One statement, no read first: of two concurrent uses the primary key lets exactly one insert
      // (WebAuthn Level 2 §13.4.3, a challenge for one ceremony only). The expiry rounded up: the record must
      // outlast the cookie that carries the challenge.
      const result = await db
        .insertInto('used_webauthn_challenges')
        .values({ challenge_hash: challengeHash, expires_at: toExpiryEpochSeconds(expiresAt) })
        .onConflict((conflict) => conflict.column('challenge_hash').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    deleteExpired(before, limit) {
      return deleteRows(db, 'used_webauthn_challenges', 'challenge_hash', 'expires_at', (q) => q.where('expires_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
