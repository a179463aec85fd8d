/**
 * Resource indicators at the device authorization grant (RFC 8707 with RFC 8628; docs/protocol-decisions.md
 * "Resource indicators and JWT access tokens"): the APIs a device authorization request names with `resource`,
 * kept with the request until the person decides at /device, when they become the grant's (grant_resources).
 * Space-separated identifiers (a registered identifier is a canonical URI, which holds no space); empty for a
 * request that named none, as every request before this migration.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('device_authorizations')
    .addColumn('resources', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_authorizations').dropColumn('resources').execute();
}
