/**
 * Device authorization requests (RFC 8628; issue 18 item 6): one row per POST /oauth2/device_authorization,
 * keyed by the hash of its device_code, with the keyed hash of its user_code (never either value), the client
 * and scope asked for, the polling interval (raised by slow_down, §3.5), the last poll, and the person's decision.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_authorizations')
    .addColumn('device_code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    // Milliseconds: a poll interval of a few seconds is compared at finer grain than the other times' seconds.
    .addColumn('last_polled_at_ms', 'bigint')
    // pending, approved or denied.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('decided_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_authorizations_expires_at').on('device_authorizations').column('expires_at').execute();
  await db.schema.createIndex('device_authorizations_client_id').on('device_authorizations').column('client_id').execute();
  await db.schema.createIndex('device_authorizations_user_id').on('device_authorizations').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_authorizations').execute();
}
