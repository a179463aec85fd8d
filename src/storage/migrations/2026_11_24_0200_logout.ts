/**
 * Logout (OIDC RP-Initiated Logout 1.0, Back-Channel Logout 1.0; docs/protocol-decisions.md "Logout"):
 * - browser_sessions.sid: the session's public id, sent as `sid` in id_tokens (Back-Channel Logout §2.3). Random,
 *   unrelated to the cookie value and its hash. Sessions that exist already get a random one here.
 * - browser_session_clients: the clients a code was issued to in each session, so that a logout knows which
 *   apps to tell. Its rows go with their session (cascade) and with their client.
 * - authorization_codes.sid and refresh_tokens.sid: the session a grant was approved in, so that id_tokens
 *   from the code and from every refresh carry it (null for grants from before this migration).
 * - clients.post_logout_redirect_uris (JSON list, exact match; RP-Initiated Logout §3.1) and
 *   clients.backchannel_logout_uri (Back-Channel Logout §2.2).
 * Frozen in time: later changes are new migrations, never edits here.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // NOT NULL needs a default for the rows already there; SQLite cannot drop it afterwards, PostgreSQL does.
  await db.schema.alterTable('browser_sessions').addColumn('sid', 'text', (c) => c.notNull().defaultTo('')).execute();
  if (isPostgres(db)) {
    await sql`update browser_sessions set sid = replace(gen_random_uuid()::text, '-', '')`.execute(db);
    await sql`alter table browser_sessions alter column sid drop default`.execute(db);
  } else {
    await sql`update browser_sessions set sid = lower(hex(randomblob(16)))`.execute(db);
  }
  await db.schema.createIndex('browser_sessions_sid').on('browser_sessions').column('sid').unique().execute();

  await db.schema
    .createTable('browser_session_clients')
    .addColumn('sid', 'text', (c) => c.notNull().references('browser_sessions.sid').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('browser_session_clients_pkey', ['sid', 'client_id'])
    .execute();
  // For the cascade when a client is deleted.
  await db.schema.createIndex('browser_session_clients_client_id').on('browser_session_clients').column('client_id').execute();

  await db.schema.alterTable('authorization_codes').addColumn('sid', 'text').execute();
  await db.schema.alterTable('refresh_tokens').addColumn('sid', 'text').execute();

  await db.schema.alterTable('clients').addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('clients').addColumn('backchannel_logout_uri', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('backchannel_logout_uri').execute();
  await db.schema.alterTable('clients').dropColumn('post_logout_redirect_uris').execute();
  await db.schema.alterTable('refresh_tokens').dropColumn('sid').execute();
  await db.schema.alterTable('authorization_codes').dropColumn('sid').execute();
  await db.schema.dropTable('browser_session_clients').execute();
  await db.schema.dropIndex('browser_sessions_sid').execute();
  await db.schema.alterTable('browser_sessions').dropColumn('sid').execute();
}
