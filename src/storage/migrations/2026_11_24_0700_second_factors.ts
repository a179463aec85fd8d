/**
 * Second factors (issue 17): an authenticator app per account (TOTP, RFC 6238) and its recovery codes.
 *
 * - totp_authenticators: one confirmed app per account. The shared secret is stored only encrypted under
 *   LATCH_SECRET (crypto/key-encryption.ts, its own HKDF info); last_used_step is the RFC 6238 time step of the
 *   last code accepted, so that a code is never accepted twice (RFC 6238 §5.2).
 * - recovery_codes: ten single-use codes per account, stored as keyed hashes (HMAC-SHA-256 under a key derived
 *   from LATCH_SECRET), never in clear.
 *
 * Frozen in time like every migration; portable column types only.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('totp_authenticators')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('last_used_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();

  await db.schema
    .createTable('recovery_codes')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('recovery_codes_pkey', ['user_id', 'code_hash'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['recovery_codes', 'totp_authenticators']) await db.schema.dropTable(table).execute();
}
