/**
 * Refresh tokens (RFC 6749 §6, §10.4; RFC 9700 §4.14.2; docs/protocol-decisions.md "Refresh tokens"): only
 * hashes, bound to client, user, grant and scope. A token is rotated once (rotated_at); the successor issued
 * then is kept encrypted under LATCH_SECRET for the reuse grace window only, so that a retry of the old token
 * gets the same answer instead of forking the grant. Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    /** The sign-in the grant started from: the auth_time of every id_token refreshed from it (OIDC Core §12.2). */
    .addColumn('auth_time', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    /** Idle expiry: this token unused until then is dead. */
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    /** Absolute expiry of the grant's refreshes, carried from token to token. */
    .addColumn('grant_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('rotated_at', 'bigint')
    .addColumn('successor_encrypted', 'text')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('refresh_tokens_grant_id').on('refresh_tokens').column('grant_id').execute();
  await db.schema.createIndex('refresh_tokens_user_client').on('refresh_tokens').columns(['user_id', 'client_id']).execute();
  await db.schema.createIndex('refresh_tokens_expires_at').on('refresh_tokens').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('refresh_tokens').execute();
}
