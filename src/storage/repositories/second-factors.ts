/**
 * Authenticator apps and recovery codes (migration 2026_11_24_0700). Single use is a conditional update whose
 * affected-row count decides (no read-then-write), as for authorization codes.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { SecondFactorRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds, toNullableEpochSeconds } from './columns.js';

export function createSecondFactorRepository(db: Kysely<Database>): SecondFactorRepository {
  return {
    async findTotp(userId) {
      const row = await db.selectFrom('totp_authenticators').selectAll().where('user_id', '=', userId).executeTakeFirst();
      if (!row) return null;
      return {
        userId: Number(row.user_id),
        secretEncrypted: row.secret_encrypted,
        lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
        createdAt: fromEpochSeconds(row.created_at),
        lastUsedAt: fromNullableEpochSeconds(row.last_used_at),
      };
    },

    async insertTotp(authenticator) {
      const result = await db
        .insertInto('totp_authenticators')
        .values({
          user_id: authenticator.userId,
          secret_encrypted: authenticator.secretEncrypted,
          last_used_step: authenticator.lastUsedStep,
          created_at: toEpochSeconds(authenticator.createdAt),
          last_used_at: toNullableEpochSeconds(authenticator.lastUsedAt),
        })
        .onConflict((conflict) => conflict.column('user_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async useTotpStep(userId, step, now) {
      const result = await db
        .updateTable('totp_authenticators')
        .set({ last_used_step: step, last_used_at: toEpochSeconds(now) })
        .where('user_id', '=', userId)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteTotp(userId) {
      const result = await db.deleteFrom('totp_authenticators').where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async listRecoveryCodes(userId) {
      const rows = await db.selectFrom('recovery_codes').selectAll().where('user_id', '=', userId).orderBy('code_hash').execute();
      return rows.map((row) => ({ codeHash: row.code_hash, createdAt: fromEpochSeconds(row.created_at), usedAt: fromNullableEpochSeconds(row.used_at) }));
    },

    async replaceRecoveryCodes(userId, codeHashes, now) {
      // Callers run this in a transaction when it must be atomic (storage.transaction binds this repository to it).
      await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      if (codeHashes.length === 0) return;
      await db
        .insertInto('recovery_codes')
        .values(codeHashes.map((codeHash) => ({ user_id: userId, code_hash: codeHash, created_at: toEpochSeconds(now), used_at: null })))
        .execute();
    },

    async useRecoveryCode(userId, codeHash, now) {
      const result = await db
        .updateTable('recovery_codes')
        .set({ used_at: toEpochSeconds(now) })
        .where('user_id', '=', userId)
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteRecoveryCodes(userId) {
      const result = await db.deleteFrom('recovery_codes').where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
