/**
 * When each app last used the access a person gave it (issue 14: "connected apps show when each app last used
 * its access"): the time, to the minute, the app last received tokens under the consent (a sign-in's code
 * exchange or a refresh). Null until then. Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('consents').addColumn('last_used_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('consents').dropColumn('last_used_at').execute();
}
