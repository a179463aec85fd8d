/**
 * Refresh-token lifetimes per client (issue 14 item 2; docs/protocol-decisions.md "Refresh tokens"): an idle
 * and an absolute lifetime in seconds that override LATCH_REFRESH_TOKEN_IDLE_SECONDS and
 * LATCH_REFRESH_TOKEN_MAX_SECONDS for one client; null keeps the deployment's. Frozen in time: later changes
 * are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('refresh_token_idle_seconds', 'integer').execute();
  await db.schema.alterTable('clients').addColumn('refresh_token_max_seconds', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('refresh_token_max_seconds').execute();
  await db.schema.alterTable('clients').dropColumn('refresh_token_idle_seconds').execute();
}
