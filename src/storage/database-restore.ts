/**
 * `latch db restore FILE`: a backup (database-backup.ts) becomes the embedded database again.
 *
 * Order matters: the backup is copied beside the target and checked there (integrity, a Latch database, no
 * migration this code does not know) before the target is touched; then the target is checked to be unused,
 * kept under another name, and replaced in one rename. A crash at any step leaves the old database or the
 * restored one.
 *
 * "Unused" is SQLite's own locking, which works across processes and is released by the OS when a process
 * dies, even by kill -9: every connection to a WAL database holds a shared lock on it for as long as it is
 * open, and leaving WAL mode (`journal_mode = DELETE`) needs that no other connection has the file open. A
 * running `latch serve` (any of its workers, its read connection, its checkpointer) therefore makes the switch
 * fail at once with SQLITE_BUSY. A Latch started in the instant between that check and the rename would open
 * the old file; operators stop Latch before a restore, and the check is there to catch the one they forgot.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ChangeSignal } from './sqlite/change-signal.js';
import { migrations } from './migrations/index.js';
import { isSqliteBusy } from './sqlite/connection.js';
import {
  checkSqliteFile, DatabaseBackupError, isNotADatabase, moveIntoPlace, openSqliteFile, removeSqliteFile, SQLITE_SIDE_FILES, temporaryPathBeside,
  type CheckedSqliteFile, type TableRows,
} from './sqlite/file.js';

export interface RestoreReport {
  tables: TableRows[];
  totalRows: number;
  /** Migrations this code has and the backup lacks: applied at the next start (or by `latch migrate`). */
  pendingMigrations: string[];
  /** Where the database the restore replaced is kept, or null when there was none. */
  replacedKeptAs: string | null;
}

/** Refuses a target some process has open (see the header), and leaves an unused one in rollback mode with its WAL folded in. */
function checkTargetUnused(targetPath: string): void {
  const connection = openSqliteFile(targetPath, 0);
  try {
    const [row] = connection.prepare('pragma journal_mode = DELETE').all([]) as Array<{ journal_mode: string }>;
    if (row?.journal_mode !== 'delete') throw new DatabaseBackupError(inUseMessage(targetPath));
  } catch (error) {
    if (isSqliteBusy(error)) throw new DatabaseBackupError(inUseMessage(targetPath));
    if (isNotADatabase(error)) throw new DatabaseBackupError(`${targetPath} is not a SQLite database: move it away first, restore does not overwrite it`);
    throw error;
  } finally {
    connection.close();
  }
}

function inUseMessage(targetPath: string): string {
  return `${targetPath} is in use by a running Latch process (latch serve, a worker, or another command): stop it, then restore; nothing was changed`;
}

/** Refuses a backup from a newer Latch; returns the migrations it lacks. */
function compareMigrations(file: string, applied: string[] | null): string[] {
  if (applied === null) throw new DatabaseBackupError(`${file} is not a Latch database (it has no kysely_migration table)`);
  const known = Object.keys(migrations);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new DatabaseBackupError(`${file} comes from a newer Latch (migrations this one does not know: ${unknown.join(', ')}): restore it with that version`);
  }
  return known.filter((name) => !applied.includes(name));
}

/** Keeps the database being replaced under a new name: a hard link (no copy) where the file system allows. */
function keepReplaced(targetPath: string): string {
  const keptAs = `${targetPath}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    linkSync(targetPath, keptAs);
  } catch {
    copyFileSync(targetPath, keptAs);
  }
  return keptAs;
}

export function restoreDatabase(targetPath: string, file: string): RestoreReport {
  const backup = statSync(file, { throwIfNoEntry: false });
  if (!backup?.isFile()) throw new DatabaseBackupError(`There is no backup file at ${file}`);
  if (resolve(file) === resolve(targetPath)) throw new DatabaseBackupError(`${file} is the database itself: name a backup file`);
  mkdirSync(dirname(resolve(targetPath)), { recursive: true });
  const temporary = temporaryPathBeside(resolve(targetPath), 'restore');
  try {
    copyFileSync(file, temporary);
    const copy = openSqliteFile(temporary);
    let checked: CheckedSqliteFile;
    try {
      checked = checkSqliteFile(copy, file);
      // One self-contained file whatever mode the backup was in; Latch returns it to WAL when it opens it.
      copy.prepare('pragma journal_mode = DELETE').all([]);
    } finally {
      copy.close();
    }
    const pendingMigrations = compareMigrations(file, checked.migrations);

    let replacedKeptAs: string | null = null;
    if (existsSync(targetPath)) {
      checkTargetUnused(targetPath);
      replacedKeptAs = keepReplaced(targetPath);
    }
    // A log or journal left beside the target (a crash) would be replayed into the restored file: remove it first.
    for (const suffix of SQLITE_SIDE_FILES) rmSync(`${targetPath}${suffix}`, { force: true });
    moveIntoPlace(temporary, targetPath);
    // What any process cached from the old database is dropped at its next read (sqlite/change-signal.ts).
    const changes = new ChangeSignal(`${targetPath}-changes`);
    changes.bump();
    changes.close();
    return { tables: checked.tables, totalRows: checked.totalRows, pendingMigrations, replacedKeptAs };
  } catch (error) {
    removeSqliteFile(temporary);
    throw error;
  }
}
