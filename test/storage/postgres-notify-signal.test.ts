/**
 * The PostgreSQL invalidation signal (storage/postgres/notify-signal.ts) between listeners, as Latch processes have
 * them, on migrated schemas (the announcing triggers in place): a write announced on the channel is heard by every
 * process, the writer's too; nothing changes without one, for as long as heartbeats come back; a channel whose
 * heartbeats stop is distrusted within the bound, and given up after the silence limit; missing or disabled triggers
 * mean nothing is trusted; while the listening connection is away nothing may be cached, and its return counts as a
 * change. PostgreSQL is taken away or stalled by a TCP proxy of the test's own, never stopped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { channelFor } from '../../src/storage/postgres/change-channel.js';
import type { InvalidationSignal } from '../../src/storage/invalidation-signal.js';
import { openNotifySignal, type NotifySignal } from '../../src/storage/postgres/notify-signal.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql, type TestSchema } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = (await postgresUnavailableReason()) ?? false;

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Trusted: the same generation twice in a row (an untrusted signal answers a new value at every call). */
const trusted = async (signal: InvalidationSignal) => (await signal.current()) === (await signal.current());
/** Until a listener trusts its caches: from its LISTEN on, or from its first heartbeat when connecting took longer than the bound (a busy machine). */
const untilTrusted = (signal: InvalidationSignal, what = 'trusted once listening') => eventually(() => trusted(signal), what, 3000);

/** A test on a TCP proxy of its own in front of PostgreSQL: `viaProxy` is the URL through it. */
async function throughProxy(run: (proxy: TcpProxy, viaProxy: string) => Promise<void>): Promise<void> {
  const target = new URL(POSTGRES_TEST_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(POSTGRES_TEST_URL);
  viaProxy.host = proxy.address;
  try {
    await run(proxy, viaProxy.toString());
  } finally {
    await proxy.close();
  }
}

test('one channel per schema, a valid PostgreSQL identifier whatever the schema is called', () => {
  assert.notEqual(channelFor('tenant_a'), channelFor('tenant_b'));
  assert.match(channelFor('a "quoted" schema with spaces and ünïcode'.repeat(4)), /^latch_changes_[0-9a-f]{16}$/);
});

describe('PostgreSQL LISTEN/NOTIFY invalidation signal', { skip }, () => {
  const opened: NotifySignal[] = [];
  const schemas: TestSchema[] = [];
  after(async () => {
    for (const signal of opened) await signal.close();
    for (const schema of schemas) await schema.drop();
  });
  const open = async (schema: string, maxStalenessMs = 60_000, connectionString = POSTGRES_TEST_URL) => {
    const signal = await openNotifySignal({ connectionString, schema, maxStalenessMs });
    opened.push(signal);
    return signal;
  };
  /** A schema with Latch's tables and their triggers. */
  const migratedSchema = async () => {
    const schema = await createTestSchema('notify_test');
    schemas.push(schema);
    const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 1 });
    await storage.close();
    return schema.name;
  };
  // Two, migrated once for the whole file (a migration takes seconds on a busy machine): the tests run one after
  // another, and a signal opened by one never hears what was announced before it listened.
  let shared = '';
  let another = '';
  before(async () => {
    shared = await migratedSchema();
    another = await migratedSchema();
  });
  /** A notification as a write's trigger sends it (migration 2026_11_27_2300_change_notifications), from a connection of its own. */
  const announce = (name: string) => runAdminSql("select pg_notify($1, '')", [channelFor(name)]);

  test('a change announced on the channel is heard by every process, the writer too; changed() tells only its own; without changes the generation stays', async () => {
    const name = shared;
    const writer = await open(name);
    const other = await open(name);
    const before = await other.current();
    await sleep(100);
    assert.equal(await other.current(), before, 'nothing changed, nothing to drop');
    const own = await writer.current();
    writer.changed();
    const forgotten = await writer.current();
    assert.notEqual(forgotten, own, 'the writer forgets at once');
    assert.equal(await other.current(), before, 'changed() tells only its own process: the write itself tells the others');
    await announce(name);
    await eventually(async () => (await other.current()) !== before, 'the other process hears the write');
    // Its own write's notification too: a write whose outcome it did not know may have committed after it forgot.
    await eventually(async () => (await writer.current()) !== forgotten, 'the writer hears it as well');
  });

  test('another schema\'s changes are not heard', async () => {
    const mine = await open(shared);
    const before = await mine.current();
    await announce(another);
    await sleep(200);
    assert.equal(await mine.current(), before);
  });

  test('heartbeats keep a quiet channel trusted: five bounds with no change, and the generation is the same', async () => {
    const bound = 600;
    const signal = await open(shared, bound);
    await untilTrusted(signal, 'trusted once listening');
    const first = await signal.current();
    for (let i = 0; i < 10; i++) {
      await sleep(bound / 2);
      assert.equal(await signal.current(), first, `after ${((i + 1) * bound) / 2} ms`);
    }
  });

  test('missing or disabled triggers: nothing is trusted until they are back', async () => {
    const bare = await createTestSchema('notify_test');
    schemas.push(bare);
    const unmigrated = await open(bare.name, 300);
    await sleep(400);
    assert.equal(await trusted(unmigrated), false, 'a schema not migrated yet has no triggers: nothing may be cached');
    const name = another;
    const signal = await open(name, 300);
    await untilTrusted(signal, 'trusted once listening on a migrated schema');
    try {
      await runAdminSql(`alter table "${name}".access_tokens disable trigger access_tokens_announce_update`);
      await eventually(async () => !(await trusted(signal)), 'a disabled trigger is noticed by the next heartbeats', 3000);
    } finally {
      await runAdminSql(`alter table "${name}".access_tokens enable trigger access_tokens_announce_update`);
    }
    await untilTrusted(signal, 'trusted again once it is enabled');
  });

  test('a channel that stops answering is distrusted within the bound, long before the connection is given up; a change made meanwhile is heard when it flows again', () =>
    throughProxy(async (proxy, viaProxy) => {
      const name = shared;
      const bound = 300;
      const signal = await open(name, bound, viaProxy);
      await untilTrusted(signal, 'trusted once listening');
      const before = await signal.current();
      await proxy.pause('stall');
      await eventually(async () => !(await trusted(signal)), 'nothing is trusted once no heartbeat has come back for the bound', 2000);
      // The silence limit is 3 s here: the heartbeat, not a lost connection, is what showed it.
      assert.equal(signal.listening, true, 'the connection is not known to be lost');
      await announce(name);
      await proxy.resume();
      await eventually(() => trusted(signal), 'trusted again once a heartbeat comes back', 2000);
      assert.notEqual(await signal.current(), before, 'the change announced during the stall was heard before the heartbeat');
      assert.equal(signal.listening, true, 'the same connection, never lost');
    }));

  test('a stall past the silence limit counts as a lost connection, which is opened again', () =>
    throughProxy(async (proxy, viaProxy) => {
      // The silence limit is three bounds, at least 3 s.
      const signal = await open(shared, 1000, viaProxy);
      await proxy.pause('stall');
      await eventually(() => !signal.listening, 'a connection silent for the limit is given up', 8000);
      await proxy.resume();
      await eventually(() => signal.listening, 'it listens again by itself', 10_000);
      await untilTrusted(signal, 'trusted again once listening');
      const back = await signal.current();
      await sleep(300);
      assert.equal(await signal.current(), back, 'and it caches again');
    }));

  test('while the listening connection is away nothing can be cached; after it returns, caching resumes and its return is a change', () =>
    throughProxy(async (proxy, viaProxy) => {
      const signal = await open(shared, 60_000, viaProxy);
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
    }));
});

describe('PostgreSQL storage with caches (two storages on one schema, as two processes)', { skip }, () => {
  test('a cached client is served from memory past the bound while nothing changes, and dropped at once when its row changes, through Latch or behind its back', async () => {
    const schema = await createTestSchema();
    const bound = 500;
    const options = { postgresSchema: schema.name, cacheMaxStalenessMs: bound, poolSize: 2 };
    const writer = await openStorage(POSTGRES_TEST_URL, options);
    const reader = await openStorage(POSTGRES_TEST_URL, { ...options, migrate: false });
    try {
      const signal = reader.signal;
      assert.ok(signal, 'PostgreSQL storage has an invalidation signal when caches are on');
      await untilTrusted(signal, 'the reader trusts its caches');
      const now = new Date();
      const client = await writer.clients.insert(
        { clientId: 'cached-client', name: 'Before', secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: ['https://app.example.com/cb'], ownerUserId: null, homepageUrl: null, logoUrl: null },
        now,
      );
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Before');
      // A write that does not announce itself (a session that skips triggers, as only a replication role may): what is
      // cached stays cached, however long, as long as the channel proves it is alive. This shows the cache in use.
      await runAdminSql(`set session_replication_role = replica; update ${schema.name}.clients set name = 'Unannounced' where client_id = 'cached-client'`);
      await sleep(3 * bound);
      assert.equal((await reader.clients.findById(client.clientId))?.name, 'Before', 'served from the cache, three bounds on');
      // Behind Latch's back, with the triggers on: heard at once.
      await runAdminSql(`update ${schema.name}.clients set name = 'Behind' where client_id = 'cached-client'`);
      await eventually(async () => (await reader.clients.findById(client.clientId))?.name === 'Behind', 'a change made with psql reaches the caches', 2000);
      // Through Latch: likewise.
      await writer.clients.delete(client.clientId);
      await eventually(async () => (await reader.clients.findById(client.clientId)) === null, 'the deletion reaches the other process', 2000);
    } finally {
      await reader.close();
      await writer.close();
      await schema.drop();
    }
  });

  test('with no schema set, the channel is the one of the schema the tables are really in (here one a URL\'s search_path names)', async () => {
    const schema = await createTestSchema();
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('options', `-c search_path=${schema.name}`);
    const options = { cacheMaxStalenessMs: 500, poolSize: 2 };
    const writer = await openStorage(url.toString(), options);
    const reader = await openStorage(url.toString(), { ...options, migrate: false });
    try {
      const { rows } = await runAdminSql(`select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = 'clients'`, [schema.name]);
      assert.equal(rows[0].n, 1, 'the tables went where the search_path put them');
      const signal = reader.signal;
      assert.ok(signal);
      await untilTrusted(signal, 'the reader trusts its caches');
      await writer.clients.insert(
        { clientId: 'elsewhere', name: 'Before', secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: ['https://app.example.com/cb'], ownerUserId: null, homepageUrl: null, logoUrl: null },
        new Date(),
      );
      assert.equal((await reader.clients.findById('elsewhere'))?.name, 'Before');
      // Trusted, so cached (an unannounced write is not seen): the triggers were found where the tables are.
      await runAdminSql(`set session_replication_role = replica; update ${schema.name}.clients set name = 'Unannounced' where client_id = 'elsewhere'`);
      await sleep(200);
      assert.equal((await reader.clients.findById('elsewhere'))?.name, 'Before', 'served from the cache');
      await writer.clients.update('elsewhere', { name: 'After' }, new Date());
      await eventually(async () => (await reader.clients.findById('elsewhere'))?.name === 'After', 'the other process hears it on the right channel', 2000);
    } finally {
      await reader.close();
      await writer.close();
      await schema.drop();
    }
  });

  test('the access token of an exchange is answered from the issuing process’s memory as the database would, and a revocation by another process is heard at once', async () => {
    const schema = await createTestSchema();
    const options = { postgresSchema: schema.name, cacheMaxStalenessMs: 500, poolSize: 2 };
    const issuer = await openStorage(POSTGRES_TEST_URL, options);
    const other = await openStorage(POSTGRES_TEST_URL, { ...options, migrate: false });
    try {
      await untilTrusted(issuer.signal!, 'the issuer trusts its caches');
      await untilTrusted(other.signal!, 'the other process trusts its caches');
      const now = new Date();
      const user = await issuer.users.insert({ email: 'ada@example.com', emailVerified: true, name: 'Ada', avatarUrl: null, passwordHash: 'x' }, now);
      assert.ok(user);
      await issuer.clients.insert(
        { clientId: 'app', name: 'App', secretHash: 'h', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: ['https://app.example.com/cb'], ownerUserId: null, homepageUrl: null, logoUrl: null },
        now,
      );
      await issuer.authorizationCodes.insert({
        codeHash: 'code-1', grantId: 'grant-1', clientId: 'app', userId: user.id, redirectUri: 'https://app.example.com/cb', scope: ['openid', 'profile'],
        nonce: null, codeChallenge: null, authTime: now, createdAt: now, expiresAt: new Date(now.getTime() + 60_000),
      });
      // The token response reads the user (cached), as the token endpoint does before it answers.
      assert.ok(await issuer.users.findById(user.id));
      // Times with milliseconds, as the token endpoint makes them: stored (and so answered) in whole seconds.
      const token = { tokenHash: 'token-1', createdAt: new Date(now.getTime() + 123), expiresAt: new Date(now.getTime() + 3_600_456) };
      const code = await issuer.tokens.redeemCode({ codeHash: 'code-1', clientId: 'app', redirectUri: 'https://app.example.com/cb', codeChallenge: null }, token, now);
      assert.equal(code?.grantId, 'grant-1');
      // Stop the issuer's connections from answering reads: what it answers now comes from its memory.
      await runAdminSql(`set session_replication_role = replica; update ${schema.name}.access_tokens set scope = 'unannounced' where token_hash = 'token-1'`);
      const fromMemory = await issuer.tokens.findActiveWithUser('token-1', now);
      await runAdminSql(`set session_replication_role = replica; update ${schema.name}.access_tokens set scope = 'openid profile' where token_hash = 'token-1'`);
      assert.deepEqual(fromMemory, await other.tokens.findActiveWithUser('token-1', now), 'the same answer as the database’s');
      assert.deepEqual(fromMemory?.token.scope, ['openid', 'profile'], 'from memory: the unannounced change is not seen');
      await other.tokens.revokeByGrant('grant-1', now);
      await eventually(async () => (await issuer.tokens.findActiveWithUser('token-1', now)) === null, 'the revocation reaches the issuer', 2000);
    } finally {
      await other.close();
      await issuer.close();
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
