/**
 * Reading a test server's SQLite file directly, through a second read-only connection, so that tests can
 * check "a failed request changes nothing" and "only hashes are stored" without going through the code
 * under test.
 */
import { join } from 'node:path';
import { openSqlite, type SqliteConnection } from '../../src/storage/sqlite-connection.js';

/** The tables that hold protocol state; client_events is left out because failures are meant to be recorded there. */
export const STATE_TABLES = ['users', 'clients', 'authorization_codes', 'access_tokens', 'consents', 'browser_sessions'] as const;
export type StateTable = (typeof STATE_TABLES)[number] | 'client_events';

// The same driver Latch itself uses on this Node (better-sqlite3 aborts on Node 24; see sqlite-connection.ts).
function withDatabase<T>(dataDir: string, fn: (db: SqliteConnection) => T): T {
  const db = openSqlite(join(dataDir, 'latch.db'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Every row of every state table, ordered, so that two snapshots compare with deepEqual. */
export function snapshotState(dataDir: string): Record<string, unknown[]> {
  return withDatabase(dataDir, (db) => {
    const snapshot: Record<string, unknown[]> = {};
    for (const table of STATE_TABLES) snapshot[table] = db.prepare(`select * from ${table} order by 1, 2`).all([]).map((row) => ({ ...(row as object) }));
    return snapshot;
  });
}

export function countRows(dataDir: string, table: StateTable): number {
  return withDatabase(dataDir, (db) => (db.prepare(`select count(*) as n from ${table}`).all([])[0] as { n: number }).n);
}

export function selectRows<T = Record<string, unknown>>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  return withDatabase(dataDir, (db) => db.prepare(sql).all(params).map((row) => ({ ...(row as object) })) as T[]);
}
