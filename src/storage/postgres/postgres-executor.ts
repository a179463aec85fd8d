/**
 * The PostgreSQL executor (query-executor.ts): the repositories' compiled queries straight on the pool,
 * without Kysely's per-query pipeline, where every statement is a round trip to the server. What it saves:
 *
 * - Named prepared statements for the precompiled hot queries (precompiled-query.ts): the server parses and
 *   plans each once per connection, and each later run sends only its values (pg's `name` option). Any
 *   other query runs unnamed, so the statements a connection keeps are bounded by the precompiled ones.
 * - A plan's one-statement form (query-executor.ts `RunOptions.autocommit`) where it has one: statements each
 *   atomic on their own, so no BEGIN and COMMIT round trips around them.
 * - Batches (query-executor.ts `RunOptions.batch`): the writes of one kind that arrive in one turn of the event
 *   loop (the code exchanges of the requests read in it) go as one statement: one round trip, one parse of
 *   the result, one commit (one WAL flush) for all of them, where each write alone cost the server most of
 *   its CPU in its own commit and Latch a statement's driver overhead (BENCHMARKS.md, "PostgreSQL: one
 *   statement for the exchanges of a turn"). A write alone in its turn runs as its own statement.
 * - At most BATCHES_IN_FLIGHT statements of one kind at a time: the writes that arrive while they run wait and
 *   go together in the next one, so the busier the server, the larger the batches (fewer statements and
 *   commits for PostgreSQL to run, where a statement per turn split a burst into many small ones that queued for
 *   the pool's connections). An idle server waits for nothing: with nothing in flight, a write goes at the end
 *   of its turn, as before (BENCHMARKS.md, "PostgreSQL: the next batch waits for the one in flight").
 *
 * The pool is the retrying one of postgres-pool.ts: a connection is retried only before anything was sent,
 * a plain select once on a fresh connection; a write is never run twice.
 */
import type { CompiledQuery, PostgresPool, QueryResult } from 'kysely';
import { isPrecompiled } from '../precompiled-query.js';
import type { BatchedWrite, BatchKind, QueryExecutor, WritePlan } from '../query-executor.js';

/** The pooled client of postgres-pool.ts: `name` makes the statement a named prepared one. */
interface NamingClient {
  query(sqlText: string, parameters: ReadonlyArray<unknown>, name?: string): Promise<{ command?: string; rowCount?: number | null; rows: unknown[] }>;
  release(): void;
}

/** Commands whose rowCount is the number of rows they changed (as Kysely's PostgresDriver reads it). */
const CHANGING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** Most writes one batch statement takes: their value arrays stay small next to a statement's limits. */
export const MAX_BATCH = 256;

/** Batch statements of one kind running at once; the writes that come meanwhile wait for the next (see above). */
export const BATCHES_IN_FLIGHT = 1;

interface Waiting {
  input: unknown;
  single: () => WritePlan<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * An error the server answered a statement with (pg's DatabaseError: a SQLSTATE and a severity): the statement
 * was rolled back whole. Not a lost connection, after which a write may or may not have been committed.
 */
function isStatementError(error: unknown): boolean {
  return error instanceof Error && (error as { severity?: unknown }).severity === 'ERROR';
}

export interface PostgresExecutorOptions {
  /** Name the precompiled queries (default true); false for a pooler that cannot keep prepared statements. */
  prepare?: boolean;
}

export function postgresExecutor(pool: PostgresPool, { prepare = true }: PostgresExecutorOptions = {}): QueryExecutor {
  // One name per distinct SQL text of a precompiled query, the same in every connection (pg prepares a name on
  // a connection the first time it runs there).
  const names = new Map<string, string>();
  const nameOf = (query: CompiledQuery): string | undefined => {
    if (!prepare || !isPrecompiled(query)) return undefined;
    let name = names.get(query.sql);
    if (name === undefined) {
      name = `latch_${names.size + 1}`;
      names.set(query.sql, name);
    }
    return name;
  };

  async function execute<Row>(client: NamingClient, query: CompiledQuery): Promise<QueryResult<Row>> {
    const result = await client.query(query.sql, query.parameters, nameOf(query));
    return {
      rows: result.rows as Row[],
      ...(result.command && CHANGING_COMMANDS.has(result.command) && { numAffectedRows: BigInt(result.rowCount ?? 0) }),
    };
  }

  async function withClient<T>(fn: (client: NamingClient) => Promise<T>): Promise<T> {
    const client = (await pool.connect()) as unknown as NamingClient;
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  /** Statements each atomic on its own, on one connection, no transaction around them. */
  function runEach<T>(plan: WritePlan<T>): Promise<T> {
    return withClient(async (client) => {
      let next = plan.next();
      while (!next.done) next = plan.next(await execute(client, next.value));
      return next.value;
    });
  }

  /** Every statement of the plan in one transaction: a plan that throws, or a statement that fails, writes nothing. */
  function runInTransaction<T>(plan: WritePlan<T>): Promise<T> {
    return withClient(async (client) => {
      await client.query('begin', []);
      try {
        let next = plan.next();
        while (!next.done) next = plan.next(await execute(client, next.value));
        await client.query('commit', []);
        return next.value;
      } catch (error) {
        // A connection lost meanwhile has nothing left to roll back (postgres-pool.ts answers for it).
        await client.query('rollback', []).catch(() => {});
        throw error;
      }
    });
  }

  // A new Map each turn, never `clear()`: V8's Map.clear() leaves the old hash table pointing to the new one with
  // its entries in place, and once such a table has been promoted (the Map is long-lived), the young generation's
  // collector keeps every later table it leads to, and the writes, requests and promises in them, alive until
  // the next full collection. Measured at a fixed 1,822 exchanges/s: 1.4 MB promoted per scavenge and 3–8 ms
  // scavenges with clear(); 0.13–0.23 MB and ~1 ms with a new Map, as long as V8 pretenures nothing of a request
  // (cli/serving-heap.ts; BENCHMARKS.md, "Young-generation promotion on PostgreSQL").
  let waiting = new Map<BatchKind<unknown, unknown>, Waiting[]>();
  let flushScheduled = false;

  function enqueue<T>(batch: BatchedWrite<T>, single: () => WritePlan<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let queue = waiting.get(batch.kind);
      if (!queue) waiting.set(batch.kind, (queue = []));
      queue.push({ input: batch.input, single, resolve: resolve as (value: unknown) => void, reject });
      if (queue.length >= MAX_BATCH) {
        // A full batch goes at once, whatever is in flight: waiting would only make the next one larger still.
        waiting.delete(batch.kind);
        void startBatch(batch.kind, queue);
      } else if (!flushScheduled) {
        flushScheduled = true;
        // After the turn's I/O callbacks: every request read in this turn has queued its write by then.
        setImmediate(flush);
      }
    });
  }

  const inFlight = new Map<BatchKind<unknown, unknown>, number>();

  function flush(): void {
    flushScheduled = false;
    const batches = waiting;
    waiting = new Map();
    for (const [kind, queue] of batches) {
      // Kinds at their limit keep their writes for the next flush, which the end of a statement of theirs asks for.
      if ((inFlight.get(kind) ?? 0) >= BATCHES_IN_FLIGHT) waiting.set(kind, queue);
      else void startBatch(kind, queue);
    }
  }

  async function startBatch(kind: BatchKind<unknown, unknown>, queue: Waiting[]): Promise<void> {
    inFlight.set(kind, (inFlight.get(kind) ?? 0) + 1);
    try {
      await runBatch(kind, queue);
    } finally {
      inFlight.set(kind, inFlight.get(kind)! - 1);
      if (waiting.has(kind) && !flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    }
  }

  function runAlone(write: Waiting): Promise<void> {
    return runEach(write.single()).then(write.resolve, write.reject);
  }

  async function runBatch(kind: BatchKind<unknown, unknown>, queue: Waiting[]): Promise<void> {
    if (queue.length === 1) return runAlone(queue[0]!);
    const inputs = queue.map((write) => write.input);
    let results: unknown[];
    try {
      results = kind.results(inputs, await withClient((client) => execute(client, kind.statement(inputs))));
    } catch (error) {
      // The server refused the statement (one write's row could not be stored): nothing of it was written, so
      // each write runs on its own and only the one at fault fails. After a lost connection the batch may have
      // been committed: nothing is run twice, every write of it fails as a lone write would.
      if (isStatementError(error)) await Promise.all(queue.map(runAlone));
      else for (const write of queue) write.reject(error);
      return;
    }
    queue.forEach((write, i) => write.resolve(results[i]));
  }

  return {
    read: (query) => withClient((client) => execute(client, query)),
    write: (query) => withClient((client) => execute(client, query)),
    run: (plan, options) => {
      if (options?.autocommit) return options.batch ? enqueue(options.batch, options.autocommit) : runEach(options.autocommit());
      return runInTransaction(plan());
    },
  };
}
