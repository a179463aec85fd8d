/** Initial access tokens for dynamic client registration (migration 2026_11_25_0300; docs "Dynamic client registration"). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, RegistrationTokensTable } from '../database.js';
import type { RegistrationToken, RegistrationTokenRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds, toNullableEpochSeconds } from './columns.js';

function toRegistrationToken(row: Selectable<RegistrationTokensTable>): RegistrationToken {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    note: row.note,
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromNullableEpochSeconds(row.expires_at),
    revokedAt: fromNullableEpochSeconds(row.revoked_at),
  };
}

export function createRegistrationTokenRepository(db: Kysely<Database>): RegistrationTokenRepository {
  return {
    async insert(token) {
      await db
        .insertInto('registration_tokens')
        .values({
          id: token.id,
          token_hash: token.tokenHash,
          note: token.note,
          created_at: toEpochSeconds(token.createdAt),
          expires_at: toNullableEpochSeconds(token.expiresAt),
          revoked_at: null,
        })
        .execute();
    },

    async findUsable(tokenHash, now) {
      const at = toEpochSeconds(now);
      const row = await db
        .selectFrom('registration_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
        .executeTakeFirst();
      return row ? toRegistrationToken(row) : null;
    },

    async list() {
      const rows = await db.selectFrom('registration_tokens').selectAll().orderBy('created_at', 'desc').orderBy('id').execute();
      return rows.map(toRegistrationToken);
    },

    async revoke(id, now) {
      const result = await db.updateTable('registration_tokens').set({ revoked_at: toEpochSeconds(now) }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
