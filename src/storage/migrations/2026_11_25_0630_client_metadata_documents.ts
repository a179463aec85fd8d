/**
 * Client ID Metadata Documents (issue 18 item 4; draft-ietf-oauth-client-id-metadata-document; docs/protocol-decisions.md
 * "Client ID Metadata Documents"): a client whose client_id is the https URL of its metadata document is kept as a
 * row of clients, so that codes, tokens, consents and logout find it like any other. `metadata_document_expires_at`
 * marks such rows (null for every other client) and says when the document is to be fetched again; `policy_url` and
 * `terms_url` are the document's `policy_uri` and `tos_uri`, shown on the consent page. Rows that nobody allowed are
 * removed by the periodic cleanup a day after their document expired, through a partial index of such rows.
 * Frozen in time: later changes are new migrations.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('metadata_document_expires_at', 'bigint').execute();
  await db.schema.alterTable('clients').addColumn('policy_url', 'text').execute();
  await db.schema.alterTable('clients').addColumn('terms_url', 'text').execute();
  // The cleanup of rows from documents nobody allowed reads this partial index: only such clients are in it.
  await db.schema
    .createIndex('clients_metadata_documents')
    .on('clients')
    .column('metadata_document_expires_at')
    .where(sql.ref('metadata_document_expires_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('clients_metadata_documents').execute();
  await db.schema.alterTable('clients').dropColumn('terms_url').execute();
  await db.schema.alterTable('clients').dropColumn('policy_url').execute();
  await db.schema.alterTable('clients').dropColumn('metadata_document_expires_at').execute();
}
