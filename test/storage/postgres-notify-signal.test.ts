/**
 * The PostgreSQL invalidation signal (storage/postgres/notify-signal.ts) between two listeners, as two Latch
 * processes have them: a change in one is heard by the other; nothing changes without one, and the staleness
 * bound is each cached entry's lifetime instead; while the listening connection is away nothing may be cached,
 * and its return counts as a change. PostgreSQL is taken away by a TCP proxy of the test's own, never stopped.
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
  const open = async (schema: string, maxStalenessMs = 60_000, connectionString = POSTGRES_TEST_URL) => {
    const signal = await openNotifySignal({ connectionString, schema, maxStalenessMs });
    opened.push(signal);
    return signal;
  };
  const schema = () => `notify_test_${Math.random().toString(36).slice(2)}`;

  test('a change in one process is heard by the other; without changes the generation stays', async () => {
    const name = schema();
    const first = await open(name);
    const second = await open(name);
    const before = await second.current();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await second.current(), before, 'nothing changed, nothing to drop');
    const own = await first.current();
    first.changed();
    assert.notEqual(await first.current(), own, 'the writer sees its own change at once');
    await eventually(async () => (await second.current()) !== before, 'the other process hears the change');
    const after = await second.current();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await second.current(), after);
    const settled = await first.current();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await first.current(), settled, 'its own echo is not a second change');
  });

  test('another schema\'s changes are not heard', async () => {
    const mine = await open(schema());
    const theirs = await open(schema());
    const before = await mine.current();
    theirs.changed();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await mine.current(), before);
  });

  test('the staleness bound is each entry\'s lifetime, not a turn-over of the generation (which would drop every entry at once)', async () => {
    const signal = await open(schema(), 200);
    assert.equal(signal.entryLifetime?.maxAgeMs, 200, 'a lost notification is never trusted longer than the bound');
    const first = await signal.current();
    await new Promise((resolve) => setTimeout(resolve, 450));
    assert.equal(await signal.current(), first, 'two bounds later, with no change, the generation is the same');
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
  test('a cached client is served from memory, dropped at once when the other process changes it, and never kept past the bound', async () => {
    const schema = await createTestSchema();
    const bound = 1000;
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
      // Behind Latch's back (no notification): the reader keeps its cached copy, but not past the bound.
      await runAdminSql(`update ${schema.name}.clients set name = 'Behind' where client_id = 'cached-client'`);
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Before', 'served from the cache');
      // The entry's lifetime counts from its read, which began before the update above.
      await new Promise((resolve) => setTimeout(resolve, bound + 50));
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Behind', 'read again once the bound passed');
      // Through Latch (a notification): dropped at once.
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
