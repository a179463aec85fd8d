/**
 * Passkeys (issue 17, WebAuthn Level 3): one row per credential an account registered. The public key only
 * (nothing secret), the signature counter (a counter that goes backwards is refused when both are above zero;
 * synced passkeys report 0 forever), the backup flags (BE/BS: device-bound or synced), the transports the
 * browser reported, a name the person chose, and when it was added and last used.
 *
 * Frozen in time like every migration; portable column types only.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    // The credential id (base64url), as the authenticator gave it: unique across every account.
    .addColumn('credential_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('aaguid', 'text', (c) => c.notNull())
    .addColumn('backup_eligible', 'integer', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('passkeys_user_id').on('passkeys').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkeys').execute();
}
