/**
 * The PostgreSQL executor (query-executor.ts): the repositories' compiled queries straight on the pool,
 * without Kysely's per-query pipeline, where every statement is a round trip to the server. What it saves:
 *
 * - Named prepared statements for the precompiled hot queries (precompiled-query.ts): the server parses and
 *   plans each once per connection, and each later run sends only its values (pg's `name` option). Any
 *   other query runs unnamed, so the statements a connection keeps are bounded by the precompiled ones.
 * - A plan's one-statement form (query-executor.ts `RunOptions.autocommit`) where it has one: statements each
 *   atomic on their own, so no BEGIN and COMMIT round trips around them.
 *
 * The pool is the retrying one of postgres-pool.ts: a connection is retried only before anything was sent,
 * a plain select once on a fresh connection; a write is never run twice.
 */
import type { CompiledQuery, PostgresPool, QueryResult } from 'kysely';
import { isPrecompiled } from '../precompiled-query.js';
import type { QueryExecutor, WritePlan } from '../query-executor.js';

/** The pooled client of postgres-pool.ts: `name` makes the statement a named prepared one. */
interface NamingClient {
  query(sqlText: string, parameters: ReadonlyArray<unknown>, name?: string): Promise<{ command?: string; rowCount?: number | null; rows: unknown[] }>;
  release(): void;
}

/** Commands whose rowCount is the number of rows they changed (as Kysely's PostgresDriver reads it). */
const CHANGING_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

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

  return {
    read: (query) => withClient((client) => execute(client, query)),
    write: (query) => withClient((client) => execute(client, query)),
    run: (plan, options) => {
      if (options?.autocommit) {
        // The plan's generator was created but never started: nothing of it has run.
        plan.return(undefined as never);
        return runEach(options.autocommit());
      }
      return runInTransaction(plan);
    },
  };
}
