/**
 * Reading a Latch database without changing it, for `latch doctor` (src/cli/doctor/): which migrations it has,
 * its clock and connection limits (PostgreSQL), how many expired rows wait for the cleanup, its signing keys.
 *
 * The connection cannot write: on SQLite `query_only` (and a file that does not exist is not created), on
 * PostgreSQL `default_transaction_read_only`. One thing SQLite does on its own: the last connection to close a
 * database in WAL mode folds the WAL into the file. While Latch serves, its connections stay open and this never
 * happens; after a process was killed with transactions still in the WAL, closing here moves them into the file
 * (as any other `latch` command would), which changes the file's bytes but none of its rows. It is its own connection, not Latch's pool, so that it works while
 * Latch serves and is named `latch doctor` in `pg_stat_activity`, apart from the servers' `latch`.
 */
import { existsSync } from 'node:fs';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { sqlitePath } from './database-url.js';
import { migrations } from './migrations/index.js';
import { toEpochSeconds } from './repositories/columns.js';
import { createSigningKeyRepository } from './repositories/signing-keys.js';
import { BUSY_TIMEOUT_MS, openSqlite } from './sqlite/connection.js';
import type { SigningKeyRecord, Storage } from './storage.js';

/** How long the inspection waits for PostgreSQL to accept its connection: an unreachable database is a finding, not a wait. */
const CONNECT_TIMEOUT_MS = 3000;
/** What the inspection's PostgreSQL connection is called in pg_stat_activity. */
export const INSPECTION_APPLICATION_NAME = 'latch doctor';

export interface InspectedDatabase {
  db: Kysely<Database>;
  dialect: Storage['dialect'];
  close(): Promise<void>;
}

export interface InspectionOptions {
  /** LATCH_DATABASE_SCHEMA (PostgreSQL). */
  schema: string | null;
  /** LATCH_DATABASE_STATEMENT_TIMEOUT_MS (PostgreSQL; 0 = none). */
  statementTimeoutMs: number;
}

/** Every migration this build of Latch knows, in the order they run. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(migrations);

/**
 * A read-only connection to the database of `databaseUrl`, or null when it is an embedded file that does not
 * exist yet (Latch creates it at its first start; opening it here would create it). Connection errors of
 * PostgreSQL surface at the first query.
 */
export function openDatabaseForInspection(databaseUrl: string, options: InspectionOptions): InspectedDatabase | null {
  const path = sqlitePath(databaseUrl);
  if (path !== null) {
    if (path !== ':memory:' && !existsSync(path)) return null;
    // Not the server's pragmas: no journal-mode change, nothing written (query_only refuses every write).
    const connection = openSqlite(path, undefined, { pragmas: [`busy_timeout = ${BUSY_TIMEOUT_MS}`, 'query_only = ON'] });
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const settings = ['-c default_transaction_read_only=on', `-c statement_timeout=${options.statementTimeoutMs}`];
  if (options.schema) settings.push(`-c search_path=${options.schema}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 1,
    options: settings.join(' '),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: INSPECTION_APPLICATION_NAME,
  });
  // An idle connection the server closes emits 'error'; without a listener that would end the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** PostgreSQL's undefined_table, and SQLite's wording of it. */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: unknown }).code === '42P01' || /no such table/i.test((error as Error).message ?? '');
}

/** The names of the applied migrations, or null when the database has no migration table (no Latch tables yet). */
export async function readAppliedMigrations(db: Kysely<Database>): Promise<string[] | null> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((row) => row.name);
  } catch (error) {
    if (isMissingTable(error)) return null;
    throw error;
  }
}

export interface ClockReading {
  /** The database's clock (PostgreSQL clock_timestamp()), in epoch milliseconds. */
  databaseMs: number;
  /** This machine's clock just before the query was sent and just after its answer arrived. */
  localBeforeMs: number;
  localAfterMs: number;
}

/** Reads PostgreSQL's clock between two readings of the local one (the round trip bounds the uncertainty). */
export async function readPostgresClock(db: Kysely<Database>): Promise<ClockReading> {
  await sql`select 1`.execute(db); // the connection is open before the timed query
  const localBeforeMs = Date.now();
  const { rows } = await sql<{ ms: string | number }>`select extract(epoch from clock_timestamp()) * 1000 as ms`.execute(db);
  const localAfterMs = Date.now();
  return { databaseMs: Number(rows[0]?.ms), localBeforeMs, localAfterMs };
}

export interface ConnectionLimits {
  maxConnections: number;
  /** superuser_reserved_connections, plus reserved_connections on PostgreSQL 16 and later. */
  reservedConnections: number;
  /** Client connections named `latch` open now (the servers' pools and listening connections). */
  latchConnections: number;
  /** Every other client connection open now, this inspection's own excepted. */
  otherConnections: number;
}

export async function readPostgresConnectionLimits(db: Kysely<Database>): Promise<ConnectionLimits> {
  const { rows } = await sql<Record<keyof ConnectionLimits, string | number | null>>`
    select current_setting('max_connections') as "maxConnections",
      (current_setting('superuser_reserved_connections')::int + coalesce(current_setting('reserved_connections', true)::int, 0)) as "reservedConnections",
      (select count(*) from pg_stat_activity where backend_type = 'client backend' and application_name = 'latch') as "latchConnections",
      (select count(*) from pg_stat_activity where backend_type = 'client backend' and application_name <> 'latch'
        and pid <> pg_backend_pid()) as "otherConnections"`.execute(db);
  const row = rows[0]!;
  return {
    maxConnections: Number(row.maxConnections),
    reservedConnections: Number(row.reservedConnections),
    latchConnections: Number(row.latchConnections),
    otherConnections: Number(row.otherConnections),
  };
}

/** The tables the periodic cleanup (server.ts deleteExpiredRecords) deletes expired rows from. */
export const EXPIRING_TABLES = ['authorization_codes', 'access_tokens', 'refresh_tokens', 'browser_sessions', 'email_links', 'device_authorizations', 'used_webauthn_challenges'] as const;
export type ExpiringTable = (typeof EXPIRING_TABLES)[number];

export interface ExpiryCutoffs {
  /** The cleanup deletes rows that expired before this. */
  due: Date;
  /** Rows that expired before this should be gone already, had a cleanup run on time. */
  overdue: Date;
}

export interface ExpiredRows {
  table: ExpiringTable;
  due: number;
  overdue: number;
}

/** Counts, per table, the rows the cleanup would delete now, and those of them it should have deleted before. */
export async function countExpiredRows(db: Kysely<Database>, cutoffs: Record<ExpiringTable, ExpiryCutoffs>): Promise<ExpiredRows[]> {
  const counts: ExpiredRows[] = [];
  for (const table of EXPIRING_TABLES) {
    const due = toEpochSeconds(cutoffs[table].due);
    const overdue = toEpochSeconds(cutoffs[table].overdue);
    // A refresh token goes when its own (idle) expiry or its grant's absolute one has passed (tokens.ts deleteExpired).
    const expiredBefore = (at: number) =>
      table === 'refresh_tokens' ? sql`(expires_at < ${at} or grant_expires_at < ${at})` : sql`expires_at < ${at}`;
    const { rows } = await sql<{ due: string | number; overdue: string | number | null }>`
      select count(*) as due, sum(case when ${expiredBefore(overdue)} then 1 else 0 end) as overdue
      from ${sql.table(table)} where ${expiredBefore(due)}`.execute(db);
    counts.push({ table, due: Number(rows[0]?.due ?? 0), overdue: Number(rows[0]?.overdue ?? 0) });
  }
  return counts;
}

export function readSigningKeys(db: Kysely<Database>): Promise<SigningKeyRecord[]> {
  return createSigningKeyRepository(db).listAll();
}
