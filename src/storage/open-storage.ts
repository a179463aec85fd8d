/**
 * The one file that knows about database drivers: picks SQLite (sqlite-connection.ts, WAL) or PostgreSQL (pg) from
 * the database URL, runs migrations, and binds the repositories. Everything else sees only `Storage`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { sqlitePath, type Config } from '../config.js';
import type { Database } from './database.js';
import { openSqlite, type SqliteSynchronous } from './sqlite-connection.js';
import { SqliteFastPath, sqliteFastPathOf } from './sqlite-fast-path.js';
import { SAFETY_NET_AUTOCHECKPOINT_PAGES, SqliteCheckpointer } from './sqlite-checkpointer.js';
import { migrationProvider, migrations } from './migrations/index.js';
import { createAccessTokenRepository } from './repositories/access-tokens.js';
import { createAuthorizationCodeRepository } from './repositories/authorization-codes.js';
import { createBrowserSessionRepository } from './repositories/browser-sessions.js';
import { createClientEventRepository } from './repositories/client-events.js';
import { createClientRepository } from './repositories/clients.js';
import { createConsentRepository } from './repositories/consents.js';
import { createSigningKeyRepository } from './repositories/signing-keys.js';
import { createUserRepository } from './repositories/users.js';
import { createPostgresPool } from './postgres-pool.js';
import { createAvatarImageRepository } from './repositories/avatar-images.js';
import { createEmailLinkRepository } from './repositories/email-links.js';
import { createOutboxRepository } from './repositories/outbox.js';
import type { Storage } from './storage.js';

export interface OpenStorageOptions {
  /** Run pending migrations before returning (default true; `latch migrate` and `--no-migrate` deployments set false). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL statement timeout in milliseconds (default 10000). */
  statementTimeoutMs?: number;
  /** PostgreSQL schema to use (search_path); created by the migrations when missing. */
  postgresSchema?: string | null;
  /** Told about errors of idle pooled PostgreSQL connections (the server closed them); they are dropped and replaced. */
  onIdleConnectionError?: (error: Error) => void;
  /** SQLite: checkpoint the WAL from a worker thread instead of inside commits (serving processes; sqlite-checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** SQLite durability, `LATCH_SQLITE_SYNCHRONOUS` (default `normal`; sqlite-connection.ts). */
  sqliteSynchronous?: SqliteSynchronous;
}

/** The storage options a configuration asks for (pool size, statement timeout, schema, SQLite durability). */
export function storageOptionsFromConfig(config: Config): OpenStorageOptions {
  return {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    postgresSchema: config.databaseSchema,
    sqliteSynchronous: config.sqliteSynchronous,
  };
}

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Storage['dialect'];
  /** Finishes queued writes and closes every connection. */
  close(): Promise<void>;
}

export function createDatabase(databaseUrl: string, options: OpenStorageOptions = {}): OpenedDatabase {
  const path = sqlitePath(databaseUrl);
  if (path !== null) {
    if (path === ':memory:') {
      const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path) }) });
      return { db, dialect: 'sqlite', close: () => db.destroy() };
    }
    mkdirSync(dirname(path), { recursive: true });
    const sqlite = openSqlite(path, undefined, { synchronous: options.sqliteSynchronous ?? 'normal' });
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    const fastPath = SqliteFastPath.attach(db, path, sqlite);
    let checkpointer: SqliteCheckpointer | undefined;
    if (options.backgroundCheckpoints) {
      sqlite.prepare(`PRAGMA wal_autocheckpoint = ${SAFETY_NET_AUTOCHECKPOINT_PAGES}`).all([]);
      checkpointer = SqliteCheckpointer.start(path, sqlite.driver);
    }
    return {
      db,
      dialect: 'sqlite',
      async close() {
        await fastPath.close();
        await checkpointer?.close();
        await db.destroy();
      },
    };
  }

  // int8 (bigint) columns hold epoch seconds and counts, all far below 2^53: read them as numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const { pool } = createPostgresPool(databaseUrl, {
    poolSize: options.poolSize ?? 10,
    statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
    schema: options.postgresSchema ?? null,
    onIdleClientError: options.onIdleConnectionError ?? (() => {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/**
 * Kysely's migrator, with its bookkeeping tables in the schema Latch's tables live in. On PostgreSQL that is
 * the connection's current schema, named explicitly: left unnamed, Kysely would take a `kysely_migration`
 * table in any other schema of the same database for its own.
 */
async function createMigrator(db: Kysely<Database>): Promise<Migrator> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return new Migrator({ db, provider: migrationProvider });
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new Error('PostgreSQL has no current schema: create the schema named in LATCH_DATABASE_SCHEMA, or let `latch migrate` create it');
  }
  return new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
}

/** Creates the configured PostgreSQL schema when it does not exist yet (before the first migration). */
async function ensurePostgresSchema(db: Kysely<Database>, schema: string | null | undefined): Promise<void> {
  if (schema) await db.schema.createSchema(schema).ifNotExists().execute();
}

/** PostgreSQL's undefined_table, and SQLite's wording of it. */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: unknown }).code === '42P01' || /no such table/i.test((error as Error).message ?? '');
}

export async function migrateToLatest(db: Kysely<Database>, options: Pick<OpenStorageOptions, 'postgresSchema'> = {}): Promise<MigrationResultSet> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await ensurePostgresSchema(db, options.postgresSchema);
  for (let attempt = 1; ; attempt++) {
    const migrator = await createMigrator(db);
    const result = await migrator.migrateToLatest();
    if (!result.error) {
      // Whoever runs them (`latch migrate`, `latch serve`, the primary of --workers): cached reads start over in
      // every process (change-signal.ts).
      if ((result.results ?? []).length > 0) sqliteFastPathOf(db)?.changed();
      return result;
    }
    // Kysely's migrator introspects every schema of the database; a table dropped in another schema at that
    // moment fails it with undefined_table. Migrations run in one transaction on PostgreSQL, so try again.
    if (attempt >= 3 || !isMissingTable(result.error)) throw result.error;
  }
}

/**
 * True when every migration this code knows has been applied. Reads Kysely's migration table directly (not
 * through its introspection of the whole database): readiness probes call this often.
 */
export async function migrationsAreCurrent(db: Kysely<Database>): Promise<boolean> {
  let applied: Set<string>;
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    if (isMissingTable(error)) return false;
    throw error;
  }
  return Object.keys(migrations).every((name) => applied.has(name));
}

export function bindRepositories(db: Kysely<Database>, dialect: Storage['dialect'], close: () => Promise<void>): Storage {
  return {
    dialect,
    users: createUserRepository(db),
    clients: createClientRepository(db),
    authorizationCodes: createAuthorizationCodeRepository(db),
    accessTokens: createAccessTokenRepository(db),
    consents: createConsentRepository(db),
    browserSessions: createBrowserSessionRepository(db),
    clientEvents: createClientEventRepository(db),
    emailLinks: createEmailLinkRepository(db),
    outbox: createOutboxRepository(db),
    avatarImages: createAvatarImageRepository(db),
    signingKeys: createSigningKeyRepository(db),
    transaction: async (fn) => {
      try {
        return await db.transaction().execute((trx) => fn(bindRepositories(trx, dialect, close)));
      } finally {
        // Transactions are rare and may revoke tokens or change users: cached reads start over (change-signal.ts).
        sqliteFastPathOf(db)?.changed();
      }
    },
    async ping() {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    migrationsAreCurrent: () => migrationsAreCurrent(db),
    close,
  };
}

export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<Storage & { db: Kysely<Database> }> {
  const { db, dialect, close } = createDatabase(databaseUrl, options);
  if (options.migrate ?? true) {
    await migrateToLatest(db, options);
  }
  return Object.assign(bindRepositories(db, dialect, close), { db });
}
