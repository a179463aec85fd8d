/**
 * `latch db copy`: a populated SQLite database moves to PostgreSQL and a signed-in user's flow continues there;
 * a non-empty target is refused unless --force; a table the copy does not know stops it before any write.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { checkPlanCoversTables, COPY_PLAN, listTables } from '../../src/storage/database-copy.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { TestBrowser } from '../helpers/browser.js';
import { runLatch } from '../helpers/latch-process.js';
import { authorize, authorizeUrl, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql } from '../helpers/postgres.js';
import { startTestServer } from '../helpers/test-server.js';

test('the copy plan names every table the migrations create, and no other', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latch-plan-'));
  try {
    const storage = await openStorage(`sqlite:${join(dir, 'latch.db')}`);
    const tables = await listTables(storage.db);
    await storage.close();
    checkPlanCoversTables(tables);
    assert.deepEqual(COPY_PLAN.map((t) => t.table).sort(), [...tables].sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a table the copy plan does not know is refused by name', () => {
  assert.throws(() => checkPlanCoversTables(['users', 'signing_keys_v9']), /signing_keys_v9.*COPY_PLAN/);
});

const skip = (await postgresUnavailableReason()) ?? false;

describe('latch db copy from SQLite to PostgreSQL', { skip }, () => {
  test('every row moves, counts are verified, and a signed-in user continues the flow on PostgreSQL', async () => {
    const sqliteServer = await startTestServer({ database: 'sqlite' });
    const schema = await createTestSchema();
    let pgServer: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      // Populate: a user who signed in and consented, a client, a live token, a used code, a client event.
      const client = await sqliteServer.createClient();
      const { user, password } = await sqliteServer.createUser();
      await sqliteServer.createUser();
      const browser = new TestBrowser();
      const { verifier, challenge } = pkcePair();
      const params = { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'profile', code_challenge: challenge, code_challenge_method: 'S256' };
      const redirect = await authorize(browser, sqliteServer.baseUrl, params, { email: user.email, password });
      const token = await exchangeCode(sqliteServer.baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, code_verifier: verifier });
      assert.equal(token.status, 200);
      const failed = await exchangeCode(sqliteServer.baseUrl, client, { grant_type: 'authorization_code', code: 'not-a-code', code_verifier: verifier });
      assert.equal(failed.status, 400);
      // A device waiting for its person (RFC 8628): only hashes, carried over.
      const deviceWaiting = { deviceCodeHash: 'copied-device-code-hash', userCodeHash: 'copied-user-code-hash', clientId: client.clientId, scope: ['openid'], intervalSeconds: 5, createdAt: new Date(), expiresAt: new Date(Date.now() + 600_000), resources: ['https://api.example.com/'] };
      assert.equal(await sqliteServer.storage.deviceAuthorizations.insert(deviceWaiting), true);
      const secret = readFileSync(join(sqliteServer.dataDir, 'secret'), 'utf8').trim();
      const sqliteUrl = sqliteServer.config.databaseUrl;
      await sqliteServer.stop({ keepData: true });

      const copy = await runLatch(['db', 'copy', '--from', sqliteUrl, '--to', POSTGRES_TEST_URL, '--to-schema', schema.name], { env: {} });
      assert.equal(copy.code, 0, copy.stderr);
      assert.match(copy.stdout, /^users\s+2$/m);
      assert.match(copy.stdout, /^clients\s+1$/m);
      assert.match(copy.stdout, /^consents\s+1$/m);
      assert.match(copy.stdout, /^access_tokens\s+1$/m);
      assert.match(copy.stdout, /^browser_sessions\s+1$/m);
      assert.match(copy.stdout, /^client_events\s+1$/m);
      assert.match(copy.stdout, /^device_authorizations\s+1$/m);
      assert.match(copy.stdout, /row counts verified/);
      assert.match(copy.stderr, /LATCH_SECRET/);

      pgServer = await startTestServer({ database: 'postgres', postgresSchema: schema.name, env: { LATCH_SECRET: secret } });
      const copiedDevice = await pgServer.storage.deviceAuthorizations.findByDeviceCodeHash(deviceWaiting.deviceCodeHash);
      assert.equal(copiedDevice?.clientId, client.clientId);
      assert.deepEqual(copiedDevice?.resources, deviceWaiting.resources);
      // The token issued on SQLite is still good.
      const info = await fetch(`${pgServer.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(info.status, 200);
      assert.equal((await info.json()).email, user.email);

      // The browser session and the consent came along: no sign-in page, no consent page, straight to the client.
      const again = pkcePair();
      const page = await browser.follow(authorizeUrl(pgServer.baseUrl, { ...params, code_challenge: again.challenge }), pgServer.baseUrl);
      assert.equal(page.status, 302, page.body.slice(0, 300));
      const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
      const second = await exchangeCode(pgServer.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: again.verifier });
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.equal(second.body.user.id, user.id);

      // The password works on a fresh browser, and new rows get ids after the copied ones.
      const fresh = await authorize(new TestBrowser(), pgServer.baseUrl, { ...params, code_challenge: pkcePair().challenge }, { email: user.email, password });
      assert.ok(fresh.searchParams.get('code'));
      const { user: newcomer } = await pgServer.createUser();
      assert.ok(newcomer.id > user.id);
      await pgServer.storage.clientEvents.insert({ clientId: client.clientId, createdAt: new Date(), endpoint: 'token', error: 'invalid_grant', description: 'x', requestId: 'r', details: null });

      // A second copy into the same, now non-empty, schema is refused and changes nothing; --force replaces it.
      const refused = await runLatch(['db', 'copy', '--from', sqliteUrl, '--to', POSTGRES_TEST_URL, '--to-schema', schema.name], { env: {} });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /already has data.*--force/);
      assert.equal((await runAdminSql(`select count(*)::int as n from ${schema.name}.users`)).rows[0].n, 3);
      const forced = await runLatch(['db', 'copy', '--from', sqliteUrl, '--to', POSTGRES_TEST_URL, '--to-schema', schema.name, '--force'], { env: {} });
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal((await runAdminSql(`select count(*)::int as n from ${schema.name}.users`)).rows[0].n, 2);
    } finally {
      await pgServer?.stop();
      await sqliteServer.stop();
      await schema.drop();
      rmSync(sqliteServer.dataDir, { recursive: true, force: true });
    }
  });

  test('a source table the copy does not know stops it before anything is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latch-unknown-table-'));
    const schema = await createTestSchema();
    try {
      const sqliteUrl = `sqlite:${join(dir, 'latch.db')}`;
      const source = await openStorage(sqliteUrl);
      await sql`create table webauthn_credentials (id text primary key)`.execute(source.db);
      await source.close();
      const copy = await runLatch(['db', 'copy', '--from', sqliteUrl, '--to', POSTGRES_TEST_URL, '--to-schema', schema.name], { env: {} });
      assert.equal(copy.code, 2);
      assert.match(copy.stderr, /webauthn_credentials/);
      assert.equal((await runAdminSql(`select count(*)::int as n from information_schema.tables where table_schema = $1`, [schema.name])).rows[0].n, 0);
    } finally {
      await schema.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
