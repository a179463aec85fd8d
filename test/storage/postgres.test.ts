/**
 * The repository conformance suite on PostgreSQL, in a schema of its own created for this run and dropped
 * after it; plus what only PostgreSQL has: pool size, statement timeout, safe retries, schema isolation.
 * Skipped, saying why, when PostgreSQL is unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { isDatabaseUnavailable } from '../../src/storage/database-unavailable.js';
import { migrateToLatest, openStorage } from '../../src/storage/open-storage.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql, type TestSchema } from '../helpers/postgres.js';
import { defineRepositorySuite } from './repositories.suite.js';

const unavailable = await postgresUnavailableReason();

if (unavailable) {
  describe('repository conformance on PostgreSQL', { skip: unavailable }, () => {});
  describe('PostgreSQL pool, timeouts and retries', { skip: unavailable }, () => {});
} else {
  defineRepositorySuite('PostgreSQL', async () => {
    const schema = await createTestSchema();
    const options = { postgresSchema: schema.name, poolSize: 5 };
    const storage = await openStorage(POSTGRES_TEST_URL, options);
    return {
      storage,
      openAnother: () => openStorage(POSTGRES_TEST_URL, { ...options, migrate: false }),
      async close() {
        await storage.close();
        await schema.drop();
      },
    };
  });

  describe('PostgreSQL pool, timeouts and retries', () => {
    let schema: TestSchema;
    before(async () => {
      schema = await createTestSchema();
      await (await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name })).close();
    });
    after(async () => schema?.drop());

    test('migrations create every table inside the configured schema, and nothing in public', async () => {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name });
      try {
        assert.equal(await storage.migrationsAreCurrent(), true);
        const { rows } = await runAdminSql('select table_name from information_schema.tables where table_schema = $1 order by 1', [schema.name]);
        const tables = rows.map((r) => r.table_name as string);
        for (const table of ['users', 'clients', 'authorization_codes', 'access_tokens', 'consents', 'browser_sessions', 'client_events', 'kysely_migration']) {
          assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`);
        }
      } finally {
        await storage.close();
      }
    });

    test('a schema that does not exist yet is created by the migrations; before them it is not current', async () => {
      const name = `${schema.name}_new`;
      try {
        const unmigrated = await openStorage(POSTGRES_TEST_URL, { postgresSchema: name, migrate: false });
        assert.equal(await unmigrated.migrationsAreCurrent(), false);
        await unmigrated.close();
        const migrated = await openStorage(POSTGRES_TEST_URL, { postgresSchema: name });
        assert.equal(await migrated.migrationsAreCurrent(), true);
        await migrated.close();
      } finally {
        await runAdminSql(`drop schema if exists ${name} cascade`);
      }
    });

    test('migrations read only their own schema: other schemas dropped while they run do not fail them', async () => {
      // Kysely's own introspector looked up every table of every schema; one dropped by another deployment or
      // test run at that moment failed the migration with 3F000 "schema … does not exist" (seen in CI).
      const others = Array.from({ length: 6 }, (_, i) => `${schema.name}_other${i}`);
      for (const other of others) await runAdminSql(`create schema ${other}; create table ${other}.t (id serial primary key)`);
      const name = `${schema.name}_racing`;
      try {
        const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: name, migrate: false });
        try {
          const tables = await storage.db.introspection.getTables();
          assert.deepEqual(tables, [], 'a schema without tables lists none, whatever other schemas hold');
          await Promise.all([
            migrateToLatest(storage, { postgresSchema: name }),
            ...others.map((other) => runAdminSql(`drop schema ${other} cascade`)),
          ]);
          assert.equal(await storage.migrationsAreCurrent(), true);
          const listed = await storage.db.introspection.getTables();
          assert.ok(listed.length > 0 && listed.every((table) => table.schema === name), JSON.stringify(listed.map((t) => t.schema)));
        } finally {
          await storage.close();
        }
      } finally {
        await runAdminSql(`drop schema if exists ${name} cascade`);
        for (const other of others) await runAdminSql(`drop schema if exists ${other} cascade`);
      }
    });

    test('the pool never opens more connections than its size', async () => {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 2, migrate: false });
      try {
        const pids = await Promise.all(
          Array.from({ length: 6 }, async () => {
            const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(storage.db);
            return rows[0]!.pid;
          }),
        );
        assert.equal(new Set(pids).size, 2);
      } finally {
        await storage.close();
      }
    });

    test('statement_timeout cancels a statement that runs too long', async () => {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, statementTimeoutMs: 100, migrate: false });
      try {
        const { rows } = await sql<{ timeout: string }>`select current_setting('statement_timeout') as timeout`.execute(storage.db);
        assert.equal(rows[0]?.timeout, '100ms');
        await assert.rejects(sql`select pg_sleep(5)`.execute(storage.db), (error: { code?: string }) => error.code === '57014');
      } finally {
        await storage.close();
      }
    });

    /** Settles like `statement`, after ending its connection from outside while it runs, as a failover would. */
    async function terminateWhileRunning<T>(statement: Promise<T>, marker: string): Promise<T> {
      const settled = statement.then((value) => ({ value }), (error: unknown) => ({ error }));
      for (let i = 0; i < 100; i++) {
        const { rowCount } = await runAdminSql(`select pg_terminate_backend(pid) from pg_stat_activity where query like $1 and pid <> pg_backend_pid()`, [`%${marker}%`]);
        if (rowCount) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const outcome = await settled;
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }

    test('a read whose connection breaks under it is retried once on a fresh connection', async () => {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 2, migrate: false });
      try {
        const marker = `read_marker_${Date.now()}`;
        const read = sql<{ ok: number }>`select 1 as ok, pg_sleep(0.3), ${sql.lit(marker)} as marker`.execute(storage.db);
        const result = await terminateWhileRunning(read, marker);
        assert.equal(result.rows[0]?.ok, 1);
      } finally {
        await storage.close();
      }
    });

    test('a write whose connection breaks under it is not retried: the error reaches the caller', async () => {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 2, migrate: false });
      try {
        const marker = `write_marker_${Date.now()}`;
        const write = sql`update users set name = name where id = (select ${sql.lit(0)} from pg_sleep(0.3)) and ${sql.lit(marker)} <> ''`.execute(storage.db);
        await assert.rejects(terminateWhileRunning(write, marker), (error: { code?: string }) => error.code === '57P01');
        // The pool recovers: the next statement gets a working connection.
        assert.equal(await storage.ping(), true);
      } finally {
        await storage.close();
      }
    });

    test('a checked-out connection terminated between two statements fails its transaction, and nothing else', async () => {
      // Before every client had an error listener of its own, this ended the process: pg emits 'error' on a
      // client whose connection breaks while no query runs, and pg-pool listens only to idle clients.
      const reported: Error[] = [];
      const storage = await openStorage(POSTGRES_TEST_URL, {
        postgresSchema: schema.name,
        poolSize: 2,
        migrate: false,
        onIdleConnectionError: (error) => reported.push(error),
      });
      try {
        const outcome = storage.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await runAdminSql('select pg_terminate_backend($1)', [rows[0]!.pid]);
          // Let the server's termination notice and the socket's end arrive while no statement is running.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await sql`select 1`.execute(trx);
        });
        await assert.rejects(outcome, (error: Error) => isDatabaseUnavailable(error));
        // The server's notice (57P01), then the socket's end.
        assert.ok(reported.length >= 1, 'the broken connection is reported to the log');
        assert.equal(await storage.ping(), true, 'the pool serves again on a fresh connection');
      } finally {
        await storage.close();
      }
    });
  });
}
