import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kysely, PostgresDialect, type CompiledQuery, type PostgresPool, type QueryResult } from 'kysely';
import type { Database } from '../database.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import type { WritePlan } from '../query-executor.js';
import { postgresExecutor } from './postgres-executor.js';

/** A pool whose one client records what it is sent: the SQL, and the prepared statement's name if any. */
function recordingPool(fail?: (sql: string) => Error | undefined) {
  const sent: string[] = [];
  const pool = {
    async connect() {
      sent.push('connect');
      return {
        async query(sqlText: string, _parameters: unknown[], name?: string) {
          sent.push(name ? `${name}: ${sqlText}` : sqlText);
          const error = fail?.(sqlText);
          if (error) throw error;
          return { command: sqlText.startsWith('update') ? 'UPDATE' : 'SELECT', rowCount: 1, rows: [{ n: 1 }] };
        },
        release() {
          sent.push('release');
        },
      };
    },
    async end() {},
  } as unknown as PostgresPool;
  return { pool, sent };
}

// Only compiles: the dialect never connects.
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: recordingPool().pool }) });
const findUser = precompileQuery((kdb, p: Parameter<{ id: number }>) => kdb.selectFrom('users').select('email').where('id', '=', p('id')));
const adHoc = (): CompiledQuery => db.selectFrom('users').select('email').where('id', '=', 1).compile();
const update = (): CompiledQuery => db.updateTable('users').set({ name: 'x' }).where('id', '=', 1).compile();

test('precompiled queries run as named prepared statements, one name per SQL text; other queries unnamed', async () => {
  const { pool, sent } = recordingPool();
  const executor = postgresExecutor(pool);
  await executor.read(findUser(db, { id: 1 }));
  await executor.read(findUser(db, { id: 2 }));
  await executor.read(adHoc());
  const statements = sent.filter((line) => line !== 'connect' && line !== 'release');
  assert.equal(statements.length, 3);
  assert.match(statements[0]!, /^latch_\d+: select "email" from "users"/);
  assert.equal(statements[1], statements[0]);
  assert.match(statements[2]!, /^select "email" from "users"/);
});

test('a write reports the rows it changed, as Kysely does', async () => {
  const { pool } = recordingPool();
  const result = await postgresExecutor(pool).write(update());
  assert.equal(result.numAffectedRows, 1n);
});

function* twoStatements(): WritePlan<number> {
  const first = (yield update()) as QueryResult<unknown>;
  yield adHoc();
  return first.rows.length;
}

test('a plan runs in one transaction on one connection: begin, its statements, commit', async () => {
  const { pool, sent } = recordingPool();
  assert.equal(await postgresExecutor(pool).run(twoStatements()), 1);
  assert.deepEqual(
    sent.map((line) => line.split(' ')[0]),
    ['connect', 'begin', 'update', 'select', 'commit', 'release'],
  );
});

test('a plan whose statement fails is rolled back and the error reaches the caller', async () => {
  const { pool, sent } = recordingPool((sql) => (sql.startsWith('select') ? new Error('boom') : undefined));
  await assert.rejects(postgresExecutor(pool).run(twoStatements()), /boom/);
  assert.deepEqual(
    sent.map((line) => line.split(' ')[0]),
    ['connect', 'begin', 'update', 'select', 'rollback', 'release'],
  );
});

test('a plan that throws between statements is rolled back', async () => {
  const { pool, sent } = recordingPool();
  function* refused(): WritePlan<void> {
    yield update();
    throw new Error('refused');
  }
  await assert.rejects(postgresExecutor(pool).run(refused()), /refused/);
  assert.ok(sent.includes('rollback') && !sent.includes('commit'));
});

test('a plan with an autocommit form runs that form instead: no begin, no commit, and nothing of the plan', async () => {
  const { pool, sent } = recordingPool();
  let planStarted = false;
  function* plan(): WritePlan<string> {
    planStarted = true;
    yield update();
    return 'plan';
  }
  function* oneStatement(): WritePlan<string> {
    yield update();
    return 'one statement';
  }
  assert.equal(await postgresExecutor(pool).run(plan(), { autocommit: oneStatement }), 'one statement');
  assert.equal(planStarted, false);
  assert.deepEqual(
    sent.map((line) => line.split(' ')[0]),
    ['connect', 'update', 'release'],
  );
});

test('with prepare off (a pooler that cannot keep prepared statements), nothing is named', async () => {
  const { pool, sent } = recordingPool();
  await postgresExecutor(pool, { prepare: false }).read(findUser(db, { id: 1 }));
  assert.ok(sent.some((line) => line.startsWith('select "email"')));
  assert.ok(!sent.some((line) => line.startsWith('latch_')));
});
