/**
 * Client ID Metadata Documents (issue 18 item 4; draft-ietf-oauth-client-id-metadata-document; docs/protocol-decisions.md
 * "Client ID Metadata Documents"): a client whose client_id is the https URL of its metadata document is kept as a
 * row of clients, so that codes, tokens, consents and logout find it like any other. `metadata_document_expires_at`
 * marks such rows (null for every other client) and says when the document is to be fetched again; `policy_url` and
 * `terms_url` are the document's `policy_uri` and `tos_uri`, shown on the consent page.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('metadata_document_expires_at', 'bigint').execute();
  await db.schema.alterTable('clients').addColumn('policy_url', 'text').execute();
  await db.schema.alterTable('clients').addColumn('terms_url', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('terms_url').execute();
  await db.schema.alterTable('clients').dropColumn('policy_url').execute();
  await db.schema.alterTable('clients').dropColumn('metadata_document_expires_at').execute();
}
