/**
 * Migration 2026_11_24_0000_grant_ids on a database that already holds codes and tokens, on SQLite and
 * PostgreSQL: each existing code becomes a grant of its own, the tokens issued from it join that grant (so a
 * replay of the code still revokes them), and a token without a code is a grant of its own.
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

const BEFORE = '2026_11_23_0200_oidc_signing_keys';
const NOW = new Date('2026-11-24T12:00:00Z');

async function migrateTo(storage: OpenedStorage, name: string, schema: string | null): Promise<void> {
  const options = schema ? { provider: migrationProvider, migrationTableSchema: schema } : { provider: migrationProvider };
  const { error } = await new Migrator({ db: storage.db, ...options }).migrateTo(name);
  if (error) throw error;
}

/** Rows as an older Latch wrote them: one code with two tokens, and one token without a code. */
async function seedBeforeMigration(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: number }>`insert into users (email, email_normalized, email_verified, name, avatar_url, password_hash, created_at, updated_at)
    values ('old@example.com', 'old@example.com', 1, 'Old', null, 'h', 1, 1) returning id`.execute(db);
  const userId = Number(rows[0]!.id);
  await sql`insert into clients (client_id, name, secret_hash, previous_secret_hash, previous_secret_expires_at, redirect_uris, owner_user_id, homepage_url, logo_url, created_at, updated_at)
    values ('old-client', 'Old app', 's', null, null, '["https://app.example.com/cb"]', null, null, null, 1, 1)`.execute(db);
  await sql`insert into authorization_codes (code_hash, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, created_at, expires_at, consumed_at)
    values ('old-code', 'old-client', ${userId}, 'https://app.example.com/cb', 'openid', null, null, 1, 1, 4102444800, 2)`.execute(db);
  for (const [token, code] of [['old-token-1', 'old-code'], ['old-token-2', 'old-code'], ['codeless-token', null]] as const) {
    await sql`insert into access_tokens (token_hash, client_id, user_id, scope, authorization_code_hash, created_at, expires_at, revoked_at)
      values (${token}, 'old-client', ${userId}, 'openid', ${code}, 1, 4102444800, null)`.execute(db);
  }
}

async function checkMigrated(storage: OpenedStorage): Promise<void> {
  const code = await storage.authorizationCodes.findByHash('old-code');
  assert.equal(code?.grantId, 'old-code');
  assert.equal((await storage.tokens.findByHash('old-token-1'))?.grantId, 'old-code');
  assert.equal((await storage.tokens.findByHash('codeless-token'))?.grantId, 'codeless-token');
  // A replay of the old code revokes the tokens issued from it, and only those.
  assert.equal(await storage.tokens.revokeByGrant(code!.grantId, NOW), 2);
  assert.equal((await storage.tokens.findByHash('codeless-token'))?.revokedAt, null);
}

describe('grant ids for codes and tokens issued before them', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latch-grant-ids-'));
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
      // The default that filled the old rows is gone: a new row must name its grant.
      await assert.rejects(
        () =>
          sql`insert into access_tokens (token_hash, client_id, user_id, scope, created_at, expires_at) select 'no-grant', 'old-client', id, 'openid', 1, 2 from users limit 1`.execute(storage.db),
        /grant_id/,
      );
    } finally {
      await storage.close();
      await schema.drop();
    }
  });
});
