/**
 * PostgreSQL: every committed change to a row that a per-process cache may hold announces itself, in its own
 * transaction, on the schema's invalidation channel (storage/postgres/notify-signal.ts, change-channel.ts). A NOTIFY
 * is delivered at commit or not at all, so a process that dies right after committing cannot leave its change
 * unannounced, and a change made with psql or another tool announces itself too. Not announced: writes in a session
 * that skips triggers (`session_replication_role = replica`); triggers disabled or dropped are noticed by the
 * signal, which then trusts nothing cached (README "Several processes"). The caches of cached-reads.ts hold users, clients, access tokens
 * (with their users), consents and browser sessions; only found rows are cached, so inserts need no announcement.
 *
 * What deliberately does not announce, because no cached answer can change by it and it runs on hot paths or in
 * cleanups: a client's first use (`first_used_at`), a consent's last use (`last_used_at`), and the deletion of an access
 * token or a browser session that had already expired (a cache hit checks expiry itself), or of a revoked token (its
 * revocation was announced). An access token is updated only when it is revoked.
 *
 * Every process hears every announcement, the writer's own too (notify-signal.ts says why), so the payload is empty.
 * The channel is derived from the table's schema the way change-channel.ts derives it, so that a schema copied or
 * renamed announces on its own channel. SQLite needs none of this: its writers bump a counter file
 * (sqlite/file-signal.ts). Frozen in time: later changes are new migrations.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect-helpers.js';

/** Each cached table with the condition under which a changed or deleted row is announced (none: always). */
const ANNOUNCED: ReadonlyArray<{ table: string; update?: string; delete?: string }> = [
  { table: 'users' },
  { table: 'clients', update: "(to_jsonb(old) - 'first_used_at') is distinct from (to_jsonb(new) - 'first_used_at')" },
  { table: 'access_tokens', delete: 'old.revoked_at is null and old.expires_at > extract(epoch from now())' },
  { table: 'consents', update: "(to_jsonb(old) - 'last_used_at') is distinct from (to_jsonb(new) - 'last_used_at')" },
  { table: 'browser_sessions', delete: 'old.expires_at > extract(epoch from now())' },
];

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  // Folded by PostgreSQL into one notification per transaction (same channel, same payload), however many rows.
  await sql`
    create function latch_announce_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('latch_changes_' || left(encode(sha256(convert_to(tg_table_schema, 'UTF8')), 'hex'), 16), '');
      return null;
    end
    $$`.execute(db);
  for (const { table, update, delete: deleted } of ANNOUNCED) {
    const when = (condition: string | undefined) => sql.raw(condition ? `when (${condition})` : '');
    await sql`create trigger ${sql.id(`${table}_announce_update`)} after update on ${sql.table(table)} for each row ${when(update)} execute function latch_announce_change()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_announce_delete`)} after delete on ${sql.table(table)} for each row ${when(deleted)} execute function latch_announce_change()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_announce_truncate`)} after truncate on ${sql.table(table)} for each statement execute function latch_announce_change()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const { table } of ANNOUNCED) {
    for (const event of ['update', 'delete', 'truncate']) await sql`drop trigger if exists ${sql.id(`${table}_announce_${event}`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists latch_announce_change()`.execute(db);
}
