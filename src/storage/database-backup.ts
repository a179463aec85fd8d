/**
 * `latch db backup FILE`: a consistent snapshot of the embedded database, taken while Latch serves from it.
 *
 * SQLite's online backup API, in ONE step: `sqlite3_backup_step(-1)` (every page in a single call) copies the
 * pages of the database as they are in one read transaction. In WAL mode a reader never blocks the writer, so
 * the server goes on committing meanwhile (into the WAL, past the snapshot's mark), and the snapshot is the
 * database as of the moment the step began. The backup API restarts when another connection writes between
 * two steps; with one step there is no "between", so it never restarts (copied in small steps beside a
 * writer, as better-sqlite3 does by default, it never finished: BENCHMARKS.md, "`latch db backup` in one step").
 *
 * It is a plain page copy: cheaper than `VACUUM INTO`, used until 2026-11-24, which rebuilds every table and
 * index from one read transaction (on a 160 MB database under the code exchange at 2,000/s, the CLI's CPU time
 * and the snapshot's duration are in BENCHMARKS.md, "latch db backup beside the exchange";
 * bench/backup-under-load.mjs). Free pages are copied too: the snapshot is as large as the database file.
 *
 * The snapshot goes to a temporary file beside FILE, is switched out of WAL mode (the copy of a WAL database
 * says WAL in its header: it would get -wal and -shm files of its own wherever it is opened), checked
 * (integrity_check, and that it is a Latch database), synced and only then renamed to FILE: FILE is only ever
 * a whole, checked snapshot, in one file.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { BUSY_TIMEOUT_MS, preferredSqliteDriver } from './sqlite/connection.js';
import {
  checkSqliteFile, DatabaseBackupError, moveIntoPlace, openSqliteFile, removeSqliteFile, SQLITE_SIDE_FILES, temporaryPathBeside,
  type CheckedSqliteFile, type TableRows,
} from './sqlite/file.js';

export interface BackupReport {
  file: string;
  bytes: number;
  tables: TableRows[];
  totalRows: number;
  /** When the snapshot's read transaction began: it holds every write committed before. */
  snapshotAt: Date;
  /** How long the snapshot's read transaction lasted (the one backup step). */
  snapshotMilliseconds: number;
  totalMilliseconds: number;
}

function checkBackupTarget(databasePath: string, file: string, force: boolean): void {
  const source = resolve(databasePath);
  const target = resolve(file);
  if (target === source || SQLITE_SIDE_FILES.some((suffix) => target === `${source}${suffix}`)) {
    throw new DatabaseBackupError(`${file} is the database itself (or one of its files): write the backup elsewhere`);
  }
  const existing = statSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw new DatabaseBackupError(`${file} is a folder: name the backup file, e.g. ${join(file, 'latch-backup.db')}`);
  if (existing && !force) throw new DatabaseBackupError(`${file} already exists: choose another name, or pass --force to replace it`);
}

const require = createRequire(import.meta.url);
/** Pages per backup step: all of them (the largest int32; node:sqlite takes no negative rate), so one step. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database at `databasePath` into the new file `target` with SQLite's online backup API in one
 * step (see the header), with the driver of this Node (sqlite/connection.ts): the drivers' own backup calls
 * need their raw connection, not the Kysely wrapper. Resolves when the copy is complete.
 */
async function copyPagesInOneStep(databasePath: string, target: string): Promise<void> {
  if (preferredSqliteDriver() === 'node:sqlite') {
    const { DatabaseSync, backup } = require('node:sqlite') as {
      DatabaseSync: new (path: string) => { exec(sql: string): void; close(): void };
      backup(source: unknown, path: string, options: { rate: number }): Promise<number>;
    };
    const source = new DatabaseSync(databasePath);
    try {
      source.exec(`pragma busy_timeout = ${BUSY_TIMEOUT_MS}`);
      await backup(source, target, { rate: ALL_PAGES });
    } finally {
      source.close();
    }
    return;
  }
  const BetterSqlite3 = require('better-sqlite3') as new (path: string, options: { fileMustExist: boolean }) => {
    pragma(source: string): unknown;
    backup(path: string, options: { progress: (info: { totalPages: number; remainingPages: number }) => number }): Promise<unknown>;
    close(): void;
  };
  const source = new BetterSqlite3(databasePath, { fileMustExist: true });
  try {
    source.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // better-sqlite3 first steps 0 pages (to learn the page count), then asks `progress` how many pages the next
    // step copies: all of them.
    await source.backup(target, { progress: () => ALL_PAGES });
  } finally {
    source.close();
  }
}

export async function backupDatabase(databasePath: string, file: string, options: { force: boolean }): Promise<BackupReport> {
  const started = performance.now();
  // Opening a missing file would create an empty database and back that up.
  if (!existsSync(databasePath)) throw new DatabaseBackupError(`There is no database at ${databasePath} (LATCH_DATABASE_URL)`);
  checkBackupTarget(databasePath, file, options.force);
  mkdirSync(dirname(resolve(file)), { recursive: true });
  const temporary = temporaryPathBeside(resolve(file), 'backup');
  try {
    const snapshotAt = new Date();
    const snapshotStarted = performance.now();
    await copyPagesInOneStep(databasePath, temporary);
    const snapshotMilliseconds = performance.now() - snapshotStarted;
    const copy = openSqliteFile(temporary);
    let checked: CheckedSqliteFile;
    try {
      copy.prepare('pragma journal_mode = DELETE').all([]);
      checked = checkSqliteFile(copy, `The snapshot of ${databasePath}`);
    } finally {
      copy.close();
    }
    if (checked.migrations === null) throw new DatabaseBackupError(`${databasePath} is not a Latch database (it has no kysely_migration table)`);
    const bytes = statSync(temporary).size;
    moveIntoPlace(temporary, resolve(file));
    return { file, bytes, tables: checked.tables, totalRows: checked.totalRows, snapshotAt, snapshotMilliseconds, totalMilliseconds: performance.now() - started };
  } catch (error) {
    removeSqliteFile(temporary);
    throw error;
  }
}
