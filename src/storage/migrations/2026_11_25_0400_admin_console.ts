/**
 * The admin console (issue 16 item 3; README "Admin console"):
 * - `users.is_admin`: 1 for an administrator (`latch user create --admin`, `latch admin grant`), who may open
 *   /admin; 0 for everyone else, existing accounts included.
 * - `users.disabled_at`: when an administrator disabled the account (epoch seconds), or null. A disabled account
 *   cannot sign in; its sessions and tokens were ended when it was disabled.
 * No new table: `latch db copy` copies the users table whole, these columns with it.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('disabled_at').execute();
  await db.schema.alterTable('users').dropColumn('is_admin').execute();
}
