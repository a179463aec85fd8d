/**
 * Migration 2026_11_24_0200_logout on a database that already holds sessions, clients, codes and refresh tokens,
 * on SQLite and PostgreSQL: every existing browser session gets its own random sid (and keeps working), clients
 * get no post-logout redirect URIs and no back-channel URI, codes and refresh tokens from before carry no sid,
 * and a session's recorded clients go with the session.
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

const BEFORE = '2026_11_24_0100_refresh_tokens';
const NOW = new Date('2026-11-24T12:00:00Z');
const FAR = 4102444800;

async function migrateTo(storage: OpenedStorage, name: string, schema: string | null): Promise<void> {
  const options = schema ? { provider: migrationProvider, migrationTableSchema: schema } : { provider: migrationProvider };
  const { error } = await new Migrator({ db: storage.db, ...options }).migrateTo(name);
  if (error) throw error;
}

/** Rows as the Latch before logout wrote them. */
async function seedBeforeMigration(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ id: number }>`insert into users (email, email_normalized, email_verified, name, avatar_url, password_hash, created_at, updated_at)
    values ('old@example.com', 'old@example.com', 1, 'Old', null, 'h', 1, 1) returning id`.execute(db);
  const userId = Number(rows[0]!.id);
  await sql`insert into clients (client_id, name, secret_hash, previous_secret_hash, previous_secret_expires_at, redirect_uris, owner_user_id, homepage_url, logo_url, created_at, updated_at)
    values ('old-client', 'Old app', 's', null, null, '["https://app.example.com/cb"]', null, null, null, 1, 1)`.execute(db);
  for (const hash of ['old-session-1', 'old-session-2']) {
    await sql`insert into browser_sessions (session_hash, user_id, auth_time, created_at, last_seen_at, expires_at, user_agent, ip_address)
      values (${hash}, ${userId}, 1, 1, 1, ${FAR}, null, null)`.execute(db);
  }
  await sql`insert into authorization_codes (code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, created_at, expires_at, consumed_at)
    values ('old-code', 'old-grant', 'old-client', ${userId}, 'https://app.example.com/cb', 'openid offline_access', null, null, 1, 1, ${FAR}, null)`.execute(db);
  await sql`insert into refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, created_at, expires_at, grant_expires_at, rotated_at, successor_encrypted, revoked_at)
    values ('old-refresh', 'old-grant', 'old-client', ${userId}, 'openid offline_access', 1, 1, ${FAR}, ${FAR}, null, null, null)`.execute(db);
  return userId;
}

async function checkMigrated(storage: OpenedStorage, userId: number): Promise<void> {
  const sessions = await Promise.all(['old-session-1', 'old-session-2'].map((hash) => storage.browserSessions.findActive(hash, NOW)));
  const sids = sessions.map((session) => session?.sid);
  for (const sid of sids) assert.match(sid ?? '', /^[0-9a-f]{32}$/, 'a random sid for each existing session; the session still works');
  assert.notEqual(sids[0], sids[1]);

  const client = await storage.clients.findById('old-client');
  assert.deepEqual(client?.postLogoutRedirectUris, []);
  assert.equal(client?.backchannelLogoutUri, null);
  assert.equal((await storage.authorizationCodes.findByHash('old-code'))?.sid, null);
  assert.equal((await storage.tokens.findRefreshByHash('old-refresh'))?.sid, null);

  // A new code in an old session records its client; ending the session returns it, and the rows go with it.
  await storage.authorizationCodes.insert({
    codeHash: 'new-code', grantId: 'new-grant', clientId: 'old-client', userId, redirectUri: 'https://app.example.com/cb', scope: ['openid'],
    nonce: null, codeChallenge: null, authTime: NOW, sid: sids[0]!, createdAt: NOW, expiresAt: new Date(FAR * 1000),
  });
  assert.deepEqual(await storage.transaction((tx) => tx.browserSessions.end(userId, { sessionHash: 'old-session-1' })), [{ sid: sids[0], clientIds: ['old-client'] }]);
  const left = await storage.db.selectFrom('browser_session_clients').selectAll().execute();
  assert.deepEqual(left, []);

  // sids are unique.
  await assert.rejects(() =>
    sql`insert into browser_sessions (session_hash, user_id, auth_time, created_at, last_seen_at, expires_at, user_agent, ip_address, sid)
      values ('dup', ${userId}, 1, 1, 1, ${FAR}, null, null, ${sids[1]!})`.execute(storage.db),
  );
}

describe('logout columns for sessions, clients, codes and refresh tokens from before them', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latch-logout-migration-'));
    dirs.push(dir);
    const storage = await openStorage(`sqlite:${join(dir, 'latch.db')}`, { migrate: false });
    try {
      await migrateTo(storage, BEFORE, null);
      const userId = await seedBeforeMigration(storage.db);
      await migrateToLatest(storage);
      await checkMigrated(storage, userId);
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
      const userId = await seedBeforeMigration(storage.db);
      await migrateToLatest(storage, { postgresSchema: schema.name });
      await checkMigrated(storage, userId);
      // The default that filled the old rows is gone: a new session must have a sid.
      await assert.rejects(
        () => sql`insert into browser_sessions (session_hash, user_id, auth_time, created_at, last_seen_at, expires_at) values ('no-sid', ${userId}, 1, 1, 1, 2)`.execute(storage.db),
        /sid/,
      );
    } finally {
      await storage.close();
      await schema.drop();
    }
  });
});
