import type { Kysely } from 'kysely';
import type { AuthorizationCodeRow, Database } from '../database.js';
import type { AuthorizationCode, AuthorizationCodeRepository, ConsumeConditions, RedeemedAccessToken, User } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { sqliteFastPathOf, type ExecuteNow } from '../sqlite-fast-path.js';
import { insertAccessToken } from './access-tokens.js';
import { findUserById, toUser } from './users.js';
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

function consumeQueryFor(conditions: ConsumeConditions) {
  const byRedirectUri = conditions.redirectUri === undefined ? consumeQueries.withoutRedirectUri : consumeQueries.withRedirectUri;
  return conditions.codeChallenge === null ? byRedirectUri.none : byRedirectUri.equal;
}

function consumeValues(conditions: ConsumeConditions, now: Date): ConsumeValues {
  // A compiled form that does not compare redirect_uri or the challenge ignores those values.
  return {
    codeHash: conditions.codeHash,
    clientId: conditions.clientId,
    now: toEpochSeconds(now),
    redirectUri: conditions.redirectUri ?? '',
    codeChallenge: conditions.codeChallenge ?? '',
  };
}

function tokenValues(code: AuthorizationCodeRow, token: RedeemedAccessToken) {
  return {
    tokenHash: token.tokenHash,
    clientId: code.client_id,
    userId: Number(code.user_id),
    scope: code.scope,
    authorizationCodeHash: code.code_hash,
    createdAt: toEpochSeconds(token.createdAt),
    expiresAt: toExpiryEpochSeconds(token.expiresAt),
  };
}

function redeemed(code: AuthorizationCodeRow, user: User | undefined): { code: AuthorizationCode; user: User } {
  // users → codes cascades on delete, so a code that was just consumed has its user.
  if (!user) throw new Error(`authorization code of user ${code.user_id}, who does not exist`);
  return { code: toAuthorizationCode(code), user };
}

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
      const row = (await consumeQueryFor(conditions)(db, consumeValues(conditions, now))).rows[0];
      return row ? toAuthorizationCode(row) : null;
    },

    async redeem(conditions, token, now) {
      const consume = consumeQueryFor(conditions);
      const values = consumeValues(conditions, now);
      const fastPath = sqliteFastPathOf(db);
      if (fastPath) {
        // Read before the write: the user is read through the cache under it (cached-reads.ts). The new token
        // is not cached here: an entry per exchange lives long enough to be promoted to V8's old space, and
        // the churn showed as major-GC pauses in the exchange's p99 at a fixed load. Userinfo caches it on use.
        const signal = await fastPath.cached.signal();
        // One write unit: the statements share the group commit (sqlite-fast-path.ts).
        return fastPath.write((execute: ExecuteNow) => {
          const code = execute(consume.withValues(db, values)).rows[0];
          if (!code) return null;
          execute(insertAccessToken.withValues(db, tokenValues(code, token)));
          const userId = Number(code.user_id);
          let user = fastPath.cached.users.get(String(userId), signal);
          if (!user) {
            const row = execute(findUserById.withValues(db, { id: userId })).rows[0];
            user = row && toUser(row);
            if (user) fastPath.cached.users.set(String(userId), user, signal);
          }
          return redeemed(code, user);
        });
      }
      const inTransaction = async (trx: Kysely<Database>) => {
        const code = (await consume(trx, values)).rows[0];
        if (!code) return null;
        await insertAccessToken(trx, tokenValues(code, token));
        const user = (await findUserById(trx, { id: Number(code.user_id) })).rows[0];
        return redeemed(code, user && toUser(user));
      };
      return db.isTransaction ? inTransaction(db) : db.transaction().execute(inTransaction);
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
