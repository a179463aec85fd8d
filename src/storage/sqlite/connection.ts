/**
 * Opening the embedded SQLite database, with the driver that is safe on the running Node:
 *
 * - Node 20 and 22: better-sqlite3 (a native addon, built at install).
 * - Node 24 and later: Node's own `node:sqlite`. better-sqlite3 12 subclasses the raw `node::ObjectWrap`,
 *   whose destructor aborts the process on Node ≥ 24.19 when a statement is garbage-collected
 *   (nodejs/node#65446, "Assertion failed: (env) != nullptr"); better-sqlite3 13, which fixes it, needs
 *   Node-API 10 and crashes on Node 20. node:sqlite has neither problem.
 *
 * Both are wrapped in Kysely's `SqliteDatabase` interface, with prepared statements cached per SQL text so
 * that the hot queries are compiled by SQLite once per process.
 */
import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** Kysely's SQL texts are few and fixed; the bound only guards against a query shape that varies without end. */
const MAX_CACHED_STATEMENTS = 1000;

export type SqliteDriverName = 'better-sqlite3' | 'node:sqlite';

export function preferredSqliteDriver(): SqliteDriverName {
  return NODE_MAJOR >= 24 ? 'node:sqlite' : 'better-sqlite3';
}

/** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** Whether an error from either driver is SQLITE_BUSY (another connection holds the lock). */
export function isSqliteBusy(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // better-sqlite3: code 'SQLITE_BUSY'; node:sqlite: errcode 5 (the primary result code) or an extended one.
  return code === 'SQLITE_BUSY' || (typeof errcode === 'number' && (errcode & 0xff) === 5);
}

/**
 * `LATCH_SQLITE_SYNCHRONOUS`. In WAL mode `normal` syncs the WAL only at checkpoints: every acknowledged write
 * survives a crash of the process (it is in the WAL, in the OS's cache), a power loss or OS crash can lose
 * the last transactions but never corrupts. `full` syncs the WAL at every commit, so those survive too.
 */
export type SqliteSynchronous = 'normal' | 'full';

/** Pragmas Latch runs with, as shipped (and as measured by the benchmark). */
const writerPragmas = (synchronous: SqliteSynchronous): string[] => [
  // WAL lets readers run beside the one writer.
  'journal_mode = WAL',
  `synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`,
  'foreign_keys = ON',
  // Savepoint journals (one per write unit of a group commit, group-commit.ts) in memory, not in a temp
  // file, where each page touched costs a pwrite on the event loop (BENCHMARKS.md, "Savepoint journals in
  // memory"). They only undo a
  // savepoint inside an open transaction; crash recovery is the WAL's, so durability is the same. Temp tables
  // and sorts too large for an index (none on a hot path) also stay in memory.
  'temp_store = MEMORY',
  // Lets the CLI and several processes share one file.
  `busy_timeout = ${BUSY_TIMEOUT_MS}`,
];

export interface SqliteConnection extends SqliteDatabase {
  readonly driver: SqliteDriverName;
  /** True while a transaction is open on this connection (BEGIN run, COMMIT or ROLLBACK not yet). */
  inTransaction(): boolean;
}

/** Pragmas of the group commit's read connection (group-commit.ts): it must never write. */
const READER_PRAGMAS = [`busy_timeout = ${BUSY_TIMEOUT_MS}`, 'query_only = ON'];

export interface OpenSqliteOptions {
  /** A connection that only reads (the journal mode is the writer's to set, and stays with the file). */
  readOnly?: boolean;
  /** A writer's durability (default `normal`). */
  synchronous?: SqliteSynchronous;
  /**
   * A tool's own connection (`latch db backup`/`restore`): exactly these pragmas, none of a server's, so that
   * opening a file to copy or check it changes nothing about it (its journal mode above all).
   */
  pragmas?: readonly string[];
}

export function openSqlite(path: string, driver: SqliteDriverName = preferredSqliteDriver(), options: OpenSqliteOptions = {}): SqliteConnection {
  const pragmas = options.pragmas ?? (options.readOnly ? READER_PRAGMAS : writerPragmas(options.synchronous ?? 'normal'));
  return driver === 'node:sqlite' ? openWithNodeSqlite(path, pragmas) : openWithBetterSqlite3(path, pragmas);
}

/** What both drivers' statements offer: variadic parameters, where Kysely passes an array. */
interface DriverStatement {
  all(...parameters: unknown[]): unknown[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

interface DriverDatabase<Statement extends DriverStatement> {
  prepare(sql: string): Statement;
  close(): void;
}

/** Wraps a driver's database in Kysely's interface, preparing each SQL text once. */
function toKyselyConnection<Statement extends DriverStatement>(
  driver: SqliteDriverName,
  database: DriverDatabase<Statement>,
  isReader: (statement: Statement) => boolean,
  inTransaction: () => boolean,
): SqliteConnection {
  const statements = new Map<string, SqliteStatement>();
  return {
    driver,
    inTransaction,
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sqlText) {
      let statement = statements.get(sqlText);
      if (!statement) {
        const prepared = database.prepare(sqlText);
        statement = {
          reader: isReader(prepared),
          all: (parameters) => prepared.all(...parameters),
          run: (parameters) => prepared.run(...parameters),
          iterate: (parameters) => prepared.iterate(...parameters),
        };
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

interface BetterSqlite3Statement extends DriverStatement {
  reader: boolean;
}

function openWithBetterSqlite3(path: string, pragmas: readonly string[]): SqliteConnection {
  const BetterSqlite3 = require('better-sqlite3') as new (path: string) => DriverDatabase<BetterSqlite3Statement> & {
    pragma(source: string): unknown;
    inTransaction: boolean;
  };
  const database = new BetterSqlite3(path);
  for (const pragma of pragmas) database.pragma(pragma);
  return toKyselyConnection('better-sqlite3', database, (statement) => statement.reader, () => database.inTransaction);
}

interface NodeSqliteStatement extends DriverStatement {
  columns(): unknown[];
}

function openWithNodeSqlite(path: string, pragmas: readonly string[]): SqliteConnection {
  const { DatabaseSync } = require('node:sqlite') as {
    DatabaseSync: new (path: string) => DriverDatabase<NodeSqliteStatement> & { exec(sql: string): void; isTransaction: boolean };
  };
  const database = new DatabaseSync(path);
  for (const pragma of pragmas) database.exec(`PRAGMA ${pragma}`);
  // A statement that returns columns (select, or anything with `returning`) is read with all().
  return toKyselyConnection('node:sqlite', database, (statement) => statement.columns().length > 0, () => database.isTransaction);
}
