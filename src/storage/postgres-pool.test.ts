import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isConnectionError } from './connection-errors.js';
import { createRetryingPool, isPlainSelect, type RawPool, type RawPoolClient } from './postgres-pool.js';

const connectionError = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const policy = { connectAttempts: 3, connectBackoffMs: 1 };

function fakePool(script: { connectFailures?: Error[]; queryFailures?: (Error | null)[] }) {
  const log: string[] = [];
  const connectFailures = [...(script.connectFailures ?? [])];
  const queryFailures = [...(script.queryFailures ?? [])];
  let clients = 0;
  const pool: RawPool = {
    async connect() {
      const failure = connectFailures.shift();
      if (failure) {
        log.push('connect failed');
        throw failure;
      }
      const id = ++clients;
      log.push(`connect ${id}`);
      const client: RawPoolClient = {
        async query(text) {
          log.push(`${id}: ${text}`);
          const queryFailure = queryFailures.shift();
          if (queryFailure) throw queryFailure;
          return { command: 'SELECT', rowCount: 1, rows: [{ id }] };
        },
        release(destroy) {
          log.push(`release ${id}${destroy ? ' (destroyed)' : ''}`);
        },
      };
      return client;
    },
    async end() {},
  };
  return { pool, log };
}

test('connection-class errors are recognised; query errors are not', () => {
  assert.equal(isConnectionError(connectionError()), true);
  assert.equal(isConnectionError(Object.assign(new Error('terminating connection'), { code: '57P01' })), true);
  assert.equal(isConnectionError(new Error('Connection terminated unexpectedly')), true);
  assert.equal(isConnectionError(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
  assert.equal(isConnectionError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })), false);
});

test('only plain selects count as idempotent reads', () => {
  assert.equal(isPlainSelect('select * from users where id = $1'), true);
  assert.equal(isPlainSelect('  SELECT 1'), true);
  assert.equal(isPlainSelect('update authorization_codes set consumed_at = $1 returning *'), false);
  assert.equal(isPlainSelect('with x as (delete from t returning *) select * from x'), false);
  assert.equal(isPlainSelect('insert into users select 1'), false);
});

test('acquiring a connection is retried on connection errors, then gives up', async () => {
  const { pool, log } = fakePool({ connectFailures: [connectionError(), connectionError()] });
  const client = await createRetryingPool(pool, policy).connect();
  client.release();
  assert.deepEqual(log, ['connect failed', 'connect failed', 'connect 1', 'release 1']);

  const failing = fakePool({ connectFailures: [connectionError(), connectionError(), connectionError()] });
  await assert.rejects(createRetryingPool(failing.pool, policy).connect(), /ECONNREFUSED/);
  assert.equal(failing.log.length, 3);
});

test('acquiring a connection is not retried on other errors (bad password)', async () => {
  const { pool, log } = fakePool({ connectFailures: [Object.assign(new Error('password authentication failed'), { code: '28P01' })] });
  await assert.rejects(createRetryingPool(pool, policy).connect(), /password/);
  assert.deepEqual(log, ['connect failed']);
});

test('a select whose connection breaks is run again on a fresh connection, and the broken one destroyed', async () => {
  const { pool, log } = fakePool({ queryFailures: [new Error('Connection terminated unexpectedly')] });
  const client = await createRetryingPool(pool, policy).connect();
  const result = await client.query<{ id: number }>('select 1', []);
  client.release();
  assert.deepEqual(result.rows, [{ id: 2 }]);
  assert.deepEqual(log, ['connect 1', '1: select 1', 'release 1 (destroyed)', 'connect 2', '2: select 1', 'release 2']);
});

test('a write whose connection breaks is not run again, and the broken connection is destroyed', async () => {
  const { pool, log } = fakePool({ queryFailures: [new Error('Connection terminated unexpectedly')] });
  const client = await createRetryingPool(pool, policy).connect();
  await assert.rejects(client.query('update authorization_codes set consumed_at = $1', [1]), /terminated/);
  client.release();
  assert.deepEqual(log, ['connect 1', '1: update authorization_codes set consumed_at = $1', 'release 1 (destroyed)']);
});

test('a select inside a transaction is not run again: the transaction is gone with its connection', async () => {
  const { pool, log } = fakePool({ queryFailures: [null, new Error('Connection terminated unexpectedly')] });
  const client = await createRetryingPool(pool, policy).connect();
  await client.query('begin', []);
  await assert.rejects(client.query('select * from users', []), /terminated/);
  await client.query('rollback', []);
  client.release();
  assert.deepEqual(log, ['connect 1', '1: begin', '1: select * from users', 'release 1 (destroyed)']);
});

test('once every attempt has failed, connects fail at once for a while, then probe again', async () => {
  const { pool, log } = fakePool({ connectFailures: [connectionError(), connectionError(), connectionError()] });
  const retrying = createRetryingPool(pool, { ...policy, unreachableHoldMs: 200 });
  await assert.rejects(retrying.connect(), /ECONNREFUSED/);
  assert.equal(log.length, 3);
  // Within the hold: the same error at once, without touching the database.
  await assert.rejects(retrying.connect(), /ECONNREFUSED/);
  assert.equal(log.length, 3);
  await new Promise((resolve) => setTimeout(resolve, 250));
  const client = await retrying.connect();
  client.release();
  assert.deepEqual(log.slice(3), ['connect 1', 'release 1']);
});

test('a new connection that timed out is not tried again (it already waited its whole timeout)', async () => {
  // pg-pool's words when connectionTimeoutMillis passes before the server answers.
  const { pool, log } = fakePool({ connectFailures: [new Error('Connection terminated due to connection timeout')] });
  await assert.rejects(createRetryingPool(pool, policy).connect(), /connection timeout/);
  assert.deepEqual(log, ['connect failed']);
});

test('a wait in the queue of the pool that timed out (every connection busy) fails that request only: the database is there', async () => {
  const { pool, log } = fakePool({ connectFailures: [new Error('timeout exceeded when trying to connect')] });
  const retrying = createRetryingPool(pool, { ...policy, unreachableHoldMs: 10_000 });
  await assert.rejects(retrying.connect(), /timeout exceeded/);
  const client = await retrying.connect();
  client.release();
  assert.deepEqual(log, ['connect failed', 'connect 1', 'release 1']);
});
