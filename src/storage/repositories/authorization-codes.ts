import type { Kysely } from 'kysely';
import type { AuthorizationCodeRow, Database } from '../database.js';
import type { AuthorizationCode, AuthorizationCodeRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';

// The queries of the hot paths (authorize, token), compiled once (precompiled-query.ts).
const insertCode = precompileQuery(
  (
    db,
    p: Parameter<{
      codeHash: string;
      clientId: string;
      userId: number;
      redirectUri: string;
      scope: string;
      nonce: string | null;
      codeChallenge: string | null;
      authTime: number;
      createdAt: number;
      expiresAt: number;
    }>,
  ) =>
    db.insertInto('authorization_codes').values({
      code_hash: p('codeHash'),
      client_id: p('clientId'),
      user_id: p('userId'),
      redirect_uri: p('redirectUri'),
      scope: p('scope'),
      nonce: p('nonce'),
      code_challenge: p('codeChallenge'),
      auth_time: p('authTime'),
      created_at: p('createdAt'),
      expires_at: p('expiresAt'),
      consumed_at: null,
    }),
);

type ConsumeValues = { codeHash: string; clientId: string; now: number; redirectUri: string; codeChallenge: string };

/**
 * Single use as one conditional update: whoever flips consumed_at first gets the row; everyone else gets
 * nothing. No read-then-write, so two processes cannot both win. One compiled form per combination of the
 * optional conditions (redirect_uri sent or not; PKCE challenge or none).
 */
function buildConsume(compareRedirectUri: boolean, challenge: 'equal' | 'none') {
  return precompileQuery((db, p: Parameter<ConsumeValues>) => {
    let query = db
      .updateTable('authorization_codes')
      .set({ consumed_at: p('now') })
      .where('code_hash', '=', p('codeHash'))
      .where('client_id', '=', p('clientId'))
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', p('now'));
    if (compareRedirectUri) query = query.where('redirect_uri', '=', p('redirectUri'));
    query = challenge === 'none' ? query.where('code_challenge', 'is', null) : query.where('code_challenge', '=', p('codeChallenge'));
    return query.returningAll();
  });
}
const consumeQueries = {
  withRedirectUri: { equal: buildConsume(true, 'equal'), none: buildConsume(true, 'none') },
  withoutRedirectUri: { equal: buildConsume(false, 'equal'), none: buildConsume(false, 'none') },
};

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
      await insertCode(db, {
        codeHash: code.codeHash,
        clientId: code.clientId,
        userId: code.userId,
        redirectUri: code.redirectUri,
        scope: toScopeText(code.scope),
        nonce: code.nonce,
        codeChallenge: code.codeChallenge,
        authTime: toEpochSeconds(code.authTime),
        createdAt: toEpochSeconds(code.createdAt),
        expiresAt: toExpiryEpochSeconds(code.expiresAt),
      });
    },

    async consume(conditions, now) {
      const byRedirectUri = conditions.redirectUri === undefined ? consumeQueries.withoutRedirectUri : consumeQueries.withRedirectUri;
      const query = conditions.codeChallenge === null ? byRedirectUri.none : byRedirectUri.equal;
      // A compiled form that does not compare redirect_uri or the challenge ignores those values.
      const result = await query(db, {
        codeHash: conditions.codeHash,
        clientId: conditions.clientId,
        now: toEpochSeconds(now),
        redirectUri: conditions.redirectUri ?? '',
        codeChallenge: conditions.codeChallenge ?? '',
      });
      const row = result.rows[0];
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
