import type { Kysely } from 'kysely';
import type { AuthorizationCodeRow, Database } from '../database.js';
import type { AuthorizationCode, AuthorizationCodeRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';

function toAuthorizationCode(row: AuthorizationCodeRow): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    userId: Number(row.user_id),
    redirectUri: row.redirect_uri,
    scope: fromScopeText(row.scope),
    nonce: row.nonce,
    codeChallenge: row.code_challenge,
    authTime: fromEpochSeconds(row.auth_time),
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    consumedAt: fromNullableEpochSeconds(row.consumed_at),
  };
}

export function createAuthorizationCodeRepository(db: Kysely<Database>): AuthorizationCodeRepository {
  return {
    async insert(code) {
      await db
        .insertInto('authorization_codes')
        .values({
          code_hash: code.codeHash,
          client_id: code.clientId,
          user_id: code.userId,
          redirect_uri: code.redirectUri,
          scope: toScopeText(code.scope),
          nonce: code.nonce,
          code_challenge: code.codeChallenge,
          auth_time: toEpochSeconds(code.authTime),
          created_at: toEpochSeconds(code.createdAt),
          expires_at: toExpiryEpochSeconds(code.expiresAt),
          consumed_at: null,
        })
        .execute();
    },

    async consume(conditions, now) {
      // Single use as one conditional update: whoever flips consumed_at first gets the row; everyone else
      // gets nothing. No read-then-write, so two processes cannot both win.
      const at = toEpochSeconds(now);
      let query = db
        .updateTable('authorization_codes')
        .set({ consumed_at: at })
        .where('code_hash', '=', conditions.codeHash)
        .where('client_id', '=', conditions.clientId)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', at);
      if (conditions.redirectUri !== undefined) query = query.where('redirect_uri', '=', conditions.redirectUri);
      query =
        conditions.codeChallenge === null
          ? query.where('code_challenge', 'is', null)
          : query.where('code_challenge', '=', conditions.codeChallenge);
      const row = await query.returningAll().executeTakeFirst();
      return row ? toAuthorizationCode(row) : null;
    },

    async findByHash(codeHash) {
      const row = await db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row ? toAuthorizationCode(row) : null;
    },

    async deleteExpired(before) {
      const result = await db.deleteFrom('authorization_codes').where('expires_at', '<', toEpochSeconds(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
