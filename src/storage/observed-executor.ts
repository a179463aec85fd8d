/**
 * A QueryExecutor that tells an observer when each query starts and ends: how metrics time the queries and
 * how tracing gives each its span (observability/). Only wrapped around the executor when something observes
 * (open-storage.ts `queryObserver`); without an observer the repositories run on the bare executor, at no cost.
 *
 * What is timed is the wait of the repository that asked: until the result is there, a group commit's wait for
 * the end of the turn included (sqlite/group-commit.ts), a cached read (cached-storage.ts) never.
 */
import type { CompiledQuery } from 'kysely';
import type { PlanOf, QueryExecutor, RunOptions } from './query-executor.js';

/** read: a select on committed data; write: one statement that writes; transaction: every statement of a plan. */
export type QueryOperation = 'read' | 'write' | 'transaction';

export interface QueryObserver<Started = unknown> {
  /** Called as the query is handed to the executor; `query` is null for a plan (its statements are not known yet). */
  start(operation: QueryOperation, query: CompiledQuery | null): Started;
  /** Called once, when the result or the error is there, with what `start` returned. */
  end(operation: QueryOperation, started: Started, failed: boolean): void;
}

/** Waits for a query the executor has already started, then tells the observer how it ended. */
async function settle<T>(observer: QueryObserver, operation: QueryOperation, started: unknown, result: Promise<T>): Promise<T> {
  try {
    const value = await result;
    observer.end(operation, started, false);
    return value;
  } catch (error) {
    observer.end(operation, started, true);
    throw error;
  }
}

/** The executor with every call observed; each call still reaches the executor at once, in the same turn. */
export function observedExecutor(executor: QueryExecutor, observer: QueryObserver): QueryExecutor {
  return {
    read(query) {
      const started = observer.start('read', query);
      return settle(observer, 'read', started, executor.read(query));
    },
    write(query) {
      const started = observer.start('write', query);
      return settle(observer, 'write', started, executor.write(query));
    },
    run<T>(plan: PlanOf<T>, options?: RunOptions<T>) {
      const started = observer.start('transaction', null);
      return settle(observer, 'transaction', started, executor.run(plan, options));
    },
  };
}
