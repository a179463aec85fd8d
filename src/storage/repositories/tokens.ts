/**
 * The token repository: every token Latch issues is inserted here, whatever the grant, so that a token family
 * (its grant id) is one place to revoke. The authorization_code grant's redemption is one plan
 * (query-executor.ts): consume the code, insert the token, both or neither. On PostgreSQL the plans run in
 * their one-statement and batched forms (tokens-postgres.ts).
 */
import type { Kysely, QueryResult } from 'kysely';
import type { AccessTokenRow, AuthorizationCodeRow, Database, RefreshTokenRow } from '../database.js';
import type {
  AccessToken,
  AuthorizationCode,
  ConsumeConditions,
  IssuedRefreshToken,
  NewAccessToken,
  RedeemedAccessToken,
  RefreshRotation,
  RefreshToken,
  TokenRepository,
} from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { aloneInBatch, batched, type QueryExecutor, type WritePlan } from '../query-executor.js';
import { consumeStatement, toAuthorizationCode } from './authorization-codes.js';
import { toRefreshToken } from './refresh-token-row.js';
import { redeemCodeBatchFor, rotateBatchFor, rotateRefreshAutocommit } from './tokens-postgres.js';
import { toUser } from './users.js';
import { deleteRows } from './batched-delete.js';
import { createServiceTokenMethods, deleteExpiredServiceTokens } from './service-tokens.js';

// The queries of the hot paths (token response, userinfo), compiled once (precompiled-query.ts).
const insertAccessToken = precompileQuery(
  (
    db,
    p: Parameter<{ tokenHash: string; clientId: string; userId: number; scope: string; grantId: string; createdAt: number; expiresAt: number }>,
  ) =>
    db.insertInto('access_tokens').values({
      token_hash: p('tokenHash'),
      client_id: p('clientId'),
      user_id: p('userId'),
      scope: p('scope'),
      grant_id: p('grantId'),
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
        't.token_hash', 't.client_id', 't.user_id', 't.scope', 't.grant_id', 't.created_at',
        't.expires_at', 't.revoked_at',
        'u.id', 'u.email', 'u.email_normalized', 'u.email_verified', 'u.name', 'u.avatar_url', 'u.password_hash', 'u.is_admin', 'u.disabled_at',
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
    grantId: row.grant_id,
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    revokedAt: fromNullableEpochSeconds(row.revoked_at),
  };
}

function tokenValues(token: NewAccessToken) {
  return {
    tokenHash: token.tokenHash,
    clientId: token.clientId,
    userId: token.userId,
    scope: toScopeText(token.scope),
    grantId: token.grantId,
    createdAt: toEpochSeconds(token.createdAt),
    expiresAt: toExpiryEpochSeconds(token.expiresAt),
  };
}

/** Consume the code, then insert the token issued from it: both, or neither (query-executor.ts runs it). */
const insertRefreshToken = precompileQuery(
  (
    db,
    p: Parameter<{
      tokenHash: string;
      grantId: string;
      clientId: string;
      userId: number;
      scope: string;
      authTime: number;
      sid: string | null;
      amr: string;
      acr: string | null;
      createdAt: number;
      expiresAt: number;
      grantExpiresAt: number;
    }>,
  ) =>
    db.insertInto('refresh_tokens').values({
      token_hash: p('tokenHash'),
      grant_id: p('grantId'),
      client_id: p('clientId'),
      user_id: p('userId'),
      scope: p('scope'),
      auth_time: p('authTime'),
      sid: p('sid'),
      amr: p('amr'),
      acr: p('acr'),
      created_at: p('createdAt'),
      expires_at: p('expiresAt'),
      grant_expires_at: p('grantExpiresAt'),
      rotated_at: null,
      successor_encrypted: null,
      revoked_at: null,
    }),
);

/**
 * Single use of a refresh token as one conditional update, as for codes: whoever sets rotated_at first rotates
 * it; every other refresh of it (a race, a retry, a replay) matches nothing.
 */
const rotateRefresh = precompileQuery((db, p: Parameter<{ tokenHash: string; clientId: string; now: number; successorEncrypted: string }>) =>
  db
    .updateTable('refresh_tokens')
    .set({ rotated_at: p('now'), successor_encrypted: p('successorEncrypted') })
    .where('token_hash', '=', p('tokenHash'))
    .where('client_id', '=', p('clientId'))
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', p('now'))
    .where('grant_expires_at', '>', p('now'))
    .returningAll(),
);

/** Rotate the presented refresh token, then insert its successor and the new access token: all, or nothing. */
function* rotateRefreshPlan(db: Kysely<Database>, rotation: RefreshRotation, now: Date): WritePlan<{ rotated: RefreshToken; scope: string[] } | null> {
  const at = toEpochSeconds(now);
  const row = (
    (yield rotateRefresh(db, { tokenHash: rotation.tokenHash, clientId: rotation.clientId, now: at, successorEncrypted: rotation.successor.encrypted })) as QueryResult<RefreshTokenRow>
  ).rows[0];
  if (!row) return null;
  const rotated = toRefreshToken(row);
  // May throw (a wider scope than granted): the whole plan, the rotation included, is then undone.
  const scope = rotation.narrowScope ? rotation.narrowScope(rotated.scope) : rotated.scope;
  yield insertRefreshToken(db, {
    tokenHash: rotation.successor.tokenHash,
    grantId: row.grant_id,
    clientId: row.client_id,
    userId: Number(row.user_id),
    scope: row.scope,
    authTime: Number(row.auth_time),
    // The session the grant was approved in: id_tokens from every refresh carry its sid, amr and acr.
    sid: row.sid,
    amr: row.amr,
    acr: row.acr,
    createdAt: at,
    // Idle expiry from now, never past the grant's absolute one.
    expiresAt: Math.min(toExpiryEpochSeconds(new Date(now.getTime() + rotation.successor.idleSeconds * 1000)), Number(row.grant_expires_at)),
    grantExpiresAt: Number(row.grant_expires_at),
  });
  yield insertAccessToken(db, {
    tokenHash: rotation.accessToken.tokenHash,
    clientId: row.client_id,
    userId: Number(row.user_id),
    scope: toScopeText(scope),
    grantId: row.grant_id,
    createdAt: toEpochSeconds(rotation.accessToken.createdAt),
    expiresAt: toExpiryEpochSeconds(rotation.accessToken.expiresAt),
  });
  return { rotated: { ...rotated, rotatedAt: now, successorEncrypted: rotation.successor.encrypted }, scope };
}

function* redeemCodePlan(
  db: Kysely<Database>,
  conditions: ConsumeConditions,
  token: RedeemedAccessToken,
  now: Date,
  refreshToken: (() => IssuedRefreshToken) | undefined,
): WritePlan<AuthorizationCode | null> {
  const consumed = ((yield consumeStatement(db, conditions, now)) as QueryResult<AuthorizationCodeRow>).rows[0];
  if (!consumed) return null;
  // Client, user, scope and grant are the code's, copied column to column.
  yield insertAccessToken(db, {
    tokenHash: token.tokenHash,
    clientId: consumed.client_id,
    userId: Number(consumed.user_id),
    scope: consumed.scope,
    grantId: consumed.grant_id,
    createdAt: toEpochSeconds(token.createdAt),
    expiresAt: toExpiryEpochSeconds(token.expiresAt),
  });
  // OIDC Core §11: a refresh token only for a grant that includes offline access.
  if (refreshToken && fromScopeText(consumed.scope).includes('offline_access')) {
    const issued = refreshToken();
    yield insertRefreshToken(db, {
      tokenHash: issued.tokenHash,
      grantId: consumed.grant_id,
      clientId: consumed.client_id,
      userId: Number(consumed.user_id),
      scope: consumed.scope,
      authTime: Number(consumed.auth_time),
      sid: consumed.sid,
      amr: consumed.amr,
      acr: consumed.acr,
      createdAt: toEpochSeconds(now),
      expiresAt: toExpiryEpochSeconds(issued.expiresAt),
      grantExpiresAt: toExpiryEpochSeconds(issued.grantExpiresAt),
    });
  }
  return toAuthorizationCode(consumed);
}

/** `make`, called at most once: later calls return its first answer. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

export function createTokenRepository(db: Kysely<Database>, executor: QueryExecutor): TokenRepository {
  return {
    async insert(token) {
      await executor.write(insertAccessToken(db, tokenValues(token)));
    },

    ...createServiceTokenMethods(db),

    redeemCode(conditions, token, now, refreshToken) {
      // Asked for once, whichever form runs and however often (a batch that fails runs its exchanges each on
      // its own; a plan may be started again).
      const askOnce = refreshToken && once(refreshToken);
      const input = { conditions, token, now, refreshToken: askOnce };
      return executor.run(() => redeemCodePlan(db, conditions, token, now, askOnce), {
        autocommit: () => aloneInBatch(redeemCodeBatchFor(db), input),
        batch: batched(redeemCodeBatchFor(db), input),
      });
    },

    rotateRefreshToken(rotation, now) {
      const input = { rotation, now };
      // A refresh that narrows its scope reads the granted one first (rotateRefreshAutocommit); the others are
      // the batch statement, alone or with the refreshes of their turn.
      return executor.run(
        () => rotateRefreshPlan(db, rotation, now),
        rotation.narrowScope
          ? { autocommit: () => rotateRefreshAutocommit(db, rotation, now) }
          : { autocommit: () => aloneInBatch(rotateBatchFor(db), input), batch: batched(rotateBatchFor(db), input) },
      );
    },

    async findRefreshByHash(tokenHash) {
      const row = await db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row ? toRefreshToken(row) : null;
    },

    async forgetSuccessors(before) {
      const result = await db
        .updateTable('refresh_tokens')
        .set({ successor_encrypted: null })
        .where('rotated_at', '<', toEpochSeconds(before))
        .where('successor_encrypted', 'is not', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async findActiveWithUser(tokenHash, now) {
      const row = (await executor.read(findActiveTokenWithUser(db, { tokenHash, now: toEpochSeconds(now) }))).rows[0];
      if (!row) return null;
      return {
        token: toAccessToken(row),
        user: toUser({ ...row, created_at: row.user_created_at, updated_at: row.user_updated_at }),
      };
    },

    async findByHash(tokenHash) {
      const row = await db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row ? toAccessToken(row) : null;
    },

    async revokeAccessToken(tokenHash, clientId, now) {
      const result = await db
        .updateTable('access_tokens')
        .set({ revoked_at: toEpochSeconds(now) })
        .where('token_hash', '=', tokenHash)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async revokeByGrant(grantId, now) {
      const at = toEpochSeconds(now);
      // Refresh tokens first: once they are revoked no new access token can join the grant.
      const refresh = await db.updateTable('refresh_tokens').set({ revoked_at: at }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).executeTakeFirst();
      const access = await db.updateTable('access_tokens').set({ revoked_at: at }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(refresh.numUpdatedRows) + Number(access.numUpdatedRows);
    },

    async revokeByUserAndClient(userId, clientId, now) {
      const at = toEpochSeconds(now);
      const refresh = await db
        .updateTable('refresh_tokens')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const access = await db
        .updateTable('access_tokens')
        .set({ revoked_at: at })
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(refresh.numUpdatedRows) + Number(access.numUpdatedRows);
    },

    async revokeByUser(userId, now) {
      const at = toEpochSeconds(now);
      const refresh = await db.updateTable('refresh_tokens').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
      const access = await db.updateTable('access_tokens').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
      // A code approved a moment ago would otherwise still turn into fresh tokens: it expires now (consume needs expires_at > now).
      await db.updateTable('authorization_codes').set({ expires_at: at }).where('user_id', '=', userId).where('consumed_at', 'is', null).where('expires_at', '>', at).execute();
      return Number(refresh.numUpdatedRows) + Number(access.numUpdatedRows);
    },

    async countLiveGrants(clientId, now) {
      const at = toEpochSeconds(now);
      const live = db
        .selectFrom('access_tokens')
        .select('grant_id')
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', at)
        .union(
          db
            .selectFrom('refresh_tokens')
            .select('grant_id')
            .where('client_id', '=', clientId)
            .where('revoked_at', 'is', null)
            .where('rotated_at', 'is', null)
            .where('expires_at', '>', at)
            .where('grant_expires_at', '>', at),
        );
      // UNION (not UNION ALL) keeps each grant once, whichever tables it is live in.
      const row = await db.selectFrom(live.as('live')).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async deleteExpired(before, limit) {
      const cutoff = toEpochSeconds(before);
      const access = await deleteRows(db, 'access_tokens', 'token_hash', 'expires_at', (q) => q.where('expires_at', '<', cutoff), limit);
      const refresh = await deleteRows(
        db,
        'refresh_tokens',
        'token_hash',
        'expires_at',
        (q) => q.where((eb: any) => eb.or([eb('expires_at', '<', cutoff), eb('grant_expires_at', '<', cutoff)])),
        limit,
      );
      const service = await deleteExpiredServiceTokens(db, cutoff, limit);
      // Any table may still have a full batch left.
      return Math.max(access, refresh, service);
    },
  };
}
