/** Passkeys (migration 2026_11_24_0710): registered WebAuthn credentials, public keys only. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, PasskeysTable } from '../database.js';
import type { Passkey, PasskeyRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds, toNullableEpochSeconds } from './columns.js';

function toPasskey(row: Selectable<PasskeysTable>): Passkey {
  return {
    credentialId: row.credential_id,
    userId: Number(row.user_id),
    publicKey: Buffer.from(row.public_key, 'base64url'),
    counter: Number(row.counter),
    transports: JSON.parse(row.transports) as string[],
    aaguid: row.aaguid,
    backupEligible: Number(row.backup_eligible) === 1,
    backedUp: Number(row.backed_up) === 1,
    name: row.name,
    createdAt: fromEpochSeconds(row.created_at),
    lastUsedAt: fromNullableEpochSeconds(row.last_used_at),
  };
}

export function createPasskeyRepository(db: Kysely<Database>): PasskeyRepository {
  return {
    async insert(passkey) {
      const result = await db
        .insertInto('passkeys')
        .values({
          credential_id: passkey.credentialId,
          user_id: passkey.userId,
          public_key: Buffer.from(passkey.publicKey).toString('base64url'),
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          aaguid: passkey.aaguid,
          backup_eligible: passkey.backupEligible ? 1 : 0,
          backed_up: passkey.backedUp ? 1 : 0,
          name: passkey.name,
          created_at: toEpochSeconds(passkey.createdAt),
          last_used_at: toNullableEpochSeconds(passkey.lastUsedAt),
        })
        .onConflict((conflict) => conflict.column('credential_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async findByCredentialId(credentialId) {
      const row = await db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
      return row ? toPasskey(row) : null;
    },

    async listByUser(userId) {
      const rows = await db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('credential_id').execute();
      return rows.map(toPasskey);
    },

    async recordUse(credentialId, previousCounter, use) {
      // Conditional on the counter read before the check: of two sign-ins with one assertion, one moves it.
      const result = await db
        .updateTable('passkeys')
        .set({ counter: use.counter, backed_up: use.backedUp ? 1 : 0, last_used_at: toEpochSeconds(use.at) })
        .where('credential_id', '=', credentialId)
        .where('counter', '=', previousCounter)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async delete(userId, credentialId) {
      const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).where('credential_id', '=', credentialId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
