/**
 * The PostgreSQL connection pool Kysely runs on, with retries only where they cannot repeat a side effect:
 *
 * - acquiring a connection (nothing has been sent yet), on connection-class errors, a few times with backoff,
 *   so that a database restart or failover costs a short wait rather than failed requests;
 * - a plain `select` outside a transaction whose connection broke under it (idempotent read), once, on a
 *   fresh connection.
 *
 * Writes are never retried: when a connection breaks during an update its outcome is unknown, and running it
 * again could, for example, consume an authorization code twice. Those errors reach the caller.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { isConnectionError } from './connection-errors.js';

export interface RetryPolicy {
  /** Connection attempts before giving up (default 4). */
  connectAttempts: number;
  /** Delay before the first retry; doubles each time (default 100 ms). */
  connectBackoffMs: number;
  /**
   * Once every attempt has failed, how long further connects fail at once with the same error instead of
   * trying again (default 1000 ms): while the database is away, requests are answered 503 without each waiting
   * out its own retries, and one request a second probes whether it is back.
   */
  unreachableHoldMs: number;
}

const DEFAULT_RETRY_POLICY: RetryPolicy = { connectAttempts: 4, connectBackoffMs: 100, unreachableHoldMs: 1000 };

/** A new connection that timed out already waited its whole timeout: trying again would only multiply the wait. */
const isConnectTimeout = (error: unknown) => /connection timeout/i.test((error as Error)?.message ?? '');
/**
 * A request that waited its whole timeout in the pool's queue: every connection is busy, but the database is
 * there. Answered 503 like an outage (the caller may retry), but it must not make the next requests fail at once.
 */
const isPoolQueueTimeout = (error: unknown) => /timeout exceeded when trying to connect/i.test((error as Error)?.message ?? '');

/** A statement that only reads: `select …` (not `with …`, which can hide a data-modifying CTE). */
export function isPlainSelect(sqlText: string): boolean {
  return /^\s*\(?\s*select\b/i.test(sqlText);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pg client type this module needs: query, and release(err) to destroy a broken connection. */
export interface RawPoolClient {
  query(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<unknown>>;
  /** A named prepared statement (pg's query config). */
  query(config: { name: string; text: string; values: ReadonlyArray<unknown> }): Promise<PostgresQueryResult<unknown>>;
  release(destroy?: boolean | Error): void;
}
export interface RawPool {
  connect(): Promise<RawPoolClient>;
  end(): Promise<void>;
}

export function createRetryingPool(pool: RawPool, policy: Partial<RetryPolicy> = {}): PostgresPool {
  const { connectAttempts, connectBackoffMs, unreachableHoldMs } = { ...DEFAULT_RETRY_POLICY, ...policy };
  let unreachable: { until: number; error: unknown } | undefined;

  async function connectWithRetry(): Promise<RawPoolClient> {
    for (let attempt = 1; ; attempt++) {
      // Checked before every attempt: a request already retrying stops as soon as another found the database away.
      if (unreachable && Date.now() < unreachable.until) throw unreachable.error;
      try {
        const client = await pool.connect();
        unreachable = undefined;
        return client;
      } catch (error) {
        if (!isConnectionError(error) || isPoolQueueTimeout(error)) throw error;
        if (attempt >= connectAttempts || isConnectTimeout(error)) {
          unreachable = { until: Date.now() + unreachableHoldMs, error };
          throw error;
        }
        await sleep(connectBackoffMs * 2 ** (attempt - 1));
      }
    }
  }

  return {
    async connect() {
      let client: RawPoolClient | undefined = await connectWithRetry();
      let inTransaction = false;
      const wrapped = {
        // `name`: a named prepared statement (postgres/postgres-executor.ts), parsed once per connection by pg.
        async query(sqlText: string, parameters: ReadonlyArray<unknown>, name?: string) {
          const keyword = /^\s*(\w+)/.exec(sqlText)?.[1]?.toLowerCase();
          if (keyword === 'begin' || keyword === 'start') inTransaction = true;
          if (!client) {
            // The server ended the transaction with the connection; there is nothing left to roll back.
            if (keyword === 'rollback') {
              inTransaction = false;
              return { command: 'SELECT', rowCount: 0, rows: [] } as unknown as PostgresQueryResult<unknown>;
            }
            // 08006 connection_failure, so that callers classify it with the other connection errors.
            throw Object.assign(new Error('The PostgreSQL connection was lost in the middle of a transaction'), { code: '08006' });
          }
          try {
            return await (name === undefined ? client.query(sqlText, parameters) : client.query({ name, text: sqlText, values: parameters }));
          } catch (error) {
            if (!isConnectionError(error)) throw error;
            // The connection is gone: destroy it rather than hand it back to the pool for the next request.
            const broken: RawPoolClient = client;
            client = undefined;
            broken.release(error as Error);
            if (inTransaction || !isPlainSelect(sqlText)) throw error;
            // The read changed nothing, so run it once more on a fresh connection.
            client = await connectWithRetry();
            return await (name === undefined ? client.query(sqlText, parameters) : client.query({ name, text: sqlText, values: parameters }));
          } finally {
            if (keyword === 'commit' || keyword === 'rollback' || keyword === 'end') inTransaction = false;
          }
        },
        release() {
          client?.release();
          client = undefined;
        },
      };
      return wrapped as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

export interface PostgresPoolOptions {
  poolSize: number;
  statementTimeoutMs: number;
  schema: string | null;
  /** Told about connection errors outside any query: idle pooled connections and checked-out ones between queries. */
  onIdleClientError?: (error: Error) => void;
}

/** How long opening a connection may take before it counts as failed (a database that does not answer at all). */
const CONNECT_TIMEOUT_MS = 3000;

export function createPostgresPool(connectionString: string, options: PostgresPoolOptions): { pool: PostgresPool; raw: pg.Pool } {
  // Server-side settings sent at connection start, so that every pooled connection has them from its first query.
  const settings = [`-c statement_timeout=${options.statementTimeoutMs}`];
  if (options.schema) settings.push(`-c search_path=${options.schema}`);
  const raw = new pg.Pool({
    connectionString,
    max: options.poolSize,
    options: settings.join(' '),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'latch',
  });
  // An idle client's error reaches both its own listener and the pool's: report it once.
  const reported = new WeakSet<Error>();
  const onError = (error: Error) => {
    if (reported.has(error)) return;
    reported.add(error);
    options.onIdleClientError?.(error);
  };
  // A connection that the server closes (restart, failover, pg_terminate_backend) emits 'error' on its client,
  // whether a query is running on it or not; an 'error' event without a listener ends the process. pg-pool
  // listens only while a client is idle (and re-emits on the pool), so every client gets a listener of its own
  // for the time it is checked out. The query that was running fails on its own; a broken client is destroyed
  // when released (pg-pool checks that it is still queryable).
  raw.on('error', onError);
  raw.on('connect', (client) => client.on('error', onError));
  return { pool: createRetryingPool(raw as unknown as RawPool), raw };
}
