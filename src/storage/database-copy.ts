/**
 * `latch db copy`: moves every row of a Latch database to another one (SQLite → PostgreSQL when a deployment
 * outgrows one machine; any direction works), from the same migrations on both sides.
 *
 * - Table-driven: COPY_PLAN lists every table in foreign-key order. A table the plan does not know makes the
 *   copy fail before anything is written (a new migration must add its tables here; a test checks it).
 * - The target is migrated first, and must be empty unless `force` (then it is emptied first).
 * - The source is read in one snapshot (a read transaction); the target is written in one transaction, so a
 *   failed copy leaves the target as it was. Rows are read in key order, page by page, and inserted in batches.
 * - Identity sequences are moved past the copied ids on PostgreSQL, so new rows do not collide.
 * - Row counts of every table are compared after the copy.
 *
 * Hashes are copied as they are: passwords, client secrets, sessions, codes and tokens keep working. Signing
 * keys and CSRF tokens depend on LATCH_SECRET, which the new deployment must therefore share.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Database } from './database.js';
import { migrateToLatest, migrationsAreCurrent, openStorage, type OpenedStorage, type OpenStorageOptions } from './open-storage.js';

export interface CopiedTable {
  /** Table name. */
  table: string;
  /** Columns of a unique key, to read the source in a stable order page by page. */
  key: readonly string[];
  /** An identity column whose PostgreSQL sequence must follow the copied ids. */
  identity?: string;
}

/** Every Latch table, parents before children (foreign keys). New tables go here, in a position after their parents. */
export const COPY_PLAN: readonly CopiedTable[] = [
  { table: 'users', key: ['id'], identity: 'id' },
  { table: 'clients', key: ['client_id'] },
  { table: 'authorization_codes', key: ['code_hash'] },
  { table: 'access_tokens', key: ['token_hash'] },
  // client_credentials tokens (no user).
  { table: 'service_tokens', key: ['token_hash'] },
  // Successors awaiting a retry are encrypted under LATCH_SECRET, like the signing keys below.
  { table: 'refresh_tokens', key: ['token_hash'] },
  { table: 'consents', key: ['user_id', 'client_id'] },
  { table: 'browser_sessions', key: ['session_hash'] },
  { table: 'browser_session_clients', key: ['sid', 'client_id'] },
  { table: 'client_events', key: ['id'], identity: 'id' },
  { table: 'email_links', key: ['token_hash'] },
  { table: 'outbox_messages', key: ['id'], identity: 'id' },
  { table: 'avatar_images', key: ['id'] },
  // Private parts stay encrypted under LATCH_SECRET: the target must run with the same secret.
  { table: 'signing_keys', key: ['kid'] },
  // Deliveries in flight: a copy taken while one waits carries it over (its claim runs out on the target).
  { table: 'backchannel_logout_deliveries', key: ['id'], identity: 'id' },
  // The audit trail, whole: no foreign keys, so its place in the order does not matter.
  { table: 'audit_events', key: ['id'], identity: 'id' },
  // Authenticator secrets stay encrypted and recovery codes keyed under LATCH_SECRET: the same secret on the target.
  { table: 'totp_authenticators', key: ['user_id'] },
  { table: 'recovery_codes', key: ['user_id', 'code_hash'] },
  // Public keys only: nothing to decrypt.
  { table: 'passkeys', key: ['credential_id'] },
  // WebAuthn challenges already tried (hashes only): copied so that one tried just before the copy stays spent on
  // the target while its 5-minute cookie lives (WebAuthn Level 2 §13.4.3).
  { table: 'used_webauthn_challenges', key: ['challenge_hash'] },
  // Webhook secrets stay encrypted under LATCH_SECRET: the same secret on the target. Pending deliveries carry
  // over like back-channel ones; finished ones are the delivery log.
  { table: 'webhooks', key: ['id'] },
  { table: 'webhook_deliveries', key: ['id'], identity: 'id' },
  // Initial access tokens for registration: hashes only.
  { table: 'registration_tokens', key: ['id'] },
  // Device authorization requests (RFC 8628): hashes only; after clients and users, whose rows they name.
  { table: 'device_authorizations', key: ['device_code_hash'] },
  // Resource servers (RFC 8707) and the resources each grant's authorization request named: no secrets.
  { table: 'resource_servers', key: ['identifier'] },
  { table: 'grant_resources', key: ['grant_id', 'resource'] },
];

/** Kysely's own bookkeeping: written by the migrations on the target, never copied. */
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

const PAGE_ROWS = 500;

export class DatabaseCopyError extends Error {}

export interface DatabaseEndpoint {
  url: string;
  /** PostgreSQL schema (search_path), when not the connection's default. */
  schema?: string | null;
}

export interface CopyReport {
  tables: Array<{ table: string; rows: number }>;
  totalRows: number;
}

/** Tables present in the database other than Kysely's own. */
export async function listTables(db: Kysely<Database>): Promise<string[]> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    return rows.map((r) => r.name).filter((name) => !MIGRATION_TABLES.has(name));
  }
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
  return rows.map((r) => r.name).filter((name) => !MIGRATION_TABLES.has(name));
}

/** Fails, naming them, when the database has tables COPY_PLAN does not cover. */
export function checkPlanCoversTables(tables: readonly string[]): void {
  const known = new Set(COPY_PLAN.map((t) => t.table));
  const unknown = tables.filter((table) => !known.has(table)).sort();
  if (unknown.length > 0) {
    throw new DatabaseCopyError(
      `The source has tables this copy does not know: ${unknown.join(', ')}. Nothing was copied. ` +
        'Add them to COPY_PLAN in src/storage/database-copy.ts (after the tables they reference).',
    );
  }
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const row = await db.selectFrom(table).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Reads a table in key order, PAGE_ROWS at a time (keyset pagination: no OFFSET rescans). */
async function* readPages(db: Kysely<any>, spec: CopiedTable): AsyncGenerator<Record<string, unknown>[]> {
  let after: unknown[] | undefined;
  for (;;) {
    let query = db.selectFrom(spec.table).selectAll();
    if (after) {
      const keys = sql.join(spec.key.map((column) => sql.ref(column)));
      const values = sql.join(after.map((value) => sql`${value}`));
      query = query.where(sql<boolean>`(${keys}) > (${values})`);
    }
    for (const column of spec.key) query = query.orderBy(column);
    const rows = (await query.limit(PAGE_ROWS).execute()) as Record<string, unknown>[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE_ROWS) return;
    const last = rows[rows.length - 1]!;
    after = spec.key.map((column) => last[column]);
  }
}

export async function copyDatabase(
  from: DatabaseEndpoint,
  to: DatabaseEndpoint,
  options: { force?: boolean; onTable?: (table: string, rows: number) => void } = {},
): Promise<CopyReport> {
  if (from.url === to.url && (from.schema ?? null) === (to.schema ?? null)) throw new DatabaseCopyError('--from and --to are the same database');
  const sourceOptions: OpenStorageOptions = { migrate: false, postgresSchema: from.schema ?? null, poolSize: 2, statementTimeoutMs: 0 };
  const targetOptions: OpenStorageOptions = { migrate: false, postgresSchema: to.schema ?? null, poolSize: 2, statementTimeoutMs: 0 };
  const source = await openStorage(from.url, sourceOptions);
  try {
    const target = await openStorage(to.url, targetOptions);
    try {
      return await copyBetween(source.db, target, targetOptions, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

async function copyBetween(
  source: Kysely<Database>,
  targetStorage: OpenedStorage,
  targetOptions: OpenStorageOptions,
  options: { force?: boolean; onTable?: (table: string, rows: number) => void },
): Promise<CopyReport> {
  const sourceIsCurrent = await migrationsAreCurrent(source).catch(() => false);
  if (!sourceIsCurrent) {
    throw new DatabaseCopyError('The source database is not at the latest migration: run `latch migrate` against it first (with this version of Latch)');
  }
  checkPlanCoversTables(await listTables(source));

  await migrateToLatest(targetStorage, targetOptions);
  const target = targetStorage.db;
  checkPlanCoversTables(await listTables(target));
  if (!options.force) {
    const nonEmpty: string[] = [];
    for (const { table } of COPY_PLAN) if ((await countRows(target, table)) > 0) nonEmpty.push(table);
    if (nonEmpty.length > 0) {
      throw new DatabaseCopyError(`The target already has data (${nonEmpty.join(', ')}); nothing was copied. Use --force to replace it.`);
    }
  }

  const targetIsPostgres = target.getExecutor().adapter instanceof PostgresAdapter;
  const sourceIsPostgres = source.getExecutor().adapter instanceof PostgresAdapter;
  // One snapshot of the source: rows written during the copy are either all seen or not at all.
  const read = sourceIsPostgres ? source.transaction().setIsolationLevel('repeatable read') : source.transaction();

  const copied = await read.execute(async (sourceTrx) =>
    target.transaction().execute(async (targetTrx) => {
      for (const { table } of [...COPY_PLAN].reverse()) await targetTrx.deleteFrom(table as keyof Database).execute();
      const counts: Array<{ table: string; rows: number }> = [];
      for (const spec of COPY_PLAN) {
        let rows = 0;
        for await (const page of readPages(sourceTrx, spec)) {
          await (targetTrx as Kysely<any>).insertInto(spec.table).values(page).execute();
          rows += page.length;
        }
        if (targetIsPostgres && spec.identity) {
          // The next generated id must follow the copied ones (explicit ids do not advance the sequence).
          await sql`select setval(pg_get_serial_sequence(${spec.table}, ${spec.identity}), coalesce(max(${sql.ref(spec.identity)}), 0) + 1, false) from ${sql.table(spec.table)}`.execute(
            targetTrx,
          );
        }
        counts.push({ table: spec.table, rows });
        options.onTable?.(spec.table, rows);
      }
      return counts;
    }),
  ).finally(() => {
    // Every row of the target was replaced: processes serving it drop what they cached (invalidation-signal.ts).
    targetStorage.signal?.changed();
  });

  // Verify against both sides as they are now committed.
  for (const { table, rows } of copied) {
    const [inSource, inTarget] = [await countRows(source, table), await countRows(target, table)];
    if (inTarget !== rows || inSource !== rows) {
      throw new DatabaseCopyError(
        `Row counts differ for ${table}: copied ${rows}, source now has ${inSource}, target has ${inTarget}. Was the source written to during the copy? Stop it and copy again with --force.`,
      );
    }
  }
  return { tables: copied, totalRows: copied.reduce((sum, t) => sum + t.rows, 0) };
}
