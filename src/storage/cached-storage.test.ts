/**
 * The classification of every repository method in cached-storage.ts, checked against a running Storage:
 * a write method that is not classified (or is classified as a read) fails here, and every method classified
 * `invalidates` is shown to signal, through the wrapper, even when it throws.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCachedStorage, METHOD_EFFECTS, type MethodEffect } from './cached-storage.js';
import type { InvalidationSignal } from './invalidation-signal.js';
import { openStorage, type OpenedStorage } from './open-storage.js';
import type { Storage } from './storage.js';

/** Names that say "this writes": such a method can never be classified as a read. */
const WRITE_VERB = /^(insert|update|delete|revoke|grant|touch|consume|redeem|retire|end|invalidate|issue|rotate|create|set|mark)/;

class CountingSignal implements InvalidationSignal {
  changes = 0;
  current(): bigint {
    return BigInt(this.changes);
  }
  changed(): void {
    this.changes += 1;
  }
  close(): void {}
}

const NOW = new Date('2026-11-24T12:00:00Z');

/** One call of each invalidating method; a new one must be added here, or the test below fails. */
const INVALIDATING_CALLS: Record<string, (storage: Storage) => Promise<unknown>> = {
  'users.update': (s) => s.users.update(2_000_000, { name: 'N' }, NOW),
  'clients.update': (s) => s.clients.update('no-such-client', { name: 'N' }, NOW),
  'clients.delete': (s) => s.clients.delete('no-such-client'),
  'clients.deleteUnusedRegistrations': (s) => s.clients.deleteUnusedRegistrations(new Date(0)),
  'clients.deleteUnusedMetadataDocumentClients': (s) => s.clients.deleteUnusedMetadataDocumentClients(new Date(0)),
  'tokens.revokeAccessToken': (s) => s.tokens.revokeAccessToken('no-such-token', 'no-such-client', NOW),
  'tokens.revokeByGrant': (s) => s.tokens.revokeByGrant('no-such-grant', NOW),
  'tokens.revokeByUserAndClient': (s) => s.tokens.revokeByUserAndClient(2_000_000, 'no-such-client', NOW),
  'tokens.revokeByUser': (s) => s.tokens.revokeByUser(2_000_000, NOW),
  'users.delete': (s) => s.users.delete(2_000_000),
  // Fails on its foreign keys: an invalidating write that throws still signals (it may have committed).
  'consents.grant': (s) => s.consents.grant(2_000_000, 'no-such-client', ['openid'], NOW),
  'consents.revoke': (s) => s.consents.revoke(2_000_000, 'no-such-client'),
  'browserSessions.touch': (s) => s.browserSessions.touch('no-such-session', NOW),
  'browserSessions.renew': (s) =>
    s.browserSessions.renew('no-such-session', { sessionHash: 'other', authTime: NOW, lastSeenAt: NOW, expiresAt: NOW, userAgent: null, ipAddress: null }),
  'browserSessions.end': (s) => s.browserSessions.end(2_000_000, { allExcept: null }),
};

describe('cached storage: every repository method is classified', () => {
  let storage: OpenedStorage;
  before(async () => {
    storage = await openStorage('sqlite::memory:');
  });
  after(async () => storage?.close());

  const classified = METHOD_EFFECTS as unknown as Record<string, Record<string, MethodEffect>>;

  test('each repository of a running Storage has exactly the methods classified for it', () => {
    const repositories = Object.entries(storage).filter(([, value]) => value !== null && typeof value === 'object' && !('getExecutor' in value));
    assert.deepEqual(repositories.map(([name]) => name).sort(), Object.keys(classified).sort());
    for (const [name, repository] of repositories) {
      const methods = Object.keys(repository as object).filter((key) => typeof (repository as Record<string, unknown>)[key] === 'function');
      assert.deepEqual(methods.sort(), Object.keys(classified[name]!).sort(), `${name}: classify every method in METHOD_EFFECTS (cached-storage.ts)`);
    }
  });

  test('no method named as a write is classified as a read', () => {
    for (const [name, methods] of Object.entries(classified)) {
      for (const [method, effect] of Object.entries(methods)) {
        if (WRITE_VERB.test(method)) assert.ok(effect === 'invalidates' || effect === 'keeps cached reads', `${name}.${method} writes, but is classified '${effect}'`);
      }
    }
  });

  test('every invalidating method signals through the wrapper, also when it throws; no other write does', async () => {
    const signal = new CountingSignal();
    const cached = createCachedStorage(storage, signal);
    const invalidating = Object.entries(classified).flatMap(([name, methods]) =>
      Object.entries(methods)
        .filter(([, effect]) => effect === 'invalidates')
        .map(([method]) => `${name}.${method}`),
    );
    assert.deepEqual(invalidating.sort(), Object.keys(INVALIDATING_CALLS).sort(), 'add a call of each invalidating method to INVALIDATING_CALLS');
    for (const name of invalidating) {
      const before = signal.changes;
      await INVALIDATING_CALLS[name]!(cached).catch(() => {});
      assert.equal(signal.changes, before + 1, `${name} did not signal`);
    }
    // A write that keeps cached reads does not signal (an insert: only found rows are cached).
    const before = signal.changes;
    await cached.outbox.insert({ to: 'a@example.com', subject: 's', text: 't', createdAt: NOW });
    await cached.users.insert({ email: 'keeps@example.com', emailVerified: true, name: 'K', avatarUrl: null, passwordHash: 'h' }, NOW);
    assert.equal(signal.changes, before);
  });

  test('a transaction signals once it ends, whatever it did inside', async () => {
    const signal = new CountingSignal();
    const cached = createCachedStorage(storage, signal);
    await cached.transaction(async (tx) => tx.outbox.listRecent(1));
    assert.equal(signal.changes, 1);
    await assert.rejects(
      cached.transaction(async () => {
        throw new Error('abort');
      }),
      /abort/,
    );
    assert.equal(signal.changes, 2);
  });

  test('a cached read is answered from the cache until a write invalidates it', async () => {
    const signal = new CountingSignal();
    const cached = createCachedStorage(storage, signal);
    const user = await storage.users.insert({ email: 'cached@example.com', emailVerified: true, name: 'Before', avatarUrl: null, passwordHash: 'h' }, NOW);
    assert.ok(user);
    assert.equal((await cached.users.findById(user.id))?.name, 'Before');
    // Written past the wrapper: the cache cannot know, and answers as before.
    await storage.users.update(user.id, { name: 'Behind' }, NOW);
    assert.equal((await cached.users.findById(user.id))?.name, 'Before');
    // Written through it: every process forgets.
    await cached.users.update(user.id, { name: 'After' }, NOW);
    assert.equal((await cached.users.findById(user.id))?.name, 'After');
  });
});
