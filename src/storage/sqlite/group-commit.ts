/**
 * The embedded database's engine for the hot queries (userinfo, token exchange, authorize), beside Kysely:
 *
 * - Reads run synchronously, with no trip through Kysely's connection mutex and promise chain: on Kysely's own
 *   connection when no transaction is open on it (its page cache stays valid across its own commits, where
 *   another connection must re-read pages after every commit: BENCHMARKS.md, "Reads on the writer's
 *   connection"), else on a second, read-only connection, which
 *   in WAL mode sees the last committed state without waiting. Either way a read sees committed data only,
 *   never the inside of an open transaction.
 * - Writes are group-committed: every write unit that arrives while the event loop handles one round of I/O
 *   joins one transaction, where a unit that fails undoes only itself (runEachUndoable), and
 *   every caller is answered only after COMMIT returns. Durability is unchanged (the same WAL commit with
 *   the shipped `synchronous` setting, before any response); what is shared is the commit's cost, which
 *   otherwise dominates a code exchange (BEGIN, COMMIT and the WAL frames of every index page touched).
 *   Units run on Kysely's own connection while holding its mutex, so they never interleave with a Kysely
 *   transaction.
 *
 * Repositories reach it only through the QueryExecutor that engine.ts builds over it; repositories bound to a
 * transaction (Storage.transaction) run on that transaction through Kysely instead.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from '../database.js';
import { BUSY_TIMEOUT_MS, isSqliteBusy, openSqlite, type SqliteConnection } from './connection.js';
import { atTurnEnd } from './turn-end.js';

/** Runs one compiled query on the connection a write unit holds, synchronously. */
export type ExecuteNow = <Row>(query: CompiledQuery<Row>) => QueryResult<Row>;

/**
 * A write unit: synchronous statements through `execute`; returning a promise is a bug (it would escape the
 * transaction). A unit may be run twice in one transaction, the first run undone (runEachUndoable): it writes
 * the same each time, given the same database.
 */
export type WriteUnit<T> = (execute: ExecuteNow) => T;

interface Pending {
  unit: WriteUnit<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function runUnit(pending: Pending, execute: ExecuteNow): unknown {
  const value = pending.unit(execute);
  if (value instanceof Promise) throw new TypeError('A write unit must be synchronous');
  return value;
}

/**
 * How long a write that may wait (writeWithNext) waits for a group commit to ride along with before it commits
 * on its own: the lag of an audit event on an idle server. Under load a commit comes far sooner.
 */
export const RIDE_ALONG_MAX_WAIT_MS = 25;

function executeOn(connection: SqliteConnection, query: CompiledQuery): QueryResult<unknown> {
  const statement = connection.prepare(query.sql);
  if (statement.reader) return { rows: statement.all(query.parameters) };
  const { changes, lastInsertRowid } = statement.run(query.parameters);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

export class SqliteGroupCommit {
  private queue: Pending[] = [];
  /** Writes that may wait for the next commit that happens anyway (writeWithNext), and the last one's outcome. */
  private riders: Pending[] = [];
  private lastRider: Promise<unknown> | undefined;
  private riderTimer: ReturnType<typeof setTimeout> | undefined;
  private flushScheduled = false;
  /** A batch waits for Kysely's connection (a transaction was open); later batches queue behind it. */
  private waitingForConnection = false;
  /** Since when BEGIN has found the write lock held by another connection, and how often in a row. */
  private busySince: number | undefined;
  private busyRetries = 0;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly db: Kysely<Database>,
    private readonly writer: SqliteConnection,
    private readonly reader: SqliteConnection,
  ) {}

  /** Opens the read connection beside `db`, whose single connection is `writer`. */
  static open(db: Kysely<Database>, path: string, writer: SqliteConnection): SqliteGroupCommit {
    return new SqliteGroupCommit(db, writer, openSqlite(path, writer.driver, { readOnly: true }));
  }

  /** A read of committed data, at once. */
  read<Row>(query: CompiledQuery<Row>): QueryResult<Row> {
    return executeOn(this.writer.inTransaction() ? this.reader : this.writer, query) as QueryResult<Row>;
  }

  /** Runs `unit` in the next group commit; resolves with its result once that commit is durable. */
  write<T>(unit: WriteUnit<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ unit, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // At the turn's end: after the current round of I/O callbacks, so that the requests read in it share a commit.
        atTurnEnd(this.flushSoon);
      }
    });
  }

  /**
   * Runs `unit` with the next group commit that happens anyway, or on its own after RIDE_ALONG_MAX_WAIT_MS.
   * For writes nobody waits on and nothing reads at once (the audit trail's buffered events): each commit has a
   * fixed cost (BEGIN, COMMIT, the WAL frames of the pages touched), and a buffer written on a turn of its own
   * commits alone about as often as the requests do, doubling the commits of a code exchange under a steady
   * load. Readers that must see these writes ask for them (ridersWritten, ReadOptions.seeDeferredWrites).
   */
  writeWithNext<T>(unit: WriteUnit<T>, maxWaitMs = RIDE_ALONG_MAX_WAIT_MS): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    const written = new Promise<T>((resolve, reject) => {
      this.riders.push({ unit, resolve: resolve as (value: unknown) => void, reject });
    });
    this.lastRider = written.catch(() => undefined);
    this.riderTimer ??= setTimeout(this.commitRiders, maxWaitMs);
    return written;
  }

  /** Resolves once every write waiting to ride along has been committed (or has failed); asks for that commit now. */
  ridersWritten(): Promise<void> {
    if (this.riders.length === 0) return Promise.resolve();
    const last = this.lastRider!;
    this.commitRiders();
    return last.then(() => undefined);
  }

  /** The riders go with the commit already scheduled for this turn, or with one scheduled for them. */
  private readonly commitRiders = () => {
    if (this.riderTimer !== undefined) clearTimeout(this.riderTimer);
    this.riderTimer = undefined;
    if (this.riders.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      atTurnEnd(this.flushSoon);
    }
  };

  /**
   * With no transaction open on the writer, the batch commits at once, synchronously: Kysely runs SQLite
   * statements synchronously too, so none of its work can be half-way, and nothing can start before this
   * commit ends. Inside a Kysely transaction (BEGIN run, its caller awaiting something), the batch waits for
   * Kysely's connection, which it gets once that transaction has ended.
   */
  private readonly flushSoon = () => {
    if (!this.waitingForConnection && !this.writer.inTransaction()) {
      const batch = this.takeQueue();
      if (batch.length > 0) this.commit(batch);
      return;
    }
    this.waitingForConnection = true;
    this.flushing = this.flushing.then(() => this.flushOnKyselyConnection());
  };

  /** Finishes the writes already queued, then closes the read connection (the writer belongs to Kysely). */
  async close(): Promise<void> {
    this.closed = true;
    this.commitRiders();
    while (this.flushScheduled || this.queue.length > 0 || this.riders.length > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.flushing;
    this.reader.close();
  }

  private takeQueue(): Pending[] {
    let batch = this.queue;
    this.queue = [];
    this.flushScheduled = false;
    if (this.riders.length > 0) {
      batch = batch.length === 0 ? this.riders : batch.concat(this.riders);
      this.riders = [];
      if (this.riderTimer !== undefined) clearTimeout(this.riderTimer);
      this.riderTimer = undefined;
    }
    return batch;
  }

  private async flushOnKyselyConnection(): Promise<void> {
    try {
      // Holding Kysely's connection: no Kysely transaction is open on it meanwhile.
      await this.db.connection().execute(async () => {
        this.waitingForConnection = false;
        const batch = this.takeQueue();
        if (batch.length > 0) this.commit(batch);
      });
    } catch (error) {
      // The connection could not be had (the database was destroyed): nobody queued gets written.
      this.waitingForConnection = false;
      for (const pending of this.takeQueue()) pending.reject(error);
    }
  }

  private commit(batch: Pending[]): void {
    const execute = ((query: CompiledQuery) => executeOn(this.writer, query)) as ExecuteNow;
    try {
      if (!this.beginWithoutWaiting()) {
        this.retryLater(batch);
        return;
      }
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    let outcomes: Outcome[];
    try {
      // A lone unit needs no savepoint: if it fails, the whole transaction is rolled back, which is all it wrote.
      outcomes = batch.length === 1 ? [{ ok: true, value: runUnit(batch[0]!, execute) }] : this.runEachUndoable(batch, execute);
      this.run('commit');
    } catch (error) {
      // The transaction failed (disk full, I/O error), or its lone unit did: nothing of this batch was written.
      try {
        this.run('rollback');
      } catch {
        // Already rolled back by SQLite.
      }
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }

  /**
   * The units of a batch, so that one that fails undoes only itself. First all of them inside one savepoint:
   * a savepoint of each unit's own would make SQLite copy every page a unit first changes into that
   * savepoint's journal, and the units of a batch change the same few pages (the ends of the token tables'
   * indexes) one after another: a fifth of SQLite's work on a refresh (BENCHMARKS.md, "One savepoint per
   * batch"). A unit that fails is rare (a scope refused inside a plan, a row that cannot be stored): then
   * that savepoint is rolled back and the batch runs again, each unit in a savepoint of its own, so that only
   * the one at fault fails. The write lock is held throughout, and a unit writes the same on either run (its
   * plan starts anew, query-executor.ts PlanOf).
   */
  private runEachUndoable(batch: Pending[], execute: ExecuteNow): Outcome[] {
    this.run('savepoint latch_batch');
    try {
      const outcomes: Outcome[] = batch.map((pending) => ({ ok: true, value: runUnit(pending, execute) }));
      this.run('release latch_batch');
      return outcomes;
    } catch {
      // Throws in turn when SQLite has already rolled the whole transaction back (disk full, I/O error).
      this.run('rollback to latch_batch');
    }
    const outcomes: Outcome[] = [];
    for (const pending of batch) {
      this.run('savepoint latch_unit');
      try {
        outcomes.push({ ok: true, value: runUnit(pending, execute) });
        this.run('release latch_unit');
      } catch (error) {
        this.run('rollback to latch_unit');
        this.run('release latch_unit');
        outcomes.push({ ok: false, error });
      }
    }
    this.run('release latch_batch');
    return outcomes;
  }

  /**
   * BEGIN IMMEDIATE without SQLite's busy wait: while another process (a worker of `latch serve --workers`,
   * the CLI) holds the write lock, the busy handler would sleep on the event loop, a millisecond and more at a
   * time, stalling every request of this process. Instead the batch stays queued (later writes join it) and
   * is tried again on a later turn. False when the lock is held elsewhere.
   */
  private beginWithoutWaiting(): boolean {
    this.setBusyTimeout(0);
    try {
      this.run('begin immediate');
      this.busySince = undefined;
      this.busyRetries = 0;
      return true;
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      this.busySince ??= Date.now();
      // As long as a statement would have waited: then the batch fails as it would have.
      if (Date.now() - this.busySince >= BUSY_TIMEOUT_MS) {
        this.busySince = undefined;
        throw error;
      }
      return false;
    } finally {
      this.setBusyTimeout(BUSY_TIMEOUT_MS);
    }
  }

  /** Puts a batch that could not begin back at the head of the queue and tries again soon. */
  private retryLater(batch: Pending[]): void {
    this.queue = batch.concat(this.queue);
    this.flushScheduled = true;
    // The lock is held for one commit elsewhere (well under a millisecond): the next turn first, then a timer,
    // so that an idle process does not spin while another one holds the lock for longer.
    // (setImmediate, not atTurnEnd: this is the turn's end, whose tasks would run again at once.)
    this.busyRetries += 1;
    if (this.busyRetries <= 3) setImmediate(this.flushSoon);
    else setTimeout(this.flushSoon, 1);
  }

  private setBusyTimeout(milliseconds: number): void {
    this.run(`pragma busy_timeout = ${milliseconds}`);
  }

  private run(sql: string): void {
    const statement = this.writer.prepare(sql);
    // A pragma that sets a value answers with a row: such a statement is read, not run.
    if (statement.reader) statement.all([]);
    else statement.run([]);
  }
}
