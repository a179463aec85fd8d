/**
 * Resource servers (RFC 8707; issue 18 item 5; README "APIs (resource servers)"): the APIs an access token may be
 * issued for, registered with `latch resource create`, each with the scopes it defines; and the resources each
 * grant's authorization request named (RFC 8707 §2.1), which bound what its token requests may ask for (§2.2).
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resource_servers')
    // The resource indicator: an absolute URI without fragment (RFC 8707 §2), compared exactly.
    .addColumn('identifier', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // Space-separated scope tokens (RFC 6749 §3.3), in the order registered.
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('grant_resources')
    .addColumn('grant_id', 'text', (c) => c.notNull())
    // No foreign key: a resource deleted later simply stops being issued for (invalid_target), and the row says
    // what was asked for at the time.
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('grant_resources_pk', ['grant_id', 'resource'])
    .execute();
  // The cleanup reads the oldest first (repositories/resource-servers.ts deleteEndedGrantResources).
  await db.schema.createIndex('grant_resources_created_at').on('grant_resources').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('grant_resources').execute();
  await db.schema.dropTable('resource_servers').execute();
}
