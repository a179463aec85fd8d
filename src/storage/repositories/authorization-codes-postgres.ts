/**
 * The authorization code repository's PostgreSQL form (authorization-codes.ts runs it through
 * postgres/postgres-executor.ts), as tokens-postgres.ts is the token repository's: the plan that inserts a code
 * and records its session's client is, on PostgreSQL, BEGIN, two inserts and COMMIT, four round trips and a
 * transaction for every authorization. Here the codes of one turn are one statement for all of them (a
 * data-modifying CTE, atomic on its own: `RunOptions.batch`, and alone as `RunOptions.autocommit`), answering
 * exactly as the plan does.
 */
import { sql } from 'kysely';
import type { NewAuthorizationCode } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { batchKindPerDatabase } from '../query-executor.js';
import { toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';

type BatchInsertValues = {
  codeHashes: string[];
  grantIds: string[];
  clientIds: string[];
  userIds: number[];
  redirectUris: string[];
  scopes: string[];
  nonces: Array<string | null>;
  codeChallenges: Array<string | null>;
  authTimes: number[];
  sids: Array<string | null>;
  amrs: string[];
  acrs: Array<string | null>;
  createdAts: number[];
  expiresAts: number[];
};

/**
 * The codes of one turn as one statement: every code's values as arrays (`unnest`), inserted; then, for each
 * code issued in a session that still exists, that session's client (browser_session_clients), once per
 * session and client, as authorization-codes.ts addSessionClient does one at a time. One statement is atomic: a
 * code that cannot be stored (its client or user deleted meanwhile) fails the statement, and the executor then
 * runs each code of the batch alone, so that only that one fails.
 */
const insertBatchStatement = precompileQuery((db, p: Parameter<BatchInsertValues>) => ({
  compile: () =>
    sql<Record<string, never>>`
      with inserted as (
        insert into authorization_codes (code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge,
          auth_time, sid, amr, acr, created_at, expires_at, consumed_at)
        select code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, sid, amr, acr,
          created_at, expires_at, null
        from unnest(
          cast(${p('codeHashes')} as text[]), cast(${p('grantIds')} as text[]), cast(${p('clientIds')} as text[]),
          cast(${p('userIds')} as integer[]), cast(${p('redirectUris')} as text[]), cast(${p('scopes')} as text[]),
          cast(${p('nonces')} as text[]), cast(${p('codeChallenges')} as text[]), cast(${p('authTimes')} as bigint[]),
          cast(${p('sids')} as text[]), cast(${p('amrs')} as text[]), cast(${p('acrs')} as text[]),
          cast(${p('createdAts')} as bigint[]), cast(${p('expiresAts')} as bigint[])
        ) as i(code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, sid, amr, acr,
          created_at, expires_at)
        returning sid, client_id, created_at
      )
      insert into browser_session_clients (sid, client_id, created_at)
      select distinct on (inserted.sid, inserted.client_id) inserted.sid, inserted.client_id, inserted.created_at
      from inserted join browser_sessions as s on s.sid = inserted.sid
      on conflict (sid, client_id) do nothing`.compile(db),
}));

/** The batch kind of one database (postgres-executor.ts batches the writes of one kind together). */
export const insertCodeBatchFor = batchKindPerDatabase<NewAuthorizationCode, void>((db) => ({
  statement: (codes) =>
    insertBatchStatement(db, {
      codeHashes: codes.map((code) => code.codeHash),
      grantIds: codes.map((code) => code.grantId),
      clientIds: codes.map((code) => code.clientId),
      userIds: codes.map((code) => code.userId),
      redirectUris: codes.map((code) => code.redirectUri),
      scopes: codes.map((code) => toScopeText(code.scope)),
      nonces: codes.map((code) => code.nonce),
      codeChallenges: codes.map((code) => code.codeChallenge),
      authTimes: codes.map((code) => toEpochSeconds(code.authTime)),
      sids: codes.map((code) => code.sid ?? null),
      amrs: codes.map((code) => toScopeText(code.amr ?? [])),
      acrs: codes.map((code) => code.acr ?? null),
      createdAts: codes.map((code) => toEpochSeconds(code.createdAt)),
      expiresAts: codes.map((code) => toExpiryEpochSeconds(code.expiresAt)),
    }),
  // Nothing to answer: the statement either stored every code or failed.
  results: (codes) => codes.map(() => undefined),
}));
