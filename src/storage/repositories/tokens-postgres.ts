/**
 * The token repository's PostgreSQL forms (tokens.ts runs them through postgres/postgres-executor.ts): where
 * each statement is a round trip and a transaction two more, the plans of tokens.ts also exist as statements
 * atomic on their own (data-modifying CTEs, `RunOptions.autocommit`), and the code exchanges and refreshes of
 * one turn as one statement for all of them (`RunOptions.batch`; docs/protocol-decisions.md "Storage
 * conventions"). Each answers exactly as the plan it stands for.
 */
import { sql, type Kysely, type QueryResult } from 'kysely';
import type { AuthorizationCodeRow, Database, RefreshTokenRow } from '../database.js';
import type { AuthorizationCode, ConsumeConditions, IssuedRefreshToken, RedeemedAccessToken, RefreshRotation, RefreshToken } from '../storage.js';
import { fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { batchKindPerDatabase, type BatchKind, type WritePlan } from '../query-executor.js';
import { toAuthorizationCode } from './authorization-codes.js';
import { toRefreshToken } from './refresh-token-row.js';

/**
 * The scope a live refresh token was granted (the first step of the rotation's PostgreSQL form): live by the same
 * conditions as the rotation's update (tokens.ts rotateRefresh). A spent, revoked or expired token is no row, so the
 * grant's checks that follow (reuse detection above all) see it as the plan does; found regardless, its scope was
 * narrowed first, and a junk or wider `scope` with a rotated token was invalid_scope instead of reuse, which then
 * revoked nothing (on PostgreSQL only).
 */
const findRefreshScope = precompileQuery((db, p: Parameter<{ tokenHash: string; clientId: string; now: number }>) =>
  db
    .selectFrom('refresh_tokens')
    .select('scope')
    .where('token_hash', '=', p('tokenHash'))
    .where('client_id', '=', p('clientId'))
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', p('now'))
    .where('grant_expires_at', '>', p('now')),
);

/**
 * The rotation as one statement, for PostgreSQL: the same conditional update as tokens.ts rotateRefresh (and the scope
 * read just before, which never changes), the successor and the access token inserted from the row it
 * returns. Two rotations of one token race on the update; the loser's inserts see no row.
 */
const rotateRefreshStatement = precompileQuery(
  (
    db,
    p: Parameter<{
      tokenHash: string;
      clientId: string;
      now: number;
      successorEncrypted: string;
      grantedScope: string;
      successorHash: string;
      successorExpiresAt: number;
      accessTokenHash: string;
      accessScope: string;
      accessCreatedAt: number;
      accessExpiresAt: number;
    }>,
  ) =>
    db
      .with('rotated', (qc) =>
        qc
          .updateTable('refresh_tokens')
          .set({ rotated_at: p('now'), successor_encrypted: p('successorEncrypted') })
          .where('token_hash', '=', p('tokenHash'))
          .where('client_id', '=', p('clientId'))
          .where('rotated_at', 'is', null)
          .where('revoked_at', 'is', null)
          .where('expires_at', '>', p('now'))
          .where('grant_expires_at', '>', p('now'))
          .where('scope', '=', p('grantedScope'))
          .returningAll(),
      )
      .with('successor', (qc) =>
        qc
          .insertInto('refresh_tokens')
          .columns(['token_hash', 'grant_id', 'client_id', 'user_id', 'scope', 'auth_time', 'sid', 'amr', 'acr', 'created_at', 'expires_at', 'grant_expires_at'])
          .expression(
            qc
              .selectFrom('rotated')
              // Casts: PostgreSQL types a bare parameter in a select list as text.
              .select([
                sql<string>`cast(${p('successorHash')} as text)`.as('token_hash'),
                'grant_id',
                'client_id',
                'user_id',
                'scope',
                'auth_time',
                // The session the grant was approved in: id_tokens from every refresh carry its sid, amr and acr.
                'sid',
                'amr',
                'acr',
                sql<number>`cast(${p('now')} as bigint)`.as('created_at'),
                // Idle expiry from now, never past the grant's absolute one.
                sql<number>`least(cast(${p('successorExpiresAt')} as bigint), grant_expires_at)`.as('expires_at'),
                'grant_expires_at',
              ]),
          ),
      )
      .with('access', (qc) =>
        qc
          .insertInto('access_tokens')
          .columns(['token_hash', 'client_id', 'user_id', 'scope', 'grant_id', 'created_at', 'expires_at'])
          .expression(
            qc
              .selectFrom('rotated')
              .select([
                sql<string>`cast(${p('accessTokenHash')} as text)`.as('token_hash'),
                'client_id',
                'user_id',
                sql<string>`cast(${p('accessScope')} as text)`.as('scope'),
                'grant_id',
                sql<number>`cast(${p('accessCreatedAt')} as bigint)`.as('created_at'),
                sql<number>`cast(${p('accessExpiresAt')} as bigint)`.as('expires_at'),
              ]),
          ),
      )
      .selectFrom('rotated')
      .selectAll(),
);

/**
 * tokens.ts rotateRefreshPlan for a refresh that narrows its scope (`scope` asked), in two statements each atomic
 * on their own (query-executor.ts RunOptions, PostgreSQL): read the granted scope and narrow it (a refusal writes
 * nothing, as in the plan), then rotate and insert in one statement, which also checks that scope. A refresh
 * that keeps its whole scope runs the batch statement instead, alone or with the others of its turn.
 */
export function* rotateRefreshAutocommit(db: Kysely<Database>, rotation: RefreshRotation, now: Date): WritePlan<{ rotated: RefreshToken; scope: string[] } | null> {
  const at = toEpochSeconds(now);
  const found = ((yield findRefreshScope(db, { tokenHash: rotation.tokenHash, clientId: rotation.clientId, now: at })) as QueryResult<{ scope: string }>).rows[0];
  if (!found) return null;
  const granted = fromScopeText(found.scope);
  const scope = rotation.narrowScope ? rotation.narrowScope(granted) : granted;
  const row = (
    (yield rotateRefreshStatement(db, {
      tokenHash: rotation.tokenHash,
      clientId: rotation.clientId,
      now: at,
      successorEncrypted: rotation.successor.encrypted,
      grantedScope: found.scope,
      successorHash: rotation.successor.tokenHash,
      successorExpiresAt: toExpiryEpochSeconds(new Date(now.getTime() + rotation.successor.idleSeconds * 1000)),
      accessTokenHash: rotation.accessToken.tokenHash,
      accessScope: toScopeText(scope),
      accessCreatedAt: toEpochSeconds(rotation.accessToken.createdAt),
      accessExpiresAt: toExpiryEpochSeconds(rotation.accessToken.expiresAt),
    })) as QueryResult<RefreshTokenRow>
  ).rows[0];
  if (!row) return null;
  return { rotated: { ...toRefreshToken(row), rotatedAt: now, successorEncrypted: rotation.successor.encrypted }, scope };
}

/** One code exchange of a batch (redeemCodeBatch): its conditions, its tokens' values, and its refresh token once asked for. */
export interface RedeemInput {
  conditions: ConsumeConditions;
  token: RedeemedAccessToken;
  now: Date;
  /** The caller's refresh token, asked for at most once (the lone form asks for it only when the code has offline_access). */
  refreshToken: (() => IssuedRefreshToken) | undefined;
}

type BatchRedeemValues = {
  codeHashes: string[];
  clientIds: string[];
  redirectUris: Array<string | null>;
  codeChallenges: Array<string | null>;
  nows: number[];
  tokenHashes: string[];
  tokenCreatedAts: number[];
  tokenExpiresAts: number[];
  refreshHashes: Array<string | null>;
  refreshExpiresAts: Array<number | null>;
  grantExpiresAts: Array<number | null>;
};

/**
 * The code exchanges of one turn as one statement, for PostgreSQL (postgres-executor.ts batches): every
 * exchange's values as arrays, numbered (`with ordinality`); the conditional consume of authorization-codes.ts
 * consumeStatement, joined on the code, with redirect_uri compared when the request sent one and the challenge equal
 * (both null without PKCE: `is not distinct from`); then the access tokens, and the refresh tokens of the codes
 * with offline_access, inserted from the rows it consumed. One statement is atomic: all of it or none. Two
 * exchanges of one code in one batch join the same row, which an UPDATE changes once: one wins, as in a race
 * between two statements, and the other is answered as a replay.
 */
const redeemBatchStatement = precompileQuery((db, p: Parameter<BatchRedeemValues>) => ({
  compile: () =>
    sql<AuthorizationCodeRow & { position: string }>`
      with input as (
        select * from unnest(
          cast(${p('codeHashes')} as text[]), cast(${p('clientIds')} as text[]), cast(${p('redirectUris')} as text[]),
          cast(${p('codeChallenges')} as text[]), cast(${p('nows')} as bigint[]), cast(${p('tokenHashes')} as text[]),
          cast(${p('tokenCreatedAts')} as bigint[]), cast(${p('tokenExpiresAts')} as bigint[]), cast(${p('refreshHashes')} as text[]),
          cast(${p('refreshExpiresAts')} as bigint[]), cast(${p('grantExpiresAts')} as bigint[])
        ) with ordinality as i(code_hash, client_id, redirect_uri, code_challenge, now, token_hash, token_created_at,
          token_expires_at, refresh_hash, refresh_expires_at, grant_expires_at, position)
      ),
      consumed as (
        update authorization_codes as c set consumed_at = i.now
        from input as i
        where c.code_hash = i.code_hash and c.client_id = i.client_id and c.consumed_at is null and c.expires_at > i.now
          and (i.redirect_uri is null or c.redirect_uri = i.redirect_uri)
          and c.code_challenge is not distinct from i.code_challenge
        returning c.*, i.position, i.now as redeemed_at, i.token_hash as new_token_hash, i.token_created_at, i.token_expires_at,
          i.refresh_hash, i.refresh_expires_at, i.grant_expires_at as new_grant_expires_at
      ),
      access as (
        insert into access_tokens (token_hash, client_id, user_id, scope, grant_id, created_at, expires_at)
        select new_token_hash, client_id, user_id, scope, grant_id, token_created_at, token_expires_at from consumed
      ),
      refresh as (
        insert into refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, sid, amr, acr, created_at, expires_at, grant_expires_at)
        select refresh_hash, grant_id, client_id, user_id, scope, auth_time, sid, amr, acr, redeemed_at, refresh_expires_at, new_grant_expires_at
        from consumed
        where refresh_hash is not null and (' ' || scope || ' ') like '% offline_access %'
      )
      select code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, created_at, expires_at,
        consumed_at, sid, amr, acr, position
      from consumed`.compile(db),
}));

/** The batch kind of one database (postgres-executor.ts batches the writes of one kind together). */
export const redeemCodeBatchFor = batchKindPerDatabase((db) => redeemCodeBatch(db));

const redeemCodeBatch = (db: Kysely<Database>): BatchKind<RedeemInput, AuthorizationCode | null> => ({
  statement(inputs) {
    // The refresh token is asked for up front here, whatever the code's scope; it is stored only with a code
    // that has offline_access, and the grant hands it out only then (authorization-code.ts).
    const refreshes = inputs.map((input) => input.refreshToken?.() ?? null);
    return redeemBatchStatement(db, {
      codeHashes: inputs.map((input) => input.conditions.codeHash),
      clientIds: inputs.map((input) => input.conditions.clientId),
      redirectUris: inputs.map((input) => input.conditions.redirectUri ?? null),
      codeChallenges: inputs.map((input) => input.conditions.codeChallenge),
      nows: inputs.map((input) => toEpochSeconds(input.now)),
      tokenHashes: inputs.map((input) => input.token.tokenHash),
      tokenCreatedAts: inputs.map((input) => toEpochSeconds(input.token.createdAt)),
      tokenExpiresAts: inputs.map((input) => toExpiryEpochSeconds(input.token.expiresAt)),
      refreshHashes: refreshes.map((refresh) => refresh?.tokenHash ?? null),
      refreshExpiresAts: refreshes.map((refresh) => (refresh ? toExpiryEpochSeconds(refresh.expiresAt) : null)),
      grantExpiresAts: refreshes.map((refresh) => (refresh ? toExpiryEpochSeconds(refresh.grantExpiresAt) : null)),
    });
  },
  results(inputs, result) {
    const redeemed: Array<AuthorizationCode | null> = inputs.map(() => null);
    for (const row of result.rows as Array<AuthorizationCodeRow & { position: string | number }>) {
      const { position, ...code } = row;
      redeemed[Number(position) - 1] = toAuthorizationCode(code);
    }
    return redeemed;
  },
});

type BatchRotateValues = {
  tokenHashes: string[];
  clientIds: string[];
  nows: number[];
  successorsEncrypted: string[];
  successorHashes: string[];
  successorExpiresAts: number[];
  accessTokenHashes: string[];
  accessCreatedAts: number[];
  accessExpiresAts: number[];
};

/**
 * The refreshes of one turn that keep their whole granted scope (no `scope` asked) as one statement, for
 * PostgreSQL (postgres-executor.ts batches): the same conditional update as rotateRefreshStatement, joined on
 * the presented token, then each rotated token's successor and access token inserted from its row. Two
 * refreshes of one token in one batch join the same row, which an UPDATE changes once: one rotates, and the
 * other is answered as a retry or a reuse, as after a race between two statements.
 */
const rotateBatchStatement = precompileQuery((db, p: Parameter<BatchRotateValues>) => ({
  compile: () =>
    sql<RefreshTokenRow & { position: string }>`
      with input as (
        select * from unnest(
          cast(${p('tokenHashes')} as text[]), cast(${p('clientIds')} as text[]), cast(${p('nows')} as bigint[]),
          cast(${p('successorsEncrypted')} as text[]), cast(${p('successorHashes')} as text[]), cast(${p('successorExpiresAts')} as bigint[]),
          cast(${p('accessTokenHashes')} as text[]), cast(${p('accessCreatedAts')} as bigint[]), cast(${p('accessExpiresAts')} as bigint[])
        ) with ordinality as i(token_hash, client_id, now, successor_encrypted, successor_hash, successor_expires_at, access_token_hash,
          access_created_at, access_expires_at, position)
      ),
      rotated as (
        update refresh_tokens as r set rotated_at = i.now, successor_encrypted = i.successor_encrypted
        from input as i
        where r.token_hash = i.token_hash and r.client_id = i.client_id and r.rotated_at is null and r.revoked_at is null
          and r.expires_at > i.now and r.grant_expires_at > i.now
        returning r.*, i.position, i.now as rotated_now, i.successor_hash, i.successor_expires_at, i.access_token_hash,
          i.access_created_at, i.access_expires_at
      ),
      successor as (
        insert into refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, sid, amr, acr, created_at, expires_at, grant_expires_at)
        select successor_hash, grant_id, client_id, user_id, scope, auth_time, sid, amr, acr, rotated_now,
          least(successor_expires_at, grant_expires_at), grant_expires_at
        from rotated
      ),
      access as (
        insert into access_tokens (token_hash, client_id, user_id, scope, grant_id, created_at, expires_at)
        select access_token_hash, client_id, user_id, scope, grant_id, access_created_at, access_expires_at from rotated
      )
      select token_hash, grant_id, client_id, user_id, scope, auth_time, created_at, expires_at, grant_expires_at, rotated_at,
        successor_encrypted, revoked_at, sid, amr, acr, position
      from rotated`.compile(db),
}));

type RotateInput = { rotation: RefreshRotation; now: Date };
type Rotated = { rotated: RefreshToken; scope: string[] } | null;

export const rotateBatchFor = batchKindPerDatabase<RotateInput, Rotated>((db) => ({
  statement: (inputs) =>
    rotateBatchStatement(db, {
      tokenHashes: inputs.map(({ rotation }) => rotation.tokenHash),
      clientIds: inputs.map(({ rotation }) => rotation.clientId),
      nows: inputs.map(({ now }) => toEpochSeconds(now)),
      successorsEncrypted: inputs.map(({ rotation }) => rotation.successor.encrypted),
      successorHashes: inputs.map(({ rotation }) => rotation.successor.tokenHash),
      successorExpiresAts: inputs.map(({ rotation, now }) => toExpiryEpochSeconds(new Date(now.getTime() + rotation.successor.idleSeconds * 1000))),
      accessTokenHashes: inputs.map(({ rotation }) => rotation.accessToken.tokenHash),
      accessCreatedAts: inputs.map(({ rotation }) => toEpochSeconds(rotation.accessToken.createdAt)),
      accessExpiresAts: inputs.map(({ rotation }) => toExpiryEpochSeconds(rotation.accessToken.expiresAt)),
    }),
  results(inputs, result) {
    const rotated: Rotated[] = inputs.map(() => null);
    for (const { position, ...row } of result.rows as Array<RefreshTokenRow & { position: string | number }>) {
      const index = Number(position) - 1;
      const { rotation, now } = inputs[index]!;
      const token = toRefreshToken(row);
      // As the lone forms answer: the rotation's own time and successor.
      rotated[index] = { rotated: { ...token, rotatedAt: now, successorEncrypted: rotation.successor.encrypted }, scope: token.scope };
    }
    return rotated;
  },
}));
