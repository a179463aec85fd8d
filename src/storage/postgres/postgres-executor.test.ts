import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Kysely, PostgresDialect, type CompiledQuery, type PostgresPool, type QueryResult } from 'kysely';
import type { Database } from '../database.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { batched, type BatchKind, type WritePlan } from '../query-executor.js';
import { BATCHES_IN_FLIGHT, MAX_BATCH, postgresExecutor } from './postgres-executor.js';

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
  assert.equal(await postgresExecutor(pool).run(twoStatements), 1);
  assert.deepEqual(
    sent.map((line) => line.split(' ')[0]),
    ['connect', 'begin', 'update', 'select', 'commit', 'release'],
  );
});

test('a plan whose statement fails is rolled back and the error reaches the caller', async () => {
  const { pool, sent } = recordingPool((sql) => (sql.startsWith('select') ? new Error('boom') : undefined));
  await assert.rejects(postgresExecutor(pool).run(twoStatements), /boom/);
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
  await assert.rejects(postgresExecutor(pool).run(refused), /refused/);
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
  assert.equal(await postgresExecutor(pool).run(plan, { autocommit: oneStatement }), 'one statement');
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

describe('batches: the writes of one kind in one turn go as one statement', () => {
  /** A batch kind whose statement names its inputs, and whose result answers each input with its own name. */
  const kind: BatchKind<string, string> = {
    statement: (inputs) => db.updateTable('users').set({ name: inputs.join(',') }).where('id', '=', 1).compile(),
    results: (inputs) => inputs.map((input) => `batched ${input}`),
  };
  function* alone(input: string): WritePlan<string> {
    yield db.updateTable('users').set({ name: input }).where('id', '=', 2).compile();
    return `alone ${input}`;
  }
  function* unused(): WritePlan<string> {
    throw new Error('the transactional form must not run');
  }
  const write = (executor: ReturnType<typeof postgresExecutor>, input: string) =>
    executor.run(unused, { autocommit: () => alone(input), batch: batched(kind, input) });
  const statements = (sent: string[]) => sent.filter((line) => line !== 'connect' && line !== 'release');

  test('three writes of one turn: one statement with all three, each answered with its own result', async () => {
    const { pool, sent } = recordingPool();
    const executor = postgresExecutor(pool);
    assert.deepEqual(await Promise.all(['a', 'b', 'c'].map((input) => write(executor, input))), ['batched a', 'batched b', 'batched c']);
    assert.equal(statements(sent).length, 1);
    assert.match(statements(sent)[0]!, /^update "users" set "name" = \$1/);
  });

  test('a write alone in its turn runs its own one-statement form', async () => {
    const { pool, sent } = recordingPool();
    assert.equal(await write(postgresExecutor(pool), 'a'), 'alone a');
    assert.equal(statements(sent).length, 1);
  });

  test('writes of different turns are different batches', async () => {
    const { pool, sent } = recordingPool();
    const executor = postgresExecutor(pool);
    const first = Promise.all([write(executor, 'a'), write(executor, 'b')]);
    await new Promise((resolve) => setImmediate(resolve));
    const second = Promise.all([write(executor, 'c'), write(executor, 'd')]);
    assert.deepEqual([...(await first), ...(await second)], ['batched a', 'batched b', 'batched c', 'batched d']);
    assert.equal(statements(sent).length, 2);
  });

  test('a statement the server refuses: each write then runs alone, so that only the one at fault fails', async () => {
    const refusal = Object.assign(new Error('duplicate key value violates unique constraint'), { severity: 'ERROR', code: '23505' });
    // The batch (id = 1) is refused, and so is b's own statement; a and c succeed alone.
    const { pool, sent } = recordingPool();
    let calls = 0;
    const failing = {
      async connect() {
        const client = (await pool.connect()) as unknown as { query(sqlText: string, parameters: unknown[], name?: string): Promise<unknown>; release(): void };
        return {
          async query(sqlText: string, parameters: unknown[], name?: string) {
            calls += 1;
            if (parameters[0] === 'a,b,c' || parameters[0] === 'b') throw refusal;
            return client.query(sqlText, parameters, name);
          },
          release: () => client.release(),
        };
      },
      async end() {},
    } as unknown as PostgresPool;
    const executor = postgresExecutor(failing);
    const results = await Promise.allSettled(['a', 'b', 'c'].map((input) => write(executor, input)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['alone a', 'duplicate key value violates unique constraint', 'alone c'],
    );
    assert.equal(calls, 4);
    assert.equal(statements(sent).length, 2);
  });

  test('a connection lost during the batch: every write fails, and none is run again (the batch may have been committed)', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    const { pool, sent } = recordingPool(() => lost);
    const executor = postgresExecutor(pool);
    const results = await Promise.allSettled(['a', 'b'].map((input) => write(executor, input)));
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(statements(sent).length, 1);
  });

  test(`at ${MAX_BATCH} writes a batch goes at once, and the rest wait for the turn's end`, async () => {
    const { pool, sent } = recordingPool();
    const executor = postgresExecutor(pool);
    const inputs = Array.from({ length: MAX_BATCH + 2 }, (_, i) => `w${i}`);
    const results = await Promise.all(inputs.map((input) => write(executor, input)));
    assert.deepEqual(results, inputs.map((input) => `batched ${input}`));
    assert.equal(statements(sent).length, 2);
  });

  /**
   * A pool whose statements wait until the test lets them answer (`answerNext`), recording each one's values, so
   * that what happens while a batch is in flight can be seen.
   */
  function gatedPool() {
    const sent: unknown[][] = [];
    const gates: Array<() => void> = [];
    const pool = {
      async connect() {
        return {
          async query(sqlText: string, parameters: unknown[]) {
            sent.push(parameters.slice(0, 1));
            await new Promise<void>((resolve) => gates.push(resolve));
            return { command: sqlText.startsWith('update') ? 'UPDATE' : 'SELECT', rowCount: 1, rows: [] };
          },
          release() {},
        };
      },
      async end() {},
    } as unknown as PostgresPool;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    /** Answers the oldest statement still waiting, then lets the event loop take it in. */
    const answerNext = async () => {
      while (gates.length === 0) await turn();
      gates.shift()!();
      await turn();
    };
    return { pool, sent, answerNext, turn };
  }

  test(`while ${BATCHES_IN_FLIGHT} statement of a kind is in flight, that kind's writes of later turns wait and go together in the next`, async () => {
    assert.equal(BATCHES_IN_FLIGHT, 1);
    const { pool, sent, answerNext, turn } = gatedPool();
    const executor = postgresExecutor(pool);
    const first = Promise.all([write(executor, 'a'), write(executor, 'b')]);
    await turn();
    // The first batch is in flight; c, d and e come in three later turns.
    const later = [write(executor, 'c')];
    await turn();
    later.push(write(executor, 'd'));
    await turn();
    later.push(write(executor, 'e'));
    await turn();
    assert.deepEqual(sent, [['a,b']]);
    await answerNext();
    assert.deepEqual(await first, ['batched a', 'batched b']);
    await turn();
    assert.deepEqual(sent, [['a,b'], ['c,d,e']]);
    await answerNext();
    assert.deepEqual(await Promise.all(later), ['batched c', 'batched d', 'batched e']);
  });

  test('a write of another kind does not wait for a statement of this kind', async () => {
    const { pool, sent, answerNext, turn } = gatedPool();
    const executor = postgresExecutor(pool);
    const otherKind: BatchKind<string, string> = { statement: kind.statement, results: (inputs) => inputs.map((input) => `other ${input}`) };
    const first = Promise.all([write(executor, 'a'), write(executor, 'b')]);
    await turn();
    const other = Promise.all(['x', 'y'].map((input) => executor.run(unused, { autocommit: () => alone(input), batch: batched(otherKind, input) })));
    await turn();
    assert.deepEqual(sent, [['a,b'], ['x,y']]);
    await answerNext();
    await answerNext();
    assert.deepEqual([...(await first), ...(await other)], ['batched a', 'batched b', 'other x', 'other y']);
  });

  test('writes that waited behind a batch the server refused still go, in one statement', async () => {
    const refusal = Object.assign(new Error('duplicate key value violates unique constraint'), { severity: 'ERROR', code: '23505' });
    const sent: unknown[][] = [];
    let release: (() => void) | undefined;
    const pool = {
      async connect() {
        return {
          async query(_sqlText: string, parameters: unknown[]) {
            sent.push(parameters);
            if (parameters[0] === 'a,b') {
              await new Promise<void>((resolve) => (release = resolve));
              throw refusal;
            }
            return { command: 'UPDATE', rowCount: 1, rows: [] };
          },
          release() {},
        };
      },
      async end() {},
    } as unknown as PostgresPool;
    const executor = postgresExecutor(pool);
    const first = Promise.allSettled([write(executor, 'a'), write(executor, 'b')]);
    await new Promise((resolve) => setImmediate(resolve));
    const later = Promise.all([write(executor, 'c'), write(executor, 'd')]);
    await new Promise((resolve) => setImmediate(resolve));
    release!();
    // a and b each run alone (and succeed alone here); c and d went as one batch once a,b's statement had ended.
    assert.deepEqual((await first).map((r) => (r.status === 'fulfilled' ? r.value : 'failed')), ['alone a', 'alone b']);
    assert.deepEqual(await later, ['batched c', 'batched d']);
    assert.deepEqual(sent.map((values) => values[0]).sort(), ['a', 'a,b', 'b', 'c,d']);
  });
});
