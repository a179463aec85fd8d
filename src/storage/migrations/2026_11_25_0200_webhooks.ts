/**
 * Webhooks (issue 16 item 2; docs/protocol-decisions.md "Webhooks"): the endpoints an operator subscribed to
 * audit event types with `latch webhook create`, and one delivery row per event and endpoint.
 *
 * - webhooks: the signing secret is stored only encrypted under LATCH_SECRET (crypto/key-encryption.ts, its own
 *   HKDF info, the webhook id as associated data): Latch needs it back to sign, so it cannot be a hash. Event
 *   types are a JSON list (Storage conventions: lists as JSON text).
 * - webhook_deliveries: the delivery log and the queue in one table. A row is claimed for an attempt with one
 *   conditional update (claimed_until, claim_token), as back-channel logout deliveries are, so that two
 *   processes never send the same attempt; it stays after it was delivered or given up, as the log
 *   `latch webhook deliveries` shows, until the periodic cleanup removes finished rows. The payload is not
 *   copied: it is read from audit_events at each attempt (no foreign key there: events are never deleted while
 *   a delivery can still be attempted, and a finished row outlives its event harmlessly). Rows go with their
 *   webhook.
 *
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';
import { identityColumn } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', identityColumn(db))
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('audit_event_id', 'bigint', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    /** Attempts made so far. */
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** Null once delivered or given up: the row is only a log entry then. */
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('claimed_until', 'bigint')
    .addColumn('claim_token', 'text')
    .addColumn('last_attempt_at', 'bigint')
    /** The HTTP status of the last answer; null when there was none. */
    .addColumn('last_status', 'integer')
    /** Why the last attempt failed, in words (never a secret); null after a success. */
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'bigint')
    .addColumn('gave_up_at', 'bigint')
    .execute();
  // The workers' poll: due rows only.
  await db.schema.createIndex('webhook_deliveries_next_attempt_at').on('webhook_deliveries').column('next_attempt_at').execute();
  // The log of one webhook, newest first, and the cascade when it is deleted.
  await db.schema.createIndex('webhook_deliveries_webhook_id_id').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
