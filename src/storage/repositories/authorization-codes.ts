import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { AuthorizationCodeRow, Database } from '../database.js';
import type { AuthorizationCode, AuthorizationCodeRepository, ConsumeConditions, NewAuthorizationCode } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { aloneInBatch, batched, type QueryExecutor, type WritePlan } from '../query-executor.js';
import { insertCodeBatchFor } from './authorization-codes-postgres.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';
import { deleteRows } from './batched-delete.js';

// The queries of the hot paths (authorize, token), compiled once (precompiled-query.ts).
const insertCode = precompileQuery(
  (
    db,
    p: Parameter<{
      codeHash: string;
      grantId: string;
      clientId: string;
      userId: number;
      redirectUri: string;
      scope: string;
      nonce: string | null;
      codeChallenge: string | null;
      authTime: number;
      sid: string | null;
      amr: string;
      acr: string | null;
      createdAt: number;
      expiresAt: number;
    }>,
  ) =>
    db.insertInto('authorization_codes').values({
      code_hash: p('codeHash'),
      grant_id: p('grantId'),
      client_id: p('clientId'),
      user_id: p('userId'),
      redirect_uri: p('redirectUri'),
      scope: p('scope'),
      nonce: p('nonce'),
      code_challenge: p('codeChallenge'),
      auth_time: p('authTime'),
      sid: p('sid'),
      amr: p('amr'),
      acr: p('acr'),
      created_at: p('createdAt'),
      expires_at: p('expiresAt'),
      consumed_at: null,
    }),
);

/**
 * The session signed in to the client: once per session and client, and only while the session exists (a
 * logout racing the authorization leaves nothing behind, and breaks no foreign key).
 */
const addSessionClient = precompileQuery((db, p: Parameter<{ sid: string; clientId: string; createdAt: number }>) =>
  db
    .insertInto('browser_session_clients')
    .columns(['sid', 'client_id', 'created_at'])
    .expression(
      db
        .selectFrom('browser_sessions')
        // Cast: PostgreSQL types a bare parameter in a select list as text.
        .select([sql<string>`cast(${p('sid')} as text)`.as('sid'), sql<string>`cast(${p('clientId')} as text)`.as('client_id'), sql<number>`cast(${p('createdAt')} as bigint)`.as('created_at')])
        .where('sid', '=', p('sid')),
    )
    .onConflict((conflict) => conflict.columns(['sid', 'client_id']).doNothing()),
);

/** Insert the code and record its session's client: both, or neither (query-executor.ts runs it). */
function* insertCodePlan(db: Kysely<Database>, code: NewAuthorizationCode): WritePlan<void> {
  const sid = code.sid ?? null;
  yield insertCode(db, {
    codeHash: code.codeHash,
    grantId: code.grantId,
    clientId: code.clientId,
    userId: code.userId,
    redirectUri: code.redirectUri,
    scope: toScopeText(code.scope),
    nonce: code.nonce,
    codeChallenge: code.codeChallenge,
    authTime: toEpochSeconds(code.authTime),
    sid,
    amr: toScopeText(code.amr ?? []),
    acr: code.acr ?? null,
    createdAt: toEpochSeconds(code.createdAt),
    expiresAt: toExpiryEpochSeconds(code.expiresAt),
  });
  if (sid !== null) yield addSessionClient(db, { sid, clientId: code.clientId, createdAt: toEpochSeconds(code.createdAt) });
}

type ConsumeValues = { codeHash: string; clientId: string; now: number; redirectUri: string; codeChallenge: string };
/** Which optional conditions a consume compares: redirect_uri sent or not; a PKCE challenge or none. */
interface ConsumeShape {
  compareRedirectUri: boolean;
  challenge: 'equal' | 'none';
}

/**
 * Single use as one conditional update: whoever flips consumed_at first gets the row; everyone else gets
 * nothing. No read-then-write, so two processes cannot both win. The token repository's redemption on
 * PostgreSQL (tokens-postgres.ts) makes the same conditions per exchange of a batch.
 */
function consumeUpdate(db: Kysely<Database>, p: Parameter<ConsumeValues>, { compareRedirectUri, challenge }: ConsumeShape) {
  let query = db
    .updateTable('authorization_codes')
    .set({ consumed_at: p('now') })
    .where('code_hash', '=', p('codeHash'))
    .where('client_id', '=', p('clientId'))
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', p('now'));
  if (compareRedirectUri) query = query.where('redirect_uri', '=', p('redirectUri'));
  return challenge === 'none' ? query.where('code_challenge', 'is', null) : query.where('code_challenge', '=', p('codeChallenge'));
}

/** One compiled form per combination of the optional conditions. */
function buildConsume(compareRedirectUri: boolean, challenge: 'equal' | 'none') {
  return precompileQuery((db, p: Parameter<ConsumeValues>) => consumeUpdate(db, p, { compareRedirectUri, challenge }).returningAll());
}
const consumeQueries = {
  withRedirectUri: { equal: buildConsume(true, 'equal'), none: buildConsume(true, 'none') },
  withoutRedirectUri: { equal: buildConsume(false, 'equal'), none: buildConsume(false, 'none') },
};

/** The values of a consume (a compiled form that does not compare redirect_uri or the challenge ignores those). */
function consumeValues(conditions: ConsumeConditions, now: Date): ConsumeValues {
  return {
    codeHash: conditions.codeHash,
    clientId: conditions.clientId,
    now: toEpochSeconds(now),
    redirectUri: conditions.redirectUri ?? '',
    codeChallenge: conditions.codeChallenge ?? '',
  };
}

function consumeQueryFor(conditions: ConsumeConditions) {
  const byRedirectUri = conditions.redirectUri === undefined ? consumeQueries.withoutRedirectUri : consumeQueries.withRedirectUri;
  return conditions.codeChallenge === null ? byRedirectUri.none : byRedirectUri.equal;
}

/**
 * The conditional update that consumes a code (see buildConsume), as one statement: for `consume` here, and
 * for the token repository's redemption, which runs it in the same transaction as the token's insert.
 */
export function consumeStatement(db: Kysely<Database>, conditions: ConsumeConditions, now: Date): CompiledQuery<AuthorizationCodeRow> {
  return consumeQueryFor(conditions)(db, consumeValues(conditions, now));
}

export function toAuthorizationCode(row: AuthorizationCodeRow): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    userId: Number(row.user_id),
    redirectUri: row.redirect_uri,
    scope: fromScopeText(row.scope),
    nonce: row.nonce,
    codeChallenge: row.code_challenge,
    authTime: fromEpochSeconds(row.auth_time),
    sid: row.sid,
    amr: fromScopeText(row.amr),
    acr: row.acr,
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    consumedAt: fromNullableEpochSeconds(row.consumed_at),
  };
}

export function createAuthorizationCodeRepository(db: Kysely<Database>, executor: QueryExecutor): AuthorizationCodeRepository {
  return {
    async insert(code) {
      // On PostgreSQL one statement for the codes of a turn instead of a transaction each (authorization-codes-postgres.ts).
      await executor.run(() => insertCodePlan(db, code), {
        autocommit: () => aloneInBatch(insertCodeBatchFor(db), code),
        batch: batched(insertCodeBatchFor(db), code),
      });
    },

    async consume(conditions, now) {
      const row = (await executor.write(consumeStatement(db, conditions, now))).rows[0];
      return row ? toAuthorizationCode(row) : null;
    },

    async findByHash(codeHash) {
      const row = await db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row ? toAuthorizationCode(row) : null;
    },

    deleteExpired(before, limit) {
      return deleteRows(db, 'authorization_codes', 'code_hash', 'expires_at', (q) => q.where('expires_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
