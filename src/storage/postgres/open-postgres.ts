/**
 * Latch's database on PostgreSQL: the pool, Kysely on it, and the executor the hot queries run through. Loaded
 * only for a PostgreSQL URL (open-storage.ts imports it when it needs it): a process on SQLite, above all a
 * command-line run, does not pay for loading the driver (about an eighth of a second of CPU at each start).
 */
import { Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../database.js';
import type { OpenedDatabase, OpenStorageOptions, PoolStats } from '../open-storage.js';
import { createPostgresPool } from '../postgres-pool.js';
import { OwnSchemaPostgresDialect } from './own-schema-dialect.js';
import { postgresExecutor } from './postgres-executor.js';

export { openNotifySignal } from './notify-signal.js';

export function openPostgresDatabase(databaseUrl: string, options: OpenStorageOptions): OpenedDatabase {
  // int8 (bigint) columns hold epoch seconds and counts, all far below 2^53: read them as numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  const poolSize = options.poolSize ?? 10;
  const { pool, raw } = createPostgresPool(databaseUrl, {
    poolSize,
    statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
    schema: options.postgresSchema ?? null,
    onIdleClientError: options.onIdleConnectionError ?? (() => {}),
  });
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  const poolStats = (): PoolStats => ({ total: raw.totalCount, idle: raw.idleCount, waiting: raw.waitingCount, max: poolSize });
  // The hot queries run on the pool directly, prepared per connection (postgres-executor.ts).
  return { db, dialect: 'postgres', executor: postgresExecutor(pool, { prepare: options.preparedStatements ?? true }), signal: null, poolStats, close: () => db.destroy() };
}
