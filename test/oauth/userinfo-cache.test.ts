/**
 * Userinfo answers are cached per process on SQLite (storage/cached-reads.ts), kept only while the change
 * signal beside the database (`<database>-changes`, storage/change-signal.ts) reads as it did. These tests
 * look for a stale cache from outside, over HTTP against real servers on one real database file: an
 * in-process server (A) and a second `latch serve` process (B) on the same file, and the `latch` CLI.
 *
 * Every test first gets a 200 from userinfo (so the answer is cached: A caches tokens it issues, B caches on
 * its first read), then changes something, and expects the very next userinfo call to reflect it. Writes
 * made outside the repositories (`latch migrate`, `latch db copy --force` into a served file) must rewrite the
 * signal too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { sqlitePath } from '../../src/storage/database-url.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { callUserinfo, exchangeIssuedCode, issueCode, obtainAccessToken, type IssuedCode, type RawResponse } from '../helpers/code-fixtures.js';
import { startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Client = Awaited<ReturnType<TestServer['createClient']>>;

function assertInvalidToken(response: RawResponse, message: string): void {
  assert.equal(response.status, 401, `${message}: ${response.text}`);
  assert.equal(response.body?.error, 'invalid_token', message);
  assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/, message);
}

function assertServed(response: RawResponse, message: string): void {
  assert.equal(response.status, 200, `${message}: ${response.text}`);
}

function assertName(response: RawResponse, name: string, message: string): void {
  assertServed(response, message);
  assert.equal(response.body.name, name, `${message}: ${response.text}`);
}

const bearer = (token: string) => `Bearer ${token}`;

/** The signal's eight bytes, as hex. */
function readSignal(path: string): string {
  const bytes = readFileSync(path);
  assert.equal(bytes.length, 8, `${path} holds eight bytes`);
  return bytes.toString('hex');
}

describe('userinfo answers cached on SQLite never outlive a change', () => {
  let a: TestServer;
  let b: LatchProcess;
  let client: Client;
  let signalPath: string;

  before(async () => {
    a = await startTestServer({ database: 'sqlite' });
    const databasePath = sqlitePath(a.config.databaseUrl);
    assert.ok(databasePath);
    signalPath = `${databasePath}-changes`;
    client = await a.createClient({ name: 'Cached App' });
    // A second server process on the same database file, as `latch serve` beside it (or one of --workers).
    b = await startLatchProcess({
      env: { LATCH_DATABASE_URL: a.config.databaseUrl, LATCH_SECRET: a.config.secret, LATCH_LOG_LEVEL: 'info' },
      args: ['--no-migrate'],
      timeoutMs: 240_000,
    });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** A fresh user with a token issued (and so cached) by A, and the browser that signed in on A. */
  async function signedInUserWithToken(options: { client?: Client; name?: string } = {}) {
    const flowClient = options.client ?? client;
    const { user, password } = await a.createUser({ name: options.name });
    const issued = await issueCode(a, flowClient, { email: user.email, password });
    const exchanged = await exchangeIssuedCode(a, flowClient, issued);
    assert.equal(exchanged.status, 200, exchanged.text);
    return { user, issued, token: exchanged.body.access_token as string };
  }

  /** The CSRF token of the account page, read before userinfo is called so that nothing else runs in between. */
  async function accountCsrf(browser: TestBrowser, baseUrl: string): Promise<string> {
    const page = await browser.request(`${baseUrl}/account`);
    assert.equal(page.status, 200, `GET ${baseUrl}/account gave ${page.status}`);
    return inputValue(page.body, '_csrf');
  }

  describe('consent withdrawn on the account page ("Remove access")', () => {
    test('the token cached by the process that served the page → 401 at once', async () => {
      const { issued, token } = await signedInUserWithToken();
      const csrf = await accountCsrf(issued.browser, a.baseUrl);
      assertServed(await callUserinfo(a.baseUrl, bearer(token)), 'before removal');

      const removed = await issued.browser.request(`${a.baseUrl}/account/apps/remove`, { form: { _csrf: csrf, client_id: client.clientId } });
      assert.equal(removed.status, 303);
      assert.equal(removed.headers.get('location'), '/account?notice=access-removed#apps');

      assertInvalidToken(await callUserinfo(a.baseUrl, bearer(token)), 'userinfo on A right after the removal on A');
    });

    test('the token cached by another process on the same database file → 401 at once', async () => {
      const { issued, token } = await signedInUserWithToken();
      const csrf = await accountCsrf(issued.browser, a.baseUrl);
      assertServed(await callUserinfo(b.baseUrl, bearer(token)), 'before removal, on B');
      assertServed(await callUserinfo(b.baseUrl, bearer(token)), 'before removal, on B (a cache hit)');

      const removed = await issued.browser.request(`${a.baseUrl}/account/apps/remove`, { form: { _csrf: csrf, client_id: client.clientId } });
      assert.equal(removed.status, 303);

      assertInvalidToken(await callUserinfo(b.baseUrl, bearer(token)), 'userinfo on B right after the removal on A');
    });
  });

  describe('the user changes their name', () => {
    test('on the account page: the new name at once, in this process and in another one', async () => {
      const { issued, token } = await signedInUserWithToken({ name: 'Ada Byron' });
      const csrf = await accountCsrf(issued.browser, a.baseUrl);
      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Ada Byron', `before the change, on ${where}`);
      }

      const saved = await issued.browser.request(`${a.baseUrl}/account/profile`, {
        form: { _csrf: csrf, name: 'Ada Lovelace', avatar_url: 'https://images.example.com/avatar.png' },
      });
      assert.equal(saved.status, 303, saved.body.slice(0, 300));
      assert.equal(saved.headers.get('location'), '/account?notice=profile-saved#profile');

      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Ada Lovelace', `userinfo on ${where} right after the change on A's account page`);
      }
    });

    test('on the account page of the other process: the new name at once in both', async () => {
      const { issued, token } = await signedInUserWithToken({ name: 'Grace Brewster' });
      // The browser session made on A is known to B (same database and secret).
      const csrf = await accountCsrf(issued.browser, b.baseUrl);
      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Grace Brewster', `before the change, on ${where}`);
      }

      const saved = await issued.browser.request(`${b.baseUrl}/account/profile`, {
        form: { _csrf: csrf, name: 'Grace Hopper', avatar_url: 'https://images.example.com/avatar.png' },
      });
      assert.equal(saved.status, 303, saved.body.slice(0, 300));

      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Grace Hopper', `userinfo on ${where} right after the change on B's account page`);
      }
    });

    test('through storage (users.update): the new name at once, in this process and in another one', async () => {
      const { user, token } = await signedInUserWithToken({ name: 'Alan Turing' });
      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Alan Turing', `before the change, on ${where}`);
      }

      await a.storage.users.update(user.id, { name: 'Alan M. Turing' }, new Date());

      for (const [where, baseUrl] of [['A', a.baseUrl], ['B', b.baseUrl]] as const) {
        assertName(await callUserinfo(baseUrl, bearer(token)), 'Alan M. Turing', `userinfo on ${where} right after users.update in A`);
      }
    });
  });

  describe('a code replayed at the token endpoint', () => {
    async function replay(baseUrl: string, issued: IssuedCode): Promise<void> {
      const again = await exchangeIssuedCode({ ...a, baseUrl }, client, issued);
      assert.equal(again.status, 400, again.text);
      assert.equal(again.body.error, 'invalid_grant');
      assert.match(again.body.error_description, /now revoked/);
    }

    test('replayed at the process that issued and cached the token → 401 at once', async () => {
      const { issued, token } = await signedInUserWithToken();
      assertServed(await callUserinfo(a.baseUrl, bearer(token)), 'before the replay');
      await replay(a.baseUrl, issued);
      assertInvalidToken(await callUserinfo(a.baseUrl, bearer(token)), 'userinfo on A right after the replay on A');
    });

    test('replayed at another process: the process that cached the token and never saw the replay → 401 at once', async () => {
      // Issued (and cached) by A, cached by B too; replayed at B: A never sees the replay.
      const first = await signedInUserWithToken();
      assertServed(await callUserinfo(a.baseUrl, bearer(first.token)), 'before the replay, on A');
      assertServed(await callUserinfo(b.baseUrl, bearer(first.token)), 'before the replay, on B');
      await replay(b.baseUrl, first.issued);
      assertInvalidToken(await callUserinfo(a.baseUrl, bearer(first.token)), 'userinfo on A right after the replay on B');
      assertInvalidToken(await callUserinfo(b.baseUrl, bearer(first.token)), 'userinfo on B right after the replay on B');

      // The other way round: exchanged at B and cached there, replayed at A: B never sees the replay.
      const { user, password } = await a.createUser();
      const issued = await issueCode(a, client, { email: user.email, password });
      const exchanged = await exchangeIssuedCode({ ...a, baseUrl: b.baseUrl }, client, issued);
      assert.equal(exchanged.status, 200, exchanged.text);
      const token = exchanged.body.access_token as string;
      assertServed(await callUserinfo(b.baseUrl, bearer(token)), 'before the replay, on B (which issued it)');
      await replay(a.baseUrl, issued);
      assertInvalidToken(await callUserinfo(b.baseUrl, bearer(token)), 'userinfo on B right after the replay on A');
    });
  });

  test('the client deleted with `latch client delete` while the servers run → 401 at once', async () => {
    const doomed = await a.createClient({ name: 'Doomed App' });
    const { token } = await signedInUserWithToken({ client: doomed });
    assertServed(await callUserinfo(a.baseUrl, bearer(token)), 'before the deletion, on A');
    assertServed(await callUserinfo(b.baseUrl, bearer(token)), 'before the deletion, on B');

    const deleted = await runLatchCli(['client', 'delete', doomed.clientId], { LATCH_DATABASE_URL: a.config.databaseUrl, LATCH_SECRET: a.config.secret });
    assert.equal(deleted.code, 0, `${deleted.stdout}${deleted.stderr}`);
    assert.match(deleted.stdout, /Deleted client/);

    assertInvalidToken(await callUserinfo(a.baseUrl, bearer(token)), 'userinfo on A right after the CLI deleted the client');
    assertInvalidToken(await callUserinfo(b.baseUrl, bearer(token)), 'userinfo on B right after the CLI deleted the client');
  });

  test('the signal file: created at start, unchanged by userinfo calls, changed by a revocation', async () => {
    assert.ok(statSync(signalPath).isFile(), `${signalPath} exists beside the database`);
    assert.equal(signalPath, join(a.dataDir, 'latch.db-changes'));
    const { user, token } = await signedInUserWithToken();
    const before = readSignal(signalPath);
    for (let i = 0; i < 20; i++) {
      assertServed(await callUserinfo(a.baseUrl, bearer(token)), `call ${i + 1} on A`);
      assertServed(await callUserinfo(b.baseUrl, bearer(token)), `call ${i + 1} on B`);
    }
    assert.equal(readSignal(signalPath), before, 'answering userinfo (40 calls on two processes) changes nothing');

    assert.equal(await a.storage.tokens.revokeByUserAndClient(user.id, client.clientId, new Date()), 1);
    assert.notEqual(readSignal(signalPath), before, 'a revocation rewrites the signal');
    assertInvalidToken(await callUserinfo(a.baseUrl, bearer(token)), 'userinfo on A after the revocation');
    assertInvalidToken(await callUserinfo(b.baseUrl, bearer(token)), 'userinfo on B after the revocation');
  });
});

describe('a cached userinfo answer past its token expiry', () => {
  let server: TestServer;
  const ttlSeconds = 2;

  before(async () => {
    server = await startTestServer({ database: 'sqlite', env: { LATCH_ACCESS_TOKEN_TTL_SECONDS: String(ttlSeconds) } });
  });
  after(async () => server?.stop());

  test('→ 401 once the token expires, with no change signalled meanwhile', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const token = await obtainAccessToken(server, client, { email: user.email, password });
    const issuedAt = Date.now();
    assertServed(await callUserinfo(server.baseUrl, bearer(token)), 'right after the exchange');
    const signalPath = `${sqlitePath(server.config.databaseUrl)}-changes`;
    const signal = readSignal(signalPath);

    // Expiries are stored in whole seconds, rounded up: the token lives less than a second past its TTL.
    await new Promise((resolve) => setTimeout(resolve, issuedAt + (ttlSeconds + 1) * 1000 + 100 - Date.now()));
    assert.equal(readSignal(signalPath), signal, 'nothing was signalled: only the expiry check can refuse the token');
    assertInvalidToken(await callUserinfo(server.baseUrl, bearer(token)), 'userinfo after the token expired');
  });
});

test('`latch migrate` (another connection) applying a migration rewrites the signal', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'latch-test-'));
  try {
    const path = join(dataDir, 'latch.db');
    // A database one migration behind, as an older Latch left it.
    const storage = await openStorage(`sqlite:${path}`, { migrate: false });
    const names = Object.keys(await migrationProvider.getMigrations());
    const { error } = await new Migrator({ db: storage.db, provider: migrationProvider }).migrateTo(names.at(-2)!);
    await storage.close();
    assert.ifError(error);
    const before = readSignal(`${path}-changes`);

    const migrated = await runLatchCli(['migrate'], { LATCH_DATABASE_URL: `sqlite:${path}`, LATCH_SECRET: 'userinfo-cache-test-secret-0123456789-abcdef' });
    assert.equal(migrated.code, 0, `${migrated.stdout}${migrated.stderr}`);
    assert.match(migrated.stdout, new RegExp(`Applied: ${names.at(-1)}`));
    assert.notEqual(readSignal(`${path}-changes`), before, 'every process drops what it cached from the schema before');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('a database replaced under a running server by `latch db copy --force`', () => {
  let server: TestServer;
  let sourceDir: string;

  before(async () => {
    server = await startTestServer({ database: 'sqlite' });
    sourceDir = mkdtempSync(join(tmpdir(), 'latch-test-'));
  });
  after(async () => {
    await server?.stop();
    rmSync(sourceDir, { recursive: true, force: true });
  });

  test('a token cached before the copy, gone after it → 401 at once', async () => {
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    const token = await obtainAccessToken(server, client, { email: user.email, password });
    assertServed(await callUserinfo(server.baseUrl, bearer(token)), 'before the copy');

    // An empty, migrated database copied over the server's own.
    const source = `sqlite:${join(sourceDir, 'empty.db')}`;
    await (await openStorage(source)).close();
    const copied = await runLatchCli(['db', 'copy', '--from', source, '--to', server.config.databaseUrl, '--force'], { LATCH_SECRET: server.config.secret });
    assert.equal(copied.code, 0, `${copied.stdout}${copied.stderr}`);

    assertInvalidToken(await callUserinfo(server.baseUrl, bearer(token)), 'userinfo right after the copy replaced every row');
  });
});
