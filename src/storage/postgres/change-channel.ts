/**
 * Where a PostgreSQL schema's changes are announced (postgres/notify-signal.ts): its own channel, so that deployments
 * (and test schemas) sharing one database do not disturb each other, and the triggers that announce them (migration
 * 2026_11_27_2300_change_notifications). Apart from notify-signal.ts so that migrations can announce too without
 * loading the driver.
 */
import { createHash } from 'node:crypto';

/**
 * The channel of the schema Latch's tables are in: an identifier of PostgreSQL's 63 bytes at most, whatever the schema
 * is called. The triggers compute the same name in SQL from their table's schema, so this must be given the schema
 * the tables are really in (`current_schema()` of Latch's connections), not a setting that may be unset.
 */
export function channelFor(schema: string): string {
  return `latch_changes_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/**
 * The announcing triggers of a schema's cached tables that are enabled: the migration creates 15 (users, clients,
 * access_tokens, consents and browser_sessions, each on update, delete and truncate). Fewer (a schema not migrated
 * yet, a trigger disabled or dropped) means changes can go unannounced, and nothing cached may be trusted.
 */
export const ANNOUNCING_TRIGGERS = 15;

/** The statement counting them, for the schema named by the parameter `schemaParameter` ("$1", …). */
export function enabledTriggersSql(schemaParameter: string): string {
  return `select count(*)::int as enabled
    from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    join pg_proc p on p.oid = t.tgfoid
    where c.relnamespace = (select oid from pg_namespace where nspname = ${schemaParameter})
      and p.proname = 'latch_announce_change' and t.tgenabled in ('O', 'A')`;
}
