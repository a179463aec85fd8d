/**
 * The PostgreSQL invalidation signal (storage/postgres/notify-signal.ts) between two listeners, as two Latch
 * processes have them: a write announced on the channel is heard by every process but the writer; nothing changes
 * without one, for as long as heartbeats come back; a channel whose heartbeats stop is distrusted within the bound;
 * while the listening connection is away nothing may be cached, and its return counts as a change. PostgreSQL is
 * taken away or stalled by a TCP proxy of the test's own, never stopped.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { channelFor, openNotifySignal, type NotifySignal } from '../../src/storage/postgres/notify-signal.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql } from '../helpers/postgres.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const skip = (await postgresUnavailableReason()) ?? false;

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('one channel per schema, a valid PostgreSQL identifier whatever the schema is called', () => {
  assert.notEqual(channelFor('tenant_a'), channelFor('tenant_b'));
  assert.equal(channelFor(null), channelFor('public'));
  assert.match(channelFor('a "quoted" schema with spaces and ünïcode'.repeat(4)), /^latch_changes_[0-9a-f]{16}$/);
});

describe('PostgreSQL LISTEN/NOTIFY invalidation signal', { skip }, () => {
  const opened: NotifySignal[] = [];
  after(() => {
    for (const signal of opened) signal.close();
  });
  const open = async (schema: string, maxStalenessMs = 60_000, connectionString = POSTGRES_TEST_URL, instance?: string) => {
    const signal = await openNotifySignal({ connectionString, schema, maxStalenessMs, ...(instance && { instance }) });
    opened.push(signal);
    return signal;
  };
  const schema = () => `notify_test_${Math.random().toString(36).slice(2)}`;
  /** A notification as a write's trigger sends it (migration 2026_11_27_2300_change_notifications), from a connection of its own. */
  const announce = (name: string, payload = '') => runAdminSql('select pg_notify($1, $2)', [channelFor(name), payload]);

  test('a change announced on the channel is heard by every process but the writer; without changes the generation stays', async () => {
    const name = schema();
    const writer = await open(name, 60_000, POSTGRES_TEST_URL, 'writer-instance');
    const other = await open(name);
    const before = await other.current();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await other.current(), before, 'nothing changed, nothing to drop');
    const own = await writer.current();
    writer.changed();
    assert.notEqual(await writer.current(), own, 'the writer sees its own change at once');
    assert.equal(await other.current(), before, 'changed() tells only its own process: the write itself tells the others');
    await announce(name, 'writer-instance');
    await eventually(async () => (await other.current()) !== before, 'the other process hears the write');
    const settled = await writer.current();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await writer.current(), settled, 'the echo of its own write is not a second change');
    const otherNow = await other.current();
    await announce(name);
    await eventually(async () => (await writer.current()) !== settled, 'a write from elsewhere (no id) is heard by every process');
    await eventually(async () => (await other.current()) !== otherNow, 'by the other one too');
  });

  test('another schema\'s changes are not heard', async () => {
    const name = schema();
    const mine = await open(name);
    const before = await mine.current();
    const theirs = schema();
    await announce(theirs);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await mine.current(), before);
  });

  test('heartbeats keep a quiet channel trusted: five bounds with no change, and the generation is the same', async () => {
    const signal = await open(schema(), 200);
    const first = await signal.current();
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await signal.current(), first, `after ${(i + 1) * 100} ms`);
    }
  });

  test('a channel that stops answering is distrusted within the bound, before anyone notices the connection is gone; a change made meanwhile is heard when it flows again', async () => {
    const target = new URL(POSTGRES_TEST_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(POSTGRES_TEST_URL);
    viaProxy.host = proxy.address;
    try {
      const name = schema();
      const bound = 300;
      const signal = await open(name, bound, viaProxy.toString());
      const before = await signal.current();
      await proxy.pause('stall');
      const stalledAt = Date.now();
      await eventually(async () => (await signal.current()) !== (await signal.current()), 'nothing is trusted once no heartbeat has come back for the bound', 2000);
      assert.ok(Date.now() - stalledAt < bound + 250, `distrusted ${Date.now() - stalledAt} ms into the stall, the bound being ${bound} ms`);
      assert.equal(signal.listening, true, 'the connection is not known to be lost: only the heartbeat shows it');
      await announce(name);
      await proxy.resume();
      await eventually(async () => (await signal.current()) === (await signal.current()), 'trusted again once a heartbeat comes back', 2000);
      assert.notEqual(await signal.current(), before, 'the change announced during the stall was heard before the heartbeat');
      assert.equal(signal.listening, true, 'the same connection, never lost');
    } finally {
      await proxy.close();
    }
  });

  test('a stall past the silence limit counts as a lost connection, which is opened again', async () => {
    const target = new URL(POSTGRES_TEST_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(POSTGRES_TEST_URL);
    viaProxy.host = proxy.address;
    try {
      // The silence limit is three bounds, at least 3 s.
      const signal = await open(schema(), 1000, viaProxy.toString());
      await proxy.pause('stall');
      await eventually(() => !signal.listening, 'a connection silent for the limit is given up', 6000);
      await proxy.resume();
      await eventually(() => signal.listening, 'it listens again by itself', 10_000);
      const back = await signal.current();
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await signal.current(), back, 'and it caches again');
    } finally {
      await proxy.close();
    }
  });

  test('while the listening connection is away nothing can be cached; after it returns, caching resumes and its return is a change', async () => {
    const target = new URL(POSTGRES_TEST_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(POSTGRES_TEST_URL);
    viaProxy.host = proxy.address;
    try {
      const signal = await open(schema(), 60_000, viaProxy.toString());
      const before = await signal.current();
      assert.equal(signal.listening, true);
      await proxy.pause('reset');
      await eventually(() => !signal.listening, 'the dropped connection is noticed');
      const a = await signal.current();
      const b = await signal.current();
      assert.notEqual(a, b, 'every call a new generation while away');
      assert.notEqual(a, before);
      await proxy.resume();
      await eventually(() => signal.listening, 'it listens again by itself', 10_000);
      const back = await signal.current();
      assert.notEqual(back, before, 'whatever happened while away counts as a change');
      assert.equal(await signal.current(), back, 'and it caches again');
    } finally {
      await proxy.close();
    }
  });
});

describe('PostgreSQL storage with caches (two storages on one schema, as two processes)', { skip }, () => {
  test('a cached client is served from memory past the bound while nothing changes, and dropped at once when its row changes, through Latch or behind its back', async () => {
    const schema = await createTestSchema();
    const bound = 300;
    const options = { postgresSchema: schema.name, cacheMaxStalenessMs: bound, poolSize: 2 };
    const writer = await openStorage(POSTGRES_TEST_URL, options);
    const reader = await openStorage(POSTGRES_TEST_URL, { ...options, migrate: false });
    try {
      assert.ok(reader.signal, 'PostgreSQL storage has an invalidation signal when caches are on');
      const now = new Date();
      const client = await writer.clients.insert(
        { clientId: 'cached-client', name: 'Before', secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: ['https://app.example.com/cb'], ownerUserId: null, homepageUrl: null, logoUrl: null },
        now,
      );
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Before');
      // A write that does not announce itself (triggers off, as only a replication role may): what is cached stays
      // cached, however long, as long as the channel proves it is alive. This is how the cache is seen to be used.
      await runAdminSql(`set session_replication_role = replica; update ${schema.name}.clients set name = 'Unannounced' where client_id = 'cached-client'`);
      await new Promise((resolve) => setTimeout(resolve, 3 * bound));
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Before', 'served from the cache, three bounds on');
      // Behind Latch's back, with the triggers on: heard at once.
      await runAdminSql(`update ${schema.name}.clients set name = 'Behind' where client_id = 'cached-client'`);
      await eventually(async () => (await reader.clients.findById(client.clientId))?.name === 'Behind', 'a change made with psql reaches the caches', 300);
      // Through Latch: likewise.
      await writer.clients.delete(client.clientId);
      await eventually(async () => (await reader.clients.findById(client.clientId)) === null, 'the deletion reaches the other process', 300);
    } finally {
      await reader.close();
      await writer.close();
      await schema.drop();
    }
  });

  test('without the setting nothing is cached on PostgreSQL', async () => {
    const schema = await createTestSchema();
    const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 1 });
    try {
      assert.equal(storage.signal, null);
    } finally {
      await storage.close();
      await schema.drop();
    }
  });
});
