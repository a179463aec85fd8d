/**
 * The audit insert reuses Kysely's SQL for a row count with new values: it must bind exactly what Kysely itself
 * would bind for those rows, in the same order, on both dialects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Database } from '../database.js';
import { compileAuditInsert } from './audit-events.js';

const row = (i: number, nulls = false) => ({
  created_at: 1_764_000_000 + i,
  type: `type.${i}`,
  user_id: nulls ? null : i,
  actor_user_id: nulls ? null : 100 + i,
  client_id: nulls ? null : `client-${i}`,
  ip_address: nulls ? null : `203.0.113.${i}`,
  user_agent: nulls ? null : `agent ${i}`,
  request_id: nulls ? null : `request-${i}`,
  details: nulls ? null : JSON.stringify({ n: i }),
});

test('a cached audit insert binds the same SQL and values as a fresh Kysely compile, on SQLite and PostgreSQL', async () => {
  const sqlite = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  // Compiling needs no connection: the pool is never asked for one.
  const postgres = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ max: 1 }) }) });
  try {
    for (const db of [sqlite, postgres]) {
      for (const count of [1, 3, 7]) {
        compileAuditInsert(db, Array.from({ length: count }, (_, i) => row(i)));
        const rows = Array.from({ length: count }, (_, i) => row(10 + i, i % 2 === 1));
        const expected = db.insertInto('audit_events').values(rows).compile();
        const cached = compileAuditInsert(db, rows);
        assert.equal(cached.sql, expected.sql);
        assert.deepEqual(cached.parameters, expected.parameters);
      }
    }
  } finally {
    await sqlite.destroy();
    await postgres.destroy();
  }
});
