/**
 * The embedded database as a whole file, for `latch db backup` and `latch db restore`: a tool's own connection,
 * checking a copy and counting its rows, and putting a finished copy in place so that a crash at any moment
 * leaves the old file or the new one, never part of one.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BUSY_TIMEOUT_MS, openSqlite, type SqliteConnection } from './connection.js';

/** A backup or restore that cannot go on, with what to do about it; printed as one line by the CLI. */
export class DatabaseBackupError extends Error {}

/** The files SQLite keeps beside a database: its rollback journal, and in WAL mode the log and its index. */
export const SQLITE_SIDE_FILES = ['-journal', '-wal', '-shm'] as const;

/**
 * A tool's connection: no server pragmas, so that opening a file changes nothing about it (above all not its
 * journal mode). By default it waits for a server's locks as long as the server's own connections do.
 */
export function openSqliteFile(path: string, busyTimeoutMs: number = BUSY_TIMEOUT_MS): SqliteConnection {
  return openSqlite(path, undefined, { pragmas: [`busy_timeout = ${busyTimeoutMs}`] });
}

/** SQLITE_NOTADB from either driver: the file is something other than a SQLite database. */
export function isNotADatabase(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'SQLITE_NOTADB' || (typeof errcode === 'number' && (errcode & 0xff) === 26);
}

export interface TableRows {
  table: string;
  rows: number;
}

export interface CheckedSqliteFile {
  tables: TableRows[];
  totalRows: number;
  /** The names in `kysely_migration`, or null when the file has no such table (it is not a Latch database). */
  migrations: string[] | null;
}

/** Runs SQLite's integrity_check and counts every table's rows; `label` names the file in error messages. */
export function checkSqliteFile(connection: SqliteConnection, label: string): CheckedSqliteFile {
  let problems: string[];
  try {
    problems = (connection.prepare('pragma integrity_check').all([]) as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
  } catch (error) {
    if (isNotADatabase(error)) throw new DatabaseBackupError(`${label} is not a SQLite database`);
    throw error;
  }
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new DatabaseBackupError(`${label} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`);
  }
  const names = connection.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all([]) as Array<{ name: string }>;
  const tables = names.map(({ name }) => {
    const [row] = connection.prepare(`select count(*) as n from "${name.replaceAll('"', '""')}"`).all([]) as Array<{ n: number | bigint }>;
    return { table: name, rows: Number(row?.n ?? 0) };
  });
  const migrations = names.some(({ name }) => name === 'kysely_migration')
    ? (connection.prepare('select name from kysely_migration order by name').all([]) as Array<{ name: string }>).map((row) => row.name)
    : null;
  return { tables, totalRows: tables.reduce((sum, table) => sum + table.rows, 0), migrations };
}

/** A temporary name beside `path`, in the same folder, so that the final rename stays on one file system. */
export function temporaryPathBeside(path: string, purpose: string): string {
  return join(dirname(path), `.${basename(path)}.${purpose}-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

/** fsync of a file, so that a rename that follows cannot reach the disk before the file's content. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a folder, which makes a rename in it durable (Linux and macOS; elsewhere a folder cannot be synced). */
function syncFolder(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EISDIR/EINVAL/EPERM where folders cannot be synced: the rename is then as durable as the platform makes it.
  } finally {
    closeSync(fd);
  }
}

/** Replaces `target` with the finished file `temporary` (in the same folder) in one rename, durably. */
export function moveIntoPlace(temporary: string, target: string): void {
  syncFile(temporary);
  renameSync(temporary, target);
  syncFolder(dirname(target));
}

/** Removes a database file (a temporary copy) together with any journal, log or index SQLite left beside it. */
export function removeSqliteFile(path: string): void {
  for (const suffix of ['', ...SQLITE_SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}
