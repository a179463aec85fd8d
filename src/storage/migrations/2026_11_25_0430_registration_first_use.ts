/**
 * Unused self-registered clients (issue 18 item 3; docs/protocol-decisions.md "Dynamic client registration"): when a
 * dynamically registered client first had a successful token exchange. A client that never has, within
 * LATCH_REGISTRATION_UNUSED_SECONDS of registering, is removed by the periodic cleanup, found through a partial
 * index that holds only such clients (so that it stays small however many clients are in use).
 *
 * Clients registered before this migration that were used by the earlier rule (a consent, code or token of theirs
 * exists) are marked used at their registration time, so that none is removed by the change of rule.
 * Frozen in time: later changes are new migrations.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('first_used_at', 'bigint').execute();
  await sql`update clients set first_used_at = created_at
    where registered_dynamically = 1 and (
      exists (select 1 from consents where consents.client_id = clients.client_id)
      or exists (select 1 from authorization_codes where authorization_codes.client_id = clients.client_id)
      or exists (select 1 from access_tokens where access_tokens.client_id = clients.client_id)
      or exists (select 1 from refresh_tokens where refresh_tokens.client_id = clients.client_id)
      or exists (select 1 from service_tokens where service_tokens.client_id = clients.client_id))`.execute(db);
  await db.schema
    .createIndex('clients_unused_registrations')
    .on('clients')
    .column('created_at')
    .where(sql.ref('registered_dynamically'), '=', 1)
    .where(sql.ref('first_used_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('clients_unused_registrations').execute();
  await db.schema.alterTable('clients').dropColumn('first_used_at').execute();
}
