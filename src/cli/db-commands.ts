/**
 * `latch db …`: moving a Latch database (docs/protocol-decisions.md "Several processes";
 * src/storage/database-copy.ts does the work), and backing up and restoring the embedded one
 * (README "Backup and restore"; src/storage/database-backup.ts and database-restore.ts).
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import { sqlitePath } from '../storage/database-url.js';
import { copyDatabase } from '../storage/database-copy.js';
import { backupDatabase } from '../storage/database-backup.js';
import { restoreDatabase } from '../storage/database-restore.js';
import type { TableRows } from '../storage/sqlite/file.js';
import { UsageError } from './output.js';
import type { Terminal } from './terminal.js';

export const DB_USAGE = `latch db copy --from URL --to URL [--from-schema S] [--to-schema S] [--force]
                                  Copy every row to another database (e.g. sqlite:data/latch.db to postgres://…),
                                  verify the counts; refuses a non-empty target unless --force
latch db backup FILE [--force]    Snapshot the embedded database of LATCH_DATABASE_URL into FILE, while Latch
                                  serves, at the lowest CPU priority (nice 19); refuses an existing FILE
                                  unless --force
latch db restore FILE             Replace the embedded database of LATCH_DATABASE_URL with the backup FILE;
                                  refuses while a Latch process uses it (stop latch serve first)`;

const SECRET_REMINDER =
  'A restore needs the same LATCH_SECRET as the database it was taken from (on the embedded default it is the file data/secret, beside latch.db): the private parts of the signing keys are encrypted under it, and Latch refuses to start without it.\n';

function checkDatabaseUrl(flag: string, url: string | undefined): string {
  if (!url) throw new UsageError(`latch db copy needs ${flag} URL (sqlite:PATH or postgres://…)`);
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(url)) throw new UsageError(`${flag} must start with sqlite: or postgres:// (got "${url}")`);
  return url;
}

/**
 * The file of the embedded database of LATCH_DATABASE_URL (default as in config.ts). Read here rather than
 * through loadConfig, which creates a new data/secret beside a database that has none: beside a restored
 * database that would be the wrong secret, which the restored signing keys cannot be decrypted with.
 */
function embeddedDatabasePath(command: 'backup' | 'restore', env: NodeJS.ProcessEnv): string {
  const url = env.LATCH_DATABASE_URL || 'sqlite:data/latch.db';
  const path = sqlitePath(url);
  if (path === null) {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError(`LATCH_DATABASE_URL must start with sqlite: or postgres:// (got "${url}")`);
    const tool = command === 'backup' ? 'pg_dump --format=custom' : 'pg_restore --clean';
    throw new UsageError(`latch db ${command} works on the embedded SQLite database; for PostgreSQL use ${tool} (README "Backup and restore")`);
  }
  if (path === ':memory:' || path === '') throw new UsageError(`latch db ${command} needs a database file; LATCH_DATABASE_URL is "${url}"`);
  return path;
}

function fileArgument(command: 'backup' | 'restore', positionals: string[]): string {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError(`latch db ${command} needs one FILE\n\n${DB_USAGE}`);
  return file;
}

function printTables(terminal: Terminal, tables: TableRows[]): void {
  for (const { table, rows } of tables) terminal.stdout.write(`${table.padEnd(26)} ${rows}\n`);
}

function duration(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds.toFixed(0)} ms` : `${(milliseconds / 1000).toFixed(2)} s`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(bytes < 10_485_760 ? 2 : 1)} MB`;
}

/**
 * A backup is background maintenance beside a serving Latch: it runs at the lowest CPU priority (nice 19), so
 * that on a busy machine the server's requests go first and the backup takes longer. Linux keeps a nice value
 * per thread: every thread of this process gets it (threads started later inherit it). Node cannot set an I/O
 * priority, but Linux derives a thread's default one from its nice value (best-effort class, level 7 at nice 19)
 * under the BFQ scheduler; the none and mq-deadline schedulers have no priorities. Returns whether it was lowered.
 */
function lowerOwnPriority(): boolean {
  let threads = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc (macOS): this thread only; libuv's threads are started later and inherit it.
  }
  let lowered = false;
  for (const thread of threads) {
    try {
      setPriority(thread, 19);
      lowered = true;
    } catch {
      // A thread that ended meanwhile, or a system that refuses: the backup still runs.
    }
  }
  return lowered;
}

async function runBackup(args: string[], terminal: Terminal): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { force: { type: 'boolean', default: false } } });
  const file = fileArgument('backup', positionals);
  const lowered = terminal.ownsProcess && lowerOwnPriority();
  const report = await backupDatabase(embeddedDatabasePath('backup', terminal.env), file, { force: values.force });
  printTables(terminal, report.tables);
  terminal.stdout.write(
    `Wrote ${report.file}: ${megabytes(report.bytes)}, ${report.totalRows} rows in ${report.tables.length} tables, integrity check ok.\n` +
      `Snapshot as of ${report.snapshotAt.toISOString()}, taken in ${duration(report.snapshotMilliseconds)} (${duration(report.totalMilliseconds)} in all)` +
      `${lowered ? ', at the lowest CPU priority (nice 19): a background task that lets the server go first' : ''}.\n`,
  );
  terminal.stderr.write(
    'Keep LATCH_SECRET with the backup (on the embedded default it is the file data/secret, beside latch.db): a restore needs it, the private parts of the signing keys are encrypted under it.\n',
  );
}

function runRestore(args: string[], terminal: Terminal): void {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const file = fileArgument('restore', positionals);
  const target = embeddedDatabasePath('restore', terminal.env);
  const report = restoreDatabase(target, file);
  printTables(terminal, report.tables);
  terminal.stdout.write(`Restored ${file} into ${target}: ${report.totalRows} rows in ${report.tables.length} tables, integrity check ok.\n`);
  terminal.stdout.write(
    report.pendingMigrations.length === 0
      ? 'The backup has every migration of this Latch.\n'
      : `The backup is older than this Latch: ${report.pendingMigrations.length} migration(s) (${report.pendingMigrations.join(', ')}) are applied at the next start (latch serve, or latch migrate).\n`,
  );
  if (report.replacedKeptAs) terminal.stdout.write(`The database it replaced is kept as ${report.replacedKeptAs}: delete it once the restore is confirmed.\n`);
  terminal.stderr.write(SECRET_REMINDER);
}

async function runCopy(args: string[], terminal: Terminal): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'from-schema': { type: 'string' },
      'to-schema': { type: 'string' },
      force: { type: 'boolean', default: false },
    },
  });
  const from = { url: checkDatabaseUrl('--from', values.from), schema: values['from-schema'] ?? null };
  const to = { url: checkDatabaseUrl('--to', values.to), schema: values['to-schema'] ?? null };
  for (const schema of [from.schema, to.schema]) {
    if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new UsageError(`A schema must be a lower-case SQL identifier (got "${schema}")`);
  }
  const report = await copyDatabase(from, to, {
    force: values.force,
    onTable: (table, rows) => terminal.stdout.write(`${table.padEnd(22)} ${rows}\n`),
  });
  terminal.stdout.write(`Copied ${report.totalRows} rows in ${report.tables.length} tables; row counts verified.\n`);
  terminal.stderr.write(
    'Start the new deployment with the same LATCH_SECRET as the old one (on the embedded default it is in the data folder, data/secret): signing keys and forms depend on it.\n',
  );
}

export async function runDbCommand(args: string[], terminal: Terminal): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'copy') await runCopy(rest, terminal);
  else if (subcommand === 'backup') await runBackup(rest, terminal);
  else if (subcommand === 'restore') runRestore(rest, terminal);
  else throw new UsageError(`Unknown command: latch db ${subcommand ?? ''}\n\n${DB_USAGE}`);
}
