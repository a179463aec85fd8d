import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { DEFAULT_SIGNING_ALGORITHM, isSigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { Database, SigningKeyRow } from '../database.js';
import type { SigningKeyRecord, SigningKeyRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds, toNullableEpochSeconds } from './columns.js';

/**
 * The PostgreSQL advisory lock that serializes the creation of first keys (lockForCreation): the ASCII bytes of
 * "latchkey" as a bigint. Advisory lock keys are shared by the whole database, so it must differ from every other
 * lock taken there (Kysely's migration lock is 3853314791062309107).
 */
export const SIGNING_KEY_CREATION_LOCK_ID = 7809651199139603833n;

function toSigningKey(row: SigningKeyRow): SigningKeyRecord {
  return {
    kid: row.kid,
    alg: isSigningAlgorithm(row.alg) ? row.alg : DEFAULT_SIGNING_ALGORITHM,
    publicJwk: JSON.parse(row.public_jwk) as Record<string, unknown>,
    privateJwkEncrypted: row.private_jwk_encrypted,
    createdAt: fromEpochSeconds(row.created_at),
    activatesAt: fromEpochSeconds(row.activates_at),
    deactivatesAt: fromNullableEpochSeconds(row.deactivates_at),
    retiresAt: fromNullableEpochSeconds(row.retires_at),
  };
}

function toRow(key: SigningKeyRecord): SigningKeyRow {
  return {
    kid: key.kid,
    alg: key.alg,
    public_jwk: JSON.stringify(key.publicJwk),
    private_jwk_encrypted: key.privateJwkEncrypted,
    created_at: toEpochSeconds(key.createdAt),
    activates_at: toEpochSeconds(key.activatesAt),
    deactivates_at: toNullableEpochSeconds(key.deactivatesAt),
    retires_at: toNullableEpochSeconds(key.retiresAt),
  };
}

export function createSigningKeyRepository(db: Kysely<Database>): SigningKeyRepository {
  return {
    async listPublished(now) {
      const rows = await db
        .selectFrom('signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', toEpochSeconds(now))]))
        .orderBy('activates_at')
        .orderBy('kid')
        .execute();
      return rows.map(toSigningKey);
    },

    async listAll() {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('activates_at').orderBy('kid').execute();
      return rows.map(toSigningKey);
    },

    async insert(key) {
      await db.insertInto('signing_keys').values(toRow(key)).execute();
    },

    async lockForCreation() {
      if (db.getExecutor().adapter instanceof PostgresAdapter) {
        // Released at commit or rollback. A plain read would not do: under READ COMMITTED two transactions can both
        // find no key and both insert.
        await sql`select pg_advisory_xact_lock(${sql.lit(SIGNING_KEY_CREATION_LOCK_ID)})`.execute(db);
        return;
      }
      // SQLite: Storage.transaction begins deferred (Kysely's `begin`), and a transaction that has read cannot write
      // once another connection has committed (SQLITE_BUSY_SNAPSHOT). A write that matches no row takes the write
      // lock now, waiting for it as BEGIN IMMEDIATE would, and holds it until the transaction ends: no other
      // connection can write between this transaction's check and its insert.
      await sql`update signing_keys set kid = kid where 0`.execute(db);
    },

    async endOpenKeys(alg, deactivatesAt, retiresAt) {
      // Conditional update: only keys still open-ended are ended, so two rotations racing each other end each
      // predecessor once and never reopen a key.
      const ended = await db
        .updateTable('signing_keys')
        .set({ deactivates_at: toEpochSeconds(deactivatesAt), retires_at: toEpochSeconds(retiresAt) })
        .where('alg', '=', alg)
        .where('deactivates_at', 'is', null)
        .returning('kid')
        .execute();
      return ended.map((row) => row.kid);
    },

    async retireNow(kid, now) {
      const at = toEpochSeconds(now);
      const result = await db
        .updateTable('signing_keys')
        .set((eb) => ({
          // Keeps an earlier end of signing; otherwise signing ends now.
          deactivates_at: eb.case().when('deactivates_at', '<', at).then(eb.ref('deactivates_at')).else(at).end(),
          retires_at: at,
        }))
        .where('kid', '=', kid)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteRetired(before) {
      const result = await db.deleteFrom('signing_keys').where('retires_at', '<', toEpochSeconds(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
