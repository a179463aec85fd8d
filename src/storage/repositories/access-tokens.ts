import type { Kysely } from 'kysely';
import type { AccessTokenRow, Database } from '../database.js';
import type { AccessToken, AccessTokenRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { toUser } from './users.js';
import { sqliteFastPathOf } from '../sqlite-fast-path.js';
import { readThrough } from '../cached-reads.js';

// The two queries of the hot paths (token response, userinfo), compiled once (precompiled-query.ts).
export const insertAccessToken = precompileQuery(
  (
    db,
    p: Parameter<{ tokenHash: string; clientId: string; userId: number; scope: string; authorizationCodeHash: string | null; createdAt: number; expiresAt: number }>,
  ) =>
    db.insertInto('access_tokens').values({
      token_hash: p('tokenHash'),
      client_id: p('clientId'),
      user_id: p('userId'),
      scope: p('scope'),
      authorization_code_hash: p('authorizationCodeHash'),
      created_at: p('createdAt'),
      expires_at: p('expiresAt'),
      revoked_at: null,
    }),
);

const findActiveTokenWithUser = precompileQuery(
  (db, p: Parameter<{ tokenHash: string; now: number }>) =>
    db
      .selectFrom('access_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select([
        't.token_hash', 't.client_id', 't.user_id', 't.scope', 't.authorization_code_hash', 't.created_at',
        't.expires_at', 't.revoked_at',
        'u.id', 'u.email', 'u.email_normalized', 'u.email_verified', 'u.name', 'u.avatar_url', 'u.password_hash',
        'u.created_at as user_created_at', 'u.updated_at as user_updated_at',
      ])
      .where('t.token_hash', '=', p('tokenHash'))
      .where('t.revoked_at', 'is', null)
      .where('t.expires_at', '>', p('now')),
);

function toAccessToken(row: AccessTokenRow): AccessToken {
  return {
    tokenHash: row.token_hash,
    clientId: row.client_id,
    userId: Number(row.user_id),
    scope: fromScopeText(row.scope),
    authorizationCodeHash: row.authorization_code_hash,
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    revokedAt: fromNullableEpochSeconds(row.revoked_at),
  };
}

export function createAccessTokenRepository(db: Kysely<Database>): AccessTokenRepository {
  return {
    async insert(token) {
      await insertAccessToken(db, {
        tokenHash: token.tokenHash,
        clientId: token.clientId,
        userId: token.userId,
        scope: toScopeText(token.scope),
        authorizationCodeHash: token.authorizationCodeHash,
        createdAt: toEpochSeconds(token.createdAt),
        expiresAt: toExpiryEpochSeconds(token.expiresAt),
      });
    },

    async findActiveWithUser(tokenHash, now) {
      return readThrough(
        sqliteFastPathOf(db)?.cached,
        (c) => c.activeTokens,
        tokenHash,
        async () => {
          const row = (await findActiveTokenWithUser(db, { tokenHash, now: toEpochSeconds(now) })).rows[0];
          if (!row) return null;
          return {
            token: toAccessToken(row),
            user: toUser({ ...row, created_at: row.user_created_at, updated_at: row.user_updated_at }),
          };
        },
        (found) => found.token.expiresAt > now,
      );
    },

    async findByHash(tokenHash) {
      const row = await db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row ? toAccessToken(row) : null;
    },

    async revokeByAuthorizationCode(codeHash, now) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at: toEpochSeconds(now) })
        .where('authorization_code_hash', '=', codeHash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      sqliteFastPathOf(db)?.changed();
      return Number(result.numUpdatedRows);
    },

    async revokeByUserAndClient(userId, clientId, now) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at: toEpochSeconds(now) })
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      sqliteFastPathOf(db)?.changed();
      return Number(result.numUpdatedRows);
    },

    async deleteExpired(before) {
      const result = await db.deleteFrom('access_tokens').where('expires_at', '<', toEpochSeconds(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
