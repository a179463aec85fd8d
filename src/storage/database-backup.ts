/**
 * `latch db backup FILE`: a consistent snapshot of the embedded database, taken while Latch serves from it.
 *
 * `VACUUM INTO` writes the snapshot from one read transaction. In WAL mode a reader never blocks the writer,
 * so the server goes on committing meanwhile (into the WAL, past the snapshot's mark), and the snapshot is the
 * database as of the moment the statement began. SQLite's online backup API is the other way, and is no good
 * here: it starts over whenever another connection writes, and under a steady stream of writes it never ends
 * (better-sqlite3's `backup()` beside a writer: 35,000 restarts and not done after 20 s).
 *
 * The snapshot goes to a temporary file beside FILE, is checked (integrity_check, and that it is a Latch
 * database), synced (VACUUM INTO does not sync its output) and only then renamed to FILE: FILE is only ever
 * a whole, checked snapshot.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  checkSqliteFile, DatabaseBackupError, moveIntoPlace, openSqliteFile, removeSqliteFile, SQLITE_SIDE_FILES, temporaryPathBeside,
  type CheckedSqliteFile, type TableRows,
} from './sqlite-file.js';

export interface BackupReport {
  file: string;
  bytes: number;
  tables: TableRows[];
  totalRows: number;
  /** When the snapshot's read transaction began: it holds every write committed before. */
  snapshotAt: Date;
  /** How long the snapshot's read transaction lasted (VACUUM INTO). */
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

export function backupDatabase(databasePath: string, file: string, options: { force: boolean }): BackupReport {
  const started = performance.now();
  // Opening a missing file would create an empty database and back that up.
  if (!existsSync(databasePath)) throw new DatabaseBackupError(`There is no database at ${databasePath} (LATCH_DATABASE_URL)`);
  checkBackupTarget(databasePath, file, options.force);
  mkdirSync(dirname(resolve(file)), { recursive: true });
  const temporary = temporaryPathBeside(resolve(file), 'backup');
  try {
    const source = openSqliteFile(databasePath);
    let snapshotAt: Date;
    let snapshotMilliseconds: number;
    try {
      snapshotAt = new Date();
      const snapshotStarted = performance.now();
      source.prepare('vacuum into ?').run([temporary]);
      snapshotMilliseconds = performance.now() - snapshotStarted;
    } finally {
      source.close();
    }
    const copy = openSqliteFile(temporary);
    let checked: CheckedSqliteFile;
    try {
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
