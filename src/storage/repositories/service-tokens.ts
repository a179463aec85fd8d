/**
 * client_credentials access tokens (RFC 6749 §4.4; migration 2026_11_24_0600): part of the token repository
 * (storage.ts TokenRepository), in a table of their own because they have no user and no grant.
 */
import type { Kysely } from 'kysely';
import type { Database, ServiceTokenRow } from '../database.js';
import type { ServiceToken, TokenRepository } from '../storage.js';
import { deleteRows } from './batched-delete.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';

function toServiceToken(row: ServiceTokenRow): ServiceToken {
  return {
    tokenHash: row.token_hash,
    clientId: row.client_id,
    scope: fromScopeText(row.scope),
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    revokedAt: fromNullableEpochSeconds(row.revoked_at),
  };
}

export function createServiceTokenMethods(
  db: Kysely<Database>,
): Pick<TokenRepository, 'insertServiceToken' | 'findActiveServiceToken' | 'revokeServiceToken'> {
  return {
    async insertServiceToken(token) {
      await db
        .insertInto('service_tokens')
        .values({
          token_hash: token.tokenHash,
          client_id: token.clientId,
          scope: toScopeText(token.scope),
          created_at: toEpochSeconds(token.createdAt),
          expires_at: toExpiryEpochSeconds(token.expiresAt),
          revoked_at: null,
        })
        .execute();
    },

    async findActiveServiceToken(tokenHash, now) {
      const row = await db
        .selectFrom('service_tokens')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', toEpochSeconds(now))
        .executeTakeFirst();
      return row ? toServiceToken(row) : null;
    },

    async revokeServiceToken(tokenHash, clientId, now) {
      const result = await db
        .updateTable('service_tokens')
        .set({ revoked_at: toEpochSeconds(now) })
        .where('token_hash', '=', tokenHash)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

/** The token cleanup's share for service tokens: what expired before `cutoff` (epoch seconds). */
export function deleteExpiredServiceTokens(db: Kysely<Database>, cutoff: number, limit: number | undefined): Promise<number> {
  return deleteRows(db, 'service_tokens', 'token_hash', 'expires_at', (q) => q.where('expires_at', '<', cutoff), limit);
}
