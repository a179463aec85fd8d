/**
 * The embedded database's engine, behind the one interface repositories know (QueryExecutor,
 * query-executor.ts), with the invalidation signal its cached reads use (invalidation-signal.ts):
 *
 * - connection.ts: the writer connection Kysely runs on, with the pragmas Latch ships;
 * - group-commit.ts: synchronous reads and group-committed writes for the hot queries;
 * - checkpointer.ts: WAL checkpoints from a worker thread, never inside a request's commit;
 * - file-signal.ts and change-signal.ts: "something cached may be stale", across processes;
 * - turn-end.ts: the end of the event loop's turn, when group commits flush and the signal is read.
 *
 * An in-memory database (`sqlite::memory:`) has none of this: a second connection would open another, empty
 * database. It runs on Kysely alone (open-storage.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../database.js';
import type { InvalidationSignal } from '../invalidation-signal.js';
import { runPlanNow, type QueryExecutor } from '../query-executor.js';
import { SAFETY_NET_AUTOCHECKPOINT_PAGES, SqliteCheckpointer } from './checkpointer.js';
import { openSqlite, type SqliteSynchronous } from './connection.js';
import { FileInvalidationSignal } from './file-signal.js';
import { SqliteGroupCommit, type ExecuteNow } from './group-commit.js';

export interface SqliteEngineOptions {
  /** Checkpoint the WAL from a worker thread instead of inside commits (serving processes; checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** `LATCH_SQLITE_SYNCHRONOUS` (default `normal`; connection.ts). */
  synchronous?: SqliteSynchronous;
}

export interface SqliteEngine {
  /** Kysely on the writer connection: plain queries, migrations and Storage.transaction run here. */
  db: Kysely<Database>;
  /** What repositories run their hot queries through. */
  executor: QueryExecutor;
  signal: InvalidationSignal;
  /** The group commit under `executor` (its own tests drive it directly). */
  groupCommit: SqliteGroupCommit;
  /** Finishes queued writes, then closes every connection. */
  close(): Promise<void>;
}

export function openSqliteEngine(path: string, options: SqliteEngineOptions = {}): SqliteEngine {
  mkdirSync(dirname(path), { recursive: true });
  const writer = openSqlite(path, undefined, { synchronous: options.synchronous ?? 'normal' });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: writer }) });
  const groupCommit = SqliteGroupCommit.open(db, path, writer);
  const signal = FileInvalidationSignal.beside(path);
  let checkpointer: SqliteCheckpointer | undefined;
  if (options.backgroundCheckpoints) {
    writer.prepare(`PRAGMA wal_autocheckpoint = ${SAFETY_NET_AUTOCHECKPOINT_PAGES}`).all([]);
    checkpointer = SqliteCheckpointer.start(path, writer.driver);
  }
  return {
    db,
    executor: {
      read: async (query, options) => {
        if (options?.seeDeferredWrites) await groupCommit.ridersWritten();
        return groupCommit.read(query);
      },
      write: (query, options) => {
        const unit = (execute: ExecuteNow) => execute(query);
        return options?.deferrable ? groupCommit.writeWithNext(unit) : groupCommit.write(unit);
      },
      run: (plan, options) => {
        const unit = (execute: ExecuteNow) => runPlanNow(plan(), execute);
        return options?.deferrable ? groupCommit.writeWithNext(unit) : groupCommit.write(unit);
      },
    },
    signal,
    groupCommit,
    async close() {
      await groupCommit.close();
      await checkpointer?.close();
      signal.close();
      await db.destroy();
    },
  };
}
