/**
 * The one file that knows about database drivers: picks SQLite or PostgreSQL from the database URL, runs
 * migrations, and composes Storage: plain Kysely repositories (repositories/*.ts) run by an executor
 * (query-executor.ts): the SQLite engine (sqlite/engine.ts) for a database file, Kysely for PostgreSQL and
 * an in-memory database. Where the engine has an invalidation signal, cached-storage.ts wraps the result.
 * Everything else sees only `Storage`.
 */
import { Kysely, Migrator, PostgresAdapter, SqliteDialect, sql, type MigrationResultSet } from 'kysely';
import { createCachedStorage } from './cached-storage.js';
import type { Database } from './database.js';
import { sqlitePath } from './database-url.js';
import type { InvalidationSignal } from './invalidation-signal.js';
import { migrationProvider, migrations } from './migrations/index.js';
import { channelFor } from './postgres/change-channel.js';
import { observedExecutor, type QueryObserver } from './observed-executor.js';
import { kyselyExecutor, type QueryExecutor } from './query-executor.js';
import { createAuditEventRepository } from './repositories/audit-events.js';
import { createAuthorizationCodeRepository } from './repositories/authorization-codes.js';
import { createAvatarImageRepository } from './repositories/avatar-images.js';
import { createSecondFactorRepository } from './repositories/second-factors.js';
import { createPasskeyRepository } from './repositories/passkeys.js';
import { createWebauthnChallengeRepository } from './repositories/webauthn-challenges.js';
import { createBackchannelLogoutDeliveryRepository } from './repositories/backchannel-logout-deliveries.js';
import { createRegistrationTokenRepository } from './repositories/registration-tokens.js';
import { createDeviceAuthorizationRepository } from './repositories/device-authorizations.js';
import { createResourceServerRepository } from './repositories/resource-servers.js';
import { createWebhookRepository } from './repositories/webhooks.js';
import { createWebhookDeliveryRepository } from './repositories/webhooks-deliveries.js';
import { createBrowserSessionRepository } from './repositories/browser-sessions.js';
import { createClientEventRepository } from './repositories/client-events.js';
import { createClientRepository } from './repositories/clients.js';
import { createConsentRepository } from './repositories/consents.js';
import { createEmailLinkRepository } from './repositories/email-links.js';
import { createOutboxRepository } from './repositories/outbox.js';
import { createSigningKeyRepository } from './repositories/signing-keys.js';
import { createTokenRepository } from './repositories/tokens.js';
import { createUserRepository } from './repositories/users.js';
import { openSqlite, type SqliteSynchronous } from './sqlite/connection.js';
import { openSqliteEngine } from './sqlite/engine.js';
import type { Storage } from './storage.js';

export interface OpenStorageOptions {
  /** Run pending migrations before returning (default true; `latch migrate` and `--no-migrate` deployments set false). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** PostgreSQL statement timeout in milliseconds (default 10000). */
  statementTimeoutMs?: number;
  /** PostgreSQL: the hot queries as named prepared statements (default true; postgres/postgres-executor.ts). */
  preparedStatements?: boolean;
  /** PostgreSQL schema to use (search_path); created by the migrations when missing. */
  postgresSchema?: string | null;
  /** Told about errors of idle pooled PostgreSQL connections (the server closed them); they are dropped and replaced. */
  onIdleConnectionError?: (error: Error) => void;
  /** SQLite: checkpoint the WAL from a worker thread instead of inside commits (serving processes; sqlite/checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** SQLite durability, `LATCH_SQLITE_SYNCHRONOUS` (default `normal`; sqlite/connection.ts). */
  sqliteSynchronous?: SqliteSynchronous;
  /**
   * PostgreSQL: cache hot reads in this process, kept truthful by LISTEN/NOTIFY (postgres/notify-signal.ts), with no
   * change unheard for longer than this (`LATCH_CACHE_MAX_STALENESS_MS`). Unset or 0: no caches, every read goes to
   * the database (the command line's one-off reads, copies).
   */
  cacheMaxStalenessMs?: number;
  /** Told when the PostgreSQL listening connection fails or comes back (for the log). */
  onCacheSignalChange?: (listening: boolean, error?: Error) => void;
  /** Told when PostgreSQL's change-announcing triggers are found missing or disabled (true), and back (false). */
  onCacheTriggersMissing?: (missing: boolean) => void;
  /** Told about every query the repositories run (metrics, tracing; observed-executor.ts). Unset: nothing is wrapped. */
  queryObserver?: QueryObserver;
}

/** The PostgreSQL pool's connections right now (pg.Pool's counters), for metrics. */
export interface PoolStats {
  /** Open connections, idle or in use. */
  total: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
  /** The pool's size (`LATCH_DATABASE_POOL_SIZE`). */
  max: number;
}

/** The settings of a configuration that storage reads (a structural slice of Config). */
export interface StorageSettings {
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  databaseSchema: string | null;
  databasePreparedStatements?: boolean;
  sqliteSynchronous: SqliteSynchronous;
  cacheMaxStalenessMs: number;
}

/** The storage options a configuration asks for (pool size, statement timeout, schema, SQLite durability). */
export function storageOptionsFromConfig(config: StorageSettings): OpenStorageOptions {
  return {
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    postgresSchema: config.databaseSchema,
    preparedStatements: config.databasePreparedStatements ?? true,
    sqliteSynchronous: config.sqliteSynchronous,
    cacheMaxStalenessMs: config.cacheMaxStalenessMs,
  };
}

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Storage['dialect'];
  /** What the repositories run their hot queries through. */
  executor: QueryExecutor;
  /** Where cached reads can be kept truthful across processes; null where they cannot (and nothing is cached). */
  signal: InvalidationSignal | null;
  /** PostgreSQL: the pool's connections right now; absent on SQLite, which has no pool. */
  poolStats?: () => PoolStats;
  /** Finishes queued writes and closes every connection. */
  close(): Promise<void>;
}

/**
 * The database a URL names, with its executor. Async because PostgreSQL's driver is loaded only when a URL
 * names PostgreSQL (postgres/open-postgres.ts).
 */
export async function createDatabase(databaseUrl: string, options: OpenStorageOptions = {}): Promise<OpenedDatabase> {
  const path = sqlitePath(databaseUrl);
  if (path === ':memory:') {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: openSqlite(path) }) });
    return { db, dialect: 'sqlite', executor: kyselyExecutor(db), signal: null, close: () => db.destroy() };
  }
  if (path !== null) {
    const engine = openSqliteEngine(path, { backgroundCheckpoints: options.backgroundCheckpoints, synchronous: options.sqliteSynchronous });
    return { ...engine, dialect: 'sqlite' };
  }
  const { openPostgresDatabase } = await import('./postgres/open-postgres.js');
  return openPostgresDatabase(databaseUrl, options);
}

/**
 * Kysely's migrator, with its bookkeeping tables in the schema Latch's tables live in. On PostgreSQL that is
 * the connection's current schema, named explicitly: left unnamed, Kysely would take a `kysely_migration`
 * table in any other schema of the same database for its own.
 */
async function createMigrator(db: Kysely<Database>): Promise<Migrator> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return new Migrator({ db, provider: migrationProvider });
  return new Migrator({ db, provider: migrationProvider, migrationTableSchema: await tablesSchema(db) });
}

/** PostgreSQL: the schema Latch's tables are in, as its connections see it (the first of their search_path that exists). */
async function tablesSchema(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new Error('PostgreSQL has no current schema: create the schema named in LATCH_DATABASE_SCHEMA, or let `latch migrate` create it');
  }
  return schema;
}

/** Creates the configured PostgreSQL schema when it does not exist yet (before the first migration). */
async function ensurePostgresSchema(db: Kysely<Database>, schema: string | null | undefined): Promise<void> {
  if (schema) await db.schema.createSchema(schema).ifNotExists().execute();
}

/** PostgreSQL's undefined_table, and SQLite's wording of it. */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: unknown }).code === '42P01' || /no such table/i.test((error as Error).message ?? '');
}

export async function migrateToLatest(
  { db, signal }: Pick<OpenedStorage, 'db' | 'signal'>,
  options: Pick<OpenStorageOptions, 'postgresSchema'> = {},
): Promise<MigrationResultSet> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await ensurePostgresSchema(db, options.postgresSchema);
  const migrator = await createMigrator(db);
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  // Whoever runs them (`latch migrate`, `latch serve`, the primary of --workers): cached reads start over in
  // every process (invalidation-signal.ts). On PostgreSQL a migration's DDL fires no trigger, so it is announced here.
  if ((result.results ?? []).length > 0) {
    signal?.changed();
    if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`select pg_notify(${channelFor(await tablesSchema(db))}, '')`.execute(db);
  }
  return result;
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

/** Plain repositories over `db`, run by `executor`; a transaction binds them to itself, run by Kysely. */
export function bindRepositories(db: Kysely<Database>, executor: QueryExecutor, dialect: Storage['dialect'], close: () => Promise<void>): Storage {
  return {
    dialect,
    users: createUserRepository(db, executor),
    clients: createClientRepository(db, executor),
    authorizationCodes: createAuthorizationCodeRepository(db, executor),
    tokens: createTokenRepository(db, executor),
    consents: createConsentRepository(db, executor),
    browserSessions: createBrowserSessionRepository(db, executor),
    clientEvents: createClientEventRepository(db),
    emailLinks: createEmailLinkRepository(db),
    outbox: createOutboxRepository(db),
    avatarImages: createAvatarImageRepository(db),
    signingKeys: createSigningKeyRepository(db),
    backchannelLogoutDeliveries: createBackchannelLogoutDeliveryRepository(db),
    auditEvents: createAuditEventRepository(db, executor),
    secondFactors: createSecondFactorRepository(db),
    passkeys: createPasskeyRepository(db),
    webauthnChallenges: createWebauthnChallengeRepository(db),
    webhooks: createWebhookRepository(db),
    registrationTokens: createRegistrationTokenRepository(db),
    deviceAuthorizations: createDeviceAuthorizationRepository(db),
    resourceServers: createResourceServerRepository(db),
    webhookDeliveries: createWebhookDeliveryRepository(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(bindRepositories(trx, kyselyExecutor(trx), dialect, close))),
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

/** Storage as opened: also the Kysely database (migrations, copies, tests), its invalidation signal and its pool. */
export type OpenedStorage = Storage & { db: Kysely<Database>; signal: InvalidationSignal | null; poolStats?: () => PoolStats };

export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<OpenedStorage> {
  const opened = await createDatabase(databaseUrl, options);
  const { db, dialect } = opened;
  const executor = options.queryObserver ? observedExecutor(opened.executor, options.queryObserver) : opened.executor;
  let signal = opened.signal;
  let close = () => opened.close();
  if (options.migrate ?? true) {
    await migrateToLatest(opened, options).catch(async (error: unknown) => {
      await close();
      throw error;
    });
  }
  if (dialect === 'postgres' && (options.cacheMaxStalenessMs ?? 0) > 0) {
    const { openNotifySignal } = await import('./postgres/open-postgres.js');
    const notify = await openNotifySignal({
      connectionString: databaseUrl,
      // Where the tables are, which the triggers name their channel after: with LATCH_DATABASE_SCHEMA unset,
      // wherever the server's search_path puts them (a role's own schema, a URL's options), not always `public`.
      schema: options.postgresSchema ?? null,
      maxStalenessMs: options.cacheMaxStalenessMs!,
      ...(options.onCacheSignalChange && { onStateChange: options.onCacheSignalChange }),
      ...(options.onCacheTriggersMissing && { onTriggersMissing: options.onCacheTriggersMissing }),
    });
    signal = notify;
    close = async () => {
      await opened.close();
      await notify.close();
    };
  }
  const repositories = bindRepositories(db, executor, dialect, close);
  return Object.assign(signal ? createCachedStorage(repositories, signal, { cacheIssuedAccessTokens: repositories.dialect === 'postgres' }) : repositories, { db, signal, ...(opened.poolStats && { poolStats: opened.poolStats }) });
}
