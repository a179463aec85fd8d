/**
 * Reading a test server's tables directly, with plain queries beside the repositories, so that tests can
 * check "a failed request changes nothing" and "only hashes are stored" without trusting the code under test.
 * Works on SQLite and PostgreSQL alike (LATCH_TEST_DATABASE).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/database.js';
import type { TestServer } from './test-server.js';

/** The tables that hold protocol state; client_events is left out because failures are meant to be recorded there. */
export const STATE_TABLES = ['users', 'clients', 'authorization_codes', 'access_tokens', 'consents', 'browser_sessions'] as const;
export type StateTable = (typeof STATE_TABLES)[number] | 'client_events' | 'service_tokens' | 'registration_tokens';

function databaseOf(server: TestServer): Kysely<Database> {
  const db = (server.storage as { db?: Kysely<Database> }).db;
  if (!db) throw new Error('the test server storage does not expose its Kysely instance');
  return db;
}

/** Every row of every state table, in a fixed order, so that two snapshots compare with deepEqual. */
export async function snapshotState(server: TestServer): Promise<Record<string, unknown[]>> {
  const db = databaseOf(server) as unknown as Kysely<any>;
  const snapshot: Record<string, unknown[]> = {};
  for (const table of STATE_TABLES) {
    const rows = await db.selectFrom(table).selectAll().execute();
    snapshot[table] = rows.map((row) => ({ ...row })).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return snapshot;
}

export async function countRows(server: TestServer, table: StateTable): Promise<number> {
  const db = databaseOf(server) as unknown as Kysely<any>;
  const row = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Rows of one table whose columns equal the given values. */
export async function findRows(server: TestServer, table: StateTable, where: Record<string, string | number | null>): Promise<Array<Record<string, unknown>>> {
  let query = (databaseOf(server) as unknown as Kysely<any>).selectFrom(table).selectAll();
  for (const [column, value] of Object.entries(where)) query = value === null ? query.where(column, 'is', null) : query.where(column, '=', value);
  return query.execute();
}
