/**
 * Back-channel logout deliveries waiting for their next attempt (OIDC Back-Channel Logout 1.0 §2.5;
 * docs/protocol-decisions.md "Back-channel logout"): one row per ended session and client with a
 * backchannel_logout_uri, kept only until the logout token was accepted or the attempts ran out, so that a
 * delivery survives a restart. A process claims due rows for a while (claimed_until, claim_token) with one
 * conditional update, so that two processes never send the same attempt. No token is stored: each attempt
 * signs a fresh one. Rows go with their client. Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';
import { identityColumn } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('backchannel_logout_deliveries')
    .addColumn('id', 'integer', identityColumn(db))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    // The logout token's sub and sid; the session row is gone by now, so no reference to it.
    .addColumn('sub', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    /** Attempts made so far. */
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    /** Set by the process sending the next attempt; another may claim the row once it has passed (a crash). */
    .addColumn('claimed_until', 'bigint')
    .addColumn('claim_token', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('backchannel_logout_deliveries_next_attempt_at').on('backchannel_logout_deliveries').column('next_attempt_at').execute();
  // For the cascade when a client is deleted.
  await db.schema.createIndex('backchannel_logout_deliveries_client_id').on('backchannel_logout_deliveries').column('client_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backchannel_logout_deliveries').execute();
}
