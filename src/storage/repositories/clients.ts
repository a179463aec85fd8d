import type { Kysely } from 'kysely';
import { DEFAULT_SIGNING_ALGORITHM, isSigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { ClientRow, Database } from '../database.js';
import type { Client, ClientPatch, ClientRepository, NewClient } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds, toNullableEpochSeconds } from './columns.js';
import { sqliteFastPathOf } from '../sqlite-fast-path.js';
import { readThrough } from '../cached-reads.js';

/** Every token request and authorization request reads its client: compiled once (precompiled-query.ts). */
const findClientById = precompileQuery((db, p: Parameter<{ clientId: string }>) =>
  db.selectFrom('clients').selectAll().where('client_id', '=', p('clientId')),
);

function toClient(row: ClientRow): Client {
  return {
    clientId: row.client_id,
    name: row.name,
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: fromNullableEpochSeconds(row.previous_secret_expires_at),
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    ownerUserId: row.owner_user_id === null ? null : Number(row.owner_user_id),
    homepageUrl: row.homepage_url,
    logoUrl: row.logo_url,
    idTokenSignedResponseAlg: isSigningAlgorithm(row.id_token_signed_response_alg) ? row.id_token_signed_response_alg : DEFAULT_SIGNING_ALGORITHM,
    createdAt: fromEpochSeconds(row.created_at),
    updatedAt: fromEpochSeconds(row.updated_at),
  };
}

export function createClientRepository(db: Kysely<Database>): ClientRepository {
  return {
    async findById(clientId) {
      return readThrough(sqliteFastPathOf(db)?.cached, (c) => c.clients, clientId, async () => {
        const row = (await findClientById(db, { clientId })).rows[0];
        return row ? toClient(row) : null;
      });
    },

    async list() {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('client_id').execute();
      return rows.map(toClient);
    },

    async listByOwner(userId) {
      const rows = await db.selectFrom('clients').selectAll().where('owner_user_id', '=', userId).orderBy('created_at').execute();
      return rows.map(toClient);
    },

    async insert(client: NewClient, now) {
      const at = toEpochSeconds(now);
      const row = await db
        .insertInto('clients')
        .values({
          client_id: client.clientId,
          name: client.name,
          secret_hash: client.secretHash,
          previous_secret_hash: client.previousSecretHash,
          previous_secret_expires_at: toNullableEpochSeconds(client.previousSecretExpiresAt),
          redirect_uris: JSON.stringify(client.redirectUris),
          owner_user_id: client.ownerUserId,
          homepage_url: client.homepageUrl,
          logo_url: client.logoUrl,
          id_token_signed_response_alg: client.idTokenSignedResponseAlg ?? DEFAULT_SIGNING_ALGORITHM,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toClient(row);
    },

    async update(clientId, patch: ClientPatch, now) {
      const result = await db
        .updateTable('clients')
        .set({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.secretHash !== undefined && { secret_hash: patch.secretHash }),
          ...(patch.previousSecretHash !== undefined && { previous_secret_hash: patch.previousSecretHash }),
          ...(patch.previousSecretExpiresAt !== undefined && {
            previous_secret_expires_at: toNullableEpochSeconds(patch.previousSecretExpiresAt),
          }),
          ...(patch.redirectUris !== undefined && { redirect_uris: JSON.stringify(patch.redirectUris) }),
          ...(patch.homepageUrl !== undefined && { homepage_url: patch.homepageUrl }),
          ...(patch.logoUrl !== undefined && { logo_url: patch.logoUrl }),
          ...(patch.idTokenSignedResponseAlg !== undefined && { id_token_signed_response_alg: patch.idTokenSignedResponseAlg }),
          updated_at: toEpochSeconds(now),
        })
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      // Secrets, redirect URIs and the rest are cached by every process (cached-reads.ts).
      sqliteFastPathOf(db)?.changed();
      return Number(result.numUpdatedRows) > 0;
    },

    async delete(clientId) {
      const result = await db.deleteFrom('clients').where('client_id', '=', clientId).executeTakeFirst();
      // Its tokens went with it (cascade): cached userinfo answers start over (cached-reads.ts).
      sqliteFastPathOf(db)?.changed();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
