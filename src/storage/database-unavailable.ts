/**
 * Which storage errors mean "the database cannot take this request now" rather than a bug: PostgreSQL gone
 * (restart, failover, a broken connection, a statement timeout) or SQLite locked, full or failing to read its
 * file. The error handlers answer these 503 with Retry-After (RFC 9110 §10.2.3) and log them as a warning
 * without a stack trace: the fault is the operator's to fix, and the request may simply be tried again.
 */
import { isConnectionError } from './connection-errors.js';
import { isSqliteBusy } from './sqlite/connection.js';

/** PostgreSQL's query_canceled (statement_timeout) and SQLite's result codes of a full or failing disk. */
const UNAVAILABLE_CODES = new Set(['57014', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PROTOCOL']);
/** node:sqlite's primary result codes for the same: SQLITE_IOERR 10, SQLITE_FULL 13, SQLITE_CANTOPEN 14, SQLITE_PROTOCOL 15, SQLITE_READONLY 8. */
const UNAVAILABLE_SQLITE_ERRCODES = new Set([8, 10, 13, 14, 15]);

/** How long a client should wait before trying again while the database is away (seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isConnectionError(error) || isSqliteBusy(error)) return true;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && [...UNAVAILABLE_CODES].some((known) => code === known || code.startsWith(`${known}_`))) return true;
  return typeof errcode === 'number' && UNAVAILABLE_SQLITE_ERRCODES.has(errcode & 0xff);
}

/**
 * Runs `attempt` until it succeeds or fails with something other than the database being unreachable, waiting
 * 0.5 s, 1 s, 2 s … up to 30 s between tries, and telling `onWait` each time. For the steps a process takes
 * before it serves (migrations): an outage at start delays the start instead of ending the process, which a
 * supervisor that gives up after N crashes would turn into a permanent outage. `signal` stops the waiting.
 */
export async function retryWhileDatabaseUnavailable<T>(
  attempt: () => Promise<T>,
  onWait: (error: Error, delayMs: number) => void,
  signal?: AbortSignal,
): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      // Only a database that may come back by itself: a SQLite file that is read-only or cannot be opened is a
      // configuration error (file ownership after a restore, a wrong path), reported at once.
      if (!(isConnectionError(error) || isSqliteBusy(error)) || signal?.aborted) throw error;
      const delayMs = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
      onWait(error as Error, delayMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delayMs);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
      if (signal?.aborted) throw error;
    }
  }
}
