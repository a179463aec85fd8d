/**
 * WAL checkpoints off the event loop, for a serving process on the embedded database.
 *
 * SQLite copies the WAL back into the database file (a checkpoint) from inside the COMMIT that takes the WAL
 * past 1,000 pages: several megabytes copied and an fsync, synchronously, on whichever connection commits,
 * which for a server is its event loop, where it shows in the p99 of every request. So a serving process
 * checkpoints from a worker thread with its own connection, PASSIVE (it never waits for, nor blocks, the
 * writer and the readers), every 50 ms; the writer's automatic checkpoint stays as a safety net at a threshold
 * the worker keeps it far from. Every 50 ms rather than 200: the thread shares a core with the event loop when
 * the machine is busy, and a shorter checkpoint keeps the event loop waiting for less (BENCHMARKS.md, "WAL
 * checkpoints on a worker thread, every 50 ms"). While nobody writes (`PRAGMA data_version` unchanged) the worker
 * looks less often, up to every 200 ms: twenty checkpoints a second cost an idle server about 1.9 ms of CPU a second
 * (measured over 20 idle servers); a look at data_version is cheaper than a checkpoint, and 200 ms of writes after a
 * quiet spell stays far below the safety net before the first checkpoint catches up.
 * Durability is the same: a checkpoint only moves committed pages from the WAL into the database file.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqliteDriverName } from './connection.js';

const require = createRequire(import.meta.url);
const INTERVAL_MS = 50;
/** The longest wait while the database is quiet: the interval doubles up to it, and drops back at the next write. */
const IDLE_INTERVAL_MS = 200;
/** The writer checkpoints itself only when the worker has fallen this far behind (pages, about 40 MiB). */
export const SAFETY_NET_AUTOCHECKPOINT_PAGES = 10_000;

// Plain JavaScript, run as the worker's source: a file of its own would need a build step under tsx.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { path, driver, driverPath, intervalMs, idleIntervalMs } = workerData;
let database;
if (driver === 'node:sqlite') {
  const { DatabaseSync } = require('node:sqlite');
  database = new DatabaseSync(path);
} else {
  const BetterSqlite3 = require(driverPath);
  database = new BetterSqlite3(path);
}
database.exec('PRAGMA busy_timeout = 0');
const checkpoint = () => {
  try {
    database.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch (error) {
    // Busy (another checkpoint runs): the next tick tries again.
  }
};
// data_version changes when another connection has committed since this one last looked.
const versionStatement = database.prepare('PRAGMA data_version');
const dataVersion = () => {
  try {
    return versionStatement.get().data_version;
  } catch (error) {
    return null;
  }
};
let seenVersion;
let delay = intervalMs;
let timer;
const tick = () => {
  const version = dataVersion();
  if (version === null || version !== seenVersion) {
    seenVersion = version;
    checkpoint();
    delay = intervalMs;
  } else {
    delay = Math.min(delay * 2, idleIntervalMs);
  }
  timer = setTimeout(tick, delay);
};
timer = setTimeout(tick, delay);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearTimeout(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
`;

export class SqliteCheckpointer {
  private readonly exited: Promise<void>;

  private constructor(private readonly worker: Worker) {
    this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // A worker that cannot start (no driver, unreadable file) leaves checkpoints to the writer's safety net.
    worker.on('error', () => {});
  }

  static start(path: string, driver: SqliteDriverName): SqliteCheckpointer {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, driver, driverPath: driver === 'better-sqlite3' ? require.resolve('better-sqlite3') : null, intervalMs: INTERVAL_MS, idleIntervalMs: IDLE_INTERVAL_MS },
    });
    // Never keeps the process alive on its own; close() ends it with a last checkpoint.
    worker.unref();
    return new SqliteCheckpointer(worker);
  }

  /** A last checkpoint, then the worker's connection closes. */
  async close(): Promise<void> {
    // Referenced again, or the event loop could end before the worker does, leaving this promise pending.
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }
}
