/**
 * Dynamic Client Registration (RFC 7591, RFC 7592; issue 18 item 3; docs/protocol-decisions.md "Dynamic client
 * registration"): the hash of each dynamically registered client's registration access token (RFC 7592 §3: it
 * reads, changes and deletes the registration; only its hash is kept), and a flag marking clients that registered
 * themselves, for the console and the consent page. Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('registration_access_token_hash', 'text').execute();
  await db.schema.alterTable('clients').addColumn('registered_dynamically', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('registered_dynamically').execute();
  await db.schema.alterTable('clients').dropColumn('registration_access_token_hash').execute();
}
