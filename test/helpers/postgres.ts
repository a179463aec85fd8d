/**
 * PostgreSQL for tests: the server on the CI machine (`LATCH_TEST_POSTGRES_URL`, default
 * postgres://postgres@127.0.0.1:5432/test), one freshly created schema per run so that parallel runs never
 * collide, dropped afterwards. Tests that need it are skipped, with the reason, when it is unreachable.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const POSTGRES_TEST_URL = process.env.LATCH_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

let reachable: Promise<string | null> | undefined;

/** Null when PostgreSQL answers; otherwise why not, for the skip message. */
export function postgresUnavailableReason(): Promise<string | null> {
  reachable ??= (async () => {
    // Generous: a busy test process (a shared group loading its modules) can hold its event loop for seconds.
    const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, connectionTimeoutMillis: 15_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return `PostgreSQL is unreachable at ${POSTGRES_TEST_URL} (${(error as Error).message}); set LATCH_TEST_POSTGRES_URL to run these tests`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

/** Runs SQL as the test superuser, outside any Latch pool. */
export async function runAdminSql(text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  name: string;
  drop(): Promise<void>;
}

/** A new empty schema with a unique name (`latch_test_…`); drop() removes it with everything in it. */
export async function createTestSchema(prefix = 'latch_test'): Promise<TestSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await runAdminSql(`create schema ${name}`);
  return { name, drop: () => runAdminSql(`drop schema if exists ${name} cascade`).then(() => undefined) };
}
