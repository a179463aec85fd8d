/**
 * Migration 2026_11_25_0430_registration_first_use on a database that already holds self-registered clients, on
 * SQLite and PostgreSQL: one in use by the earlier rule (it has a consent) is marked used at its registration, so
 * that the new rule (used = a token exchange) removes none that was in use; one never used stays unmarked and is
 * removed once its time is over; an operator's client is never touched.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { migrateToLatest, openStorage, type OpenedStorage } from '../../src/storage/open-storage.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason } from '../helpers/postgres.js';

const BEFORE = '2026_11_25_0300_registration_tokens';
const REGISTERED_AT = 1_700_000_000;

async function migrateTo(storage: OpenedStorage, name: string, schema: string | null): Promise<void> {
  const options = schema ? { provider: migrationProvider, migrationTableSchema: schema } : { provider: migrationProvider };
  const { error } = await new Migrator({ db: storage.db, ...options }).migrateTo(name);
  if (error) throw error;
}

async function seedBeforeMigration(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: number }>`insert into users (email, email_normalized, email_verified, name, avatar_url, password_hash, created_at, updated_at)
    values ('old@example.com', 'old@example.com', 1, 'Old', null, 'h', 1, 1) returning id`.execute(db);
  const userId = Number(rows[0]!.id);
  for (const [clientId, dynamic] of [['consented', 1], ['never-used', 1], ['operators', 0]] as const) {
    await sql`insert into clients (client_id, name, secret_hash, redirect_uris, created_at, updated_at, registered_dynamically)
      values (${clientId}, ${clientId}, 's', '["http://127.0.0.1/cb"]', ${REGISTERED_AT}, ${REGISTERED_AT}, ${dynamic})`.execute(db);
  }
  await sql`insert into consents (user_id, client_id, scope, created_at, updated_at) values (${userId}, 'consented', 'profile', 1, 1)`.execute(db);
}

async function checkMigrated(storage: OpenedStorage): Promise<void> {
  const firstUse = async (clientId: string) =>
    (await sql<{ first_used_at: number | string | null }>`select first_used_at from clients where client_id = ${clientId}`.execute(storage.db)).rows[0]?.first_used_at;
  assert.equal(Number(await firstUse('consented')), REGISTERED_AT, 'in use by the earlier rule: marked used at its registration');
  assert.equal(await firstUse('never-used'), null);
  assert.equal(await firstUse('operators'), null, 'the rule is for self-registered clients only');
  assert.equal(await storage.clients.deleteUnusedRegistrations(new Date((REGISTERED_AT + 10) * 1000), 10), 1);
  assert.equal(await storage.clients.findById('never-used'), null);
  assert.ok(await storage.clients.findById('consented'));
  assert.ok(await storage.clients.findById('operators'));
  // Marked once: a second mark changes nothing, and an operator's client is never marked.
  assert.equal(await storage.clients.markUsed('consented', new Date()), false);
  assert.equal(await storage.clients.markUsed('operators', new Date()), false);
}

describe('migration 2026_11_25_0430: self-registered clients in use before it stay', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latch-first-use-'));
    dirs.push(dir);
    const storage = await openStorage(`sqlite:${join(dir, 'latch.db')}`, { migrate: false });
    try {
      await migrateTo(storage, BEFORE, null);
      await seedBeforeMigration(storage.db);
      await migrateToLatest(storage);
      await checkMigrated(storage);
    } finally {
      await storage.close();
    }
  });

  test('PostgreSQL', async (t) => {
    const unavailable = await postgresUnavailableReason();
    if (unavailable) return t.skip(unavailable);
    const schema = await createTestSchema();
    const storage = await openStorage(POSTGRES_TEST_URL, { migrate: false, postgresSchema: schema.name });
    try {
      await migrateTo(storage, BEFORE, schema.name);
      await seedBeforeMigration(storage.db);
      await migrateToLatest(storage, { postgresSchema: schema.name });
      await checkMigrated(storage);
    } finally {
      await storage.close();
      await schema.drop();
    }
  });
});
