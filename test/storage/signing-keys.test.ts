/**
 * The first signing keys (keys/signing-keys.ts ensureSigningKeys) when two processes start together on a fresh
 * database, on a SQLite file and on PostgreSQL: one key per algorithm between them, never one each. And the lock
 * their insert is taken under (signingKeys.lockForCreation) holding off another connection until its transaction ends:
 * checked on its own, as two transactions of one process never overlap on SQLite and seldom do on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { createKeyEncryption } from '../../src/crypto/key-encryption.js';
import { SIGNING_ALGORITHMS } from '../../src/crypto/signing-algorithms.js';
import { ensureSigningKeys } from '../../src/keys/signing-keys.js';
import { isSqliteBusy, openSqlite } from '../../src/storage/sqlite/connection.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { openPostgres, openSqliteFile, type Opened } from '../helpers/two-storages.js';

const encryption = createKeyEncryption('a-test-secret-that-is-long-enough-0123456789');
const unavailable = await postgresUnavailableReason();

async function withTwoStorages(open: () => Promise<Opened>, run: (opened: Opened) => Promise<void>): Promise<void> {
  const opened = await open();
  try {
    await run(opened);
  } finally {
    await opened.close();
  }
}

for (const [name, open, skip] of [
  ['SQLite file', openSqliteFile, undefined],
  ['PostgreSQL', openPostgres, unavailable ?? undefined],
] as const) {
  describe(`first signing keys on ${name}`, { skip }, () => {
    test('race: two processes ensuring keys at once on a fresh database create exactly one key per algorithm', () =>
      withTwoStorages(open, async ({ storage, other }) => {
        // Both find no key before either has inserted one: the race the creation lock is for.
        const created = await Promise.all([ensureSigningKeys(storage, encryption), ensureSigningKeys(other, encryption)]);
        const keys = await storage.signingKeys.listAll();
        assert.deepEqual(keys.map((key) => key.alg).sort(), [...SIGNING_ALGORITHMS].sort());
        // Each call returns only what it inserted: together, exactly the stored keys.
        assert.deepEqual(created.flat().map((key) => key.kid).sort(), keys.map((key) => key.kid).sort());
        assert.deepEqual(await ensureSigningKeys(other, encryption), [], 'nothing more once every algorithm has a key');
      }));
  });
}

describe('signingKeys.lockForCreation', () => {
  test('PostgreSQL: another transaction taking it waits until the holder commits', { skip: unavailable ?? undefined }, () =>
    withTwoStorages(openPostgres, async ({ storage, other }) => {
      const events: string[] = [];
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const first = storage.transaction(async (trx) => {
        await trx.signingKeys.lockForCreation();
        events.push('first locked');
        locked();
        await committing;
        events.push('first commits');
      });
      await Promise.race([holding, first]);
      const second = other.transaction(async (trx) => {
        await trx.signingKeys.lockForCreation();
        events.push('second locked');
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(events, ['first locked'], 'the second waits while the first holds the lock');
      } finally {
        commit();
        await Promise.all([first, second]);
      }
      assert.deepEqual(events, ['first locked', 'first commits', 'second locked']);
    }));

  test('SQLite file: it holds the write lock until the transaction ends', () =>
    withTwoStorages(openSqliteFile, async ({ storage }) => {
      // A connection of its own that never waits for a lock: in one process, a wait would block the holder too.
      const { rows } = await sql<{ file: string }>`pragma database_list`.execute(storage.db);
      const probe = openSqlite(rows[0]!.file, undefined, { pragmas: ['busy_timeout = 0'] });
      const canWrite = () => {
        try {
          probe.prepare('begin immediate').run([]);
          probe.prepare('rollback').run([]);
          return true;
        } catch (error) {
          if (isSqliteBusy(error)) return false;
          throw error;
        }
      };
      try {
        await storage.transaction(async (trx) => {
          await trx.signingKeys.lockForCreation();
          assert.equal(canWrite(), false, 'held inside the transaction');
        });
        assert.equal(canWrite(), true, 'released at commit');
      } finally {
        probe.close();
      }
    }));
});
