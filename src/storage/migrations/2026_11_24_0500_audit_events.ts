/**
 * The audit trail (issue 16 item 1; docs/protocol-decisions.md "Audit events"): one row per security-relevant
 * event (src/audit/event-types.ts), append-only, deleted only by the retention cleanup. Times are epoch
 * seconds; details are JSON text, never a secret.
 *
 * No foreign keys, on purpose: an event outlives what it names (a deleted client's `client.deleted`, an account
 * an administrator removes later), and inserting an event never waits on a parent row's lock.
 *
 * Indexes, each for one reader: created_at for the retention cleanup's batches and the unfiltered listing
 * (`latch events`); (user_id, created_at) for the account page's "Recent activity" and `--user`; (client_id,
 * created_at) for `--client`. Every event pays for three index entries, so no more than that. Frozen in time:
 * later changes are new migrations.
 */
import type { Kysely } from 'kysely';
import { identityColumn } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'integer', identityColumn(db))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('actor_user_id', 'integer')
    .addColumn('client_id', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text')
    .execute();
  await db.schema.createIndex('audit_events_created_at').on('audit_events').column('created_at').execute();
  await db.schema.createIndex('audit_events_user_id_created_at').on('audit_events').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('audit_events_client_id_created_at').on('audit_events').columns(['client_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
}
