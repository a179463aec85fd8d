/**
 * Every kind of client (issue 18; docs/protocol-decisions.md "Public clients and services"):
 * - `clients.token_endpoint_auth_method`: `client_secret_basic` (confidential: a secret, by Basic or in the
 *   body) or `none` (a public client: a single-page or mobile app, which cannot keep a secret; RFC 7591 §2,
 *   OAuth 2.1 §2.1);
 * - `clients.grant_types`: JSON list of the grants the client may use (RFC 7591 §2); existing clients keep
 *   the two they could use before;
 * - `clients.scope`: the space-separated scopes a service was registered for, the ceiling of its
 *   client_credentials tokens (RFC 6749 §4.4.2); empty by default;
 * - `service_tokens`: access tokens of the client_credentials grant, which have no user (RFC 6749 §4.4.3: no
 *   refresh token), kept apart from `access_tokens` so that the user-token paths (userinfo's join, grants,
 *   consents) stay as they are.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull().defaultTo('client_secret_basic')).execute();
  await db.schema.alterTable('clients').addColumn('grant_types', 'text', (c) => c.notNull().defaultTo('["authorization_code","refresh_token"]')).execute();
  await db.schema.alterTable('clients').addColumn('scope', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema
    .createTable('service_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  // The cleanup deletes by expiry; a client's deletion cascades by client_id.
  await db.schema.createIndex('service_tokens_expires_at').on('service_tokens').column('expires_at').execute();
  await db.schema.createIndex('service_tokens_client_id').on('service_tokens').column('client_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_tokens').execute();
  await db.schema.alterTable('clients').dropColumn('scope').execute();
  await db.schema.alterTable('clients').dropColumn('grant_types').execute();
  await db.schema.alterTable('clients').dropColumn('token_endpoint_auth_method').execute();
}
