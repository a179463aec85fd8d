/**
 * How repositories run their compiled queries: the one seam between the plain Kysely repositories and the
 * engine underneath. Kysely itself is one executor (PostgreSQL, an in-memory SQLite database, and anything
 * bound to a transaction); the SQLite engine (sqlite/engine.ts) is the other, with synchronous reads and
 * group commit. Repositories never learn which one runs them.
 *
 * A write of several statements that must happen together is a plan: a generator that yields each compiled
 * statement and receives its result, so that it is written once and each executor runs it its own way (the
 * SQLite engine synchronously inside one group-commit unit, Kysely awaiting each statement in a transaction).
 * Executors take a plan as the function that starts it (PlanOf), so that one may start it again: the SQLite
 * group commit runs a batch a second time when one of its units fails (sqlite/group-commit.ts).
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './database.js';

/**
 * Statements of one atomic write, each answered with its result; the plan's return value is the write's.
 * In a plan, `(yield query) as QueryResult<Row>` runs one statement (plain yield: delegating with yield* to a
 * helper generator cost a code exchange measurable CPU and garbage).
 */
export type WritePlan<T> = Generator<CompiledQuery, T, QueryResult<unknown>>;

/**
 * A plan as the function that starts it. Each start must write the same, given the same database: a plan
 * computes from its arguments and the results of its statements only (a value it must not compute twice,
 * such as a new secret, is made once outside it).
 */
export type PlanOf<T> = () => WritePlan<T>;

/**
 * Another way to run a plan's write, for an executor where each statement is a round trip and a transaction
 * two more (PostgreSQL, postgres/postgres-executor.ts): `autocommit` gives statements that are each atomic on
 * their own (a data-modifying CTE doing the plan's whole write in one statement) and correct without a
 * transaction around them. Executors that run plans cheaply (the SQLite engine, a transaction) ignore it.
 */
export interface RunOptions<T> extends WriteOptions {
  autocommit?: () => WritePlan<T>;
  /**
   * The same write as one request among many of its kind that one statement can make together (PostgreSQL,
   * postgres/postgres-executor.ts: the writes of one turn of the event loop go to the server as one statement,
   * one round trip and one commit). Made with `batched`. A write alone in its turn, or in a batch whose
   * statement failed, runs as `autocommit` (which a batched write must have) on its own.
   */
  batch?: BatchedWrite<T>;
}

/**
 * A kind of write that one statement can make for many requests at once: each request's values go in as
 * arrays (PostgreSQL `unnest`), and the rows the statement returns are matched back to the requests. The
 * statement must answer for each request exactly as the request's own statement would, racing writes of one
 * row included (of two requests consuming one code, one wins).
 */
export interface BatchKind<I, T> {
  /** The one statement for these requests (at least two). */
  statement(inputs: readonly I[]): CompiledQuery;
  /** Each request's result, in the order of `inputs`, from what the statement returned. */
  results(inputs: readonly I[], result: QueryResult<unknown>): T[];
}

/** One request of a batch kind (RunOptions.batch): its kind and its own values. */
export interface BatchedWrite<T> {
  readonly kind: BatchKind<unknown, T>;
  readonly input: unknown;
}

/**
 * A batch kind made once per database, on first use: the executor groups writes by their kind's identity, so every
 * write of one kind on one database must name the same object.
 */
export function batchKindPerDatabase<I, T>(make: (db: Kysely<Database>) => BatchKind<I, T>): (db: Kysely<Database>) => BatchKind<I, T> {
  const kinds = new WeakMap<Kysely<Database>, BatchKind<I, T>>();
  return (db) => {
    let kind = kinds.get(db);
    if (!kind) kinds.set(db, (kind = make(db)));
    return kind;
  };
}

export function batched<I, T>(kind: BatchKind<I, T>, input: I): BatchedWrite<T> {
  return { kind: kind as BatchKind<unknown, T>, input };
}

/**
 * A batch kind's statement for one write alone, as its `autocommit` form: one statement, atomic on its own, for
 * a write alone in its turn or one whose batch the server refused. One statement to keep right per kind of
 * write instead of two.
 */
export function* aloneInBatch<I, T>(kind: BatchKind<I, T>, input: I): WritePlan<T> {
  const result = (yield kind.statement([input])) as QueryResult<unknown>;
  return kind.results([input], result)[0]!;
}

export interface WriteOptions {
  /**
   * The write may wait a moment for a commit that happens anyway (the SQLite engine's group commit,
   * sqlite/group-commit.ts writeWithNext): for writes nobody waits on, such as buffered audit events. Readers
   * of what such writes write read with ReadOptions.seeDeferredWrites. Other executors write at once.
   */
  deferrable?: boolean;
}

export interface ReadOptions {
  /** See every deferrable write this process has made (they are committed first, if any is waiting). */
  seeDeferredWrites?: boolean;
}

export interface QueryExecutor {
  /** Runs a select on committed data. */
  read<Row>(query: CompiledQuery<Row>, options?: ReadOptions): Promise<QueryResult<Row>>;
  /** Runs one statement that writes, atomically on its own. */
  write<Row>(query: CompiledQuery<Row>, options?: WriteOptions): Promise<QueryResult<Row>>;
  /** Runs every statement of a plan or none: a plan that throws writes nothing. */
  run<T>(plan: PlanOf<T>, options?: RunOptions<T>): Promise<T>;
}

/** Runs a plan with a synchronous `execute` (the SQLite engine, inside a write unit). */
export function runPlanNow<T>(plan: WritePlan<T>, execute: (query: CompiledQuery) => QueryResult<unknown>): T {
  let next = plan.next();
  while (!next.done) next = plan.next(execute(next.value));
  return next.value;
}

async function runPlanOn<T>(db: Kysely<Database>, plan: WritePlan<T>): Promise<T> {
  let next = plan.next();
  while (!next.done) next = plan.next(await db.executeQuery(next.value));
  return next.value;
}

/** Kysely as the executor: a plan runs in a transaction, or in the one `db` is already bound to. */
export function kyselyExecutor(db: Kysely<Database>): QueryExecutor {
  return {
    read: (query) => db.executeQuery(query),
    write: (query) => db.executeQuery(query),
    run: (plan) => (db.isTransaction ? runPlanOn(db, plan()) : db.transaction().execute((trx) => runPlanOn(trx, plan()))),
  };
}
