/**
 * `latch db backup` and `latch db restore` (README "Backup and restore"; reliability issue item 7) beside a real
 * `latch serve` process on the same embedded database (the backup beside a serving Latch as a process of its own,
 * at nice 19; the other commands in the test's process, helpers/cli.ts): a backup taken while the server commits
 * code exchanges holds every exchange answered before it began, and restores into a fresh folder where Latch
 * serves those tokens again; a restore refuses while a server uses the target (and goes ahead once it has
 * stopped, or was killed with SIGKILL); a file that is not a Latch database, a backup from a newer Latch, an
 * existing backup file without --force, and PostgreSQL are refused with a clear message.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import { openSqliteFile } from '../../src/storage/sqlite/file.js';
import { TestBrowser } from '../helpers/browser.js';
import { runLatch, runLatchProcess, startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import { authorize, exchangeCode, pkcePair, type FlowClient } from '../helpers/oauth-flow.js';

const REDIRECT_URI = 'http://127.0.0.1:9999/callback';
const USER = { email: 'backup@example.com', password: 'correct horse battery staple' };

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'latch-db-backup-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh data folder: the environment of a Latch on it (its secret is generated into the folder on first use). */
function dataFolder(name: string): { dir: string; path: string; env: Record<string, string> } {
  const dir = join(root, name);
  const path = join(dir, 'latch.db');
  return { dir, path, env: { LATCH_DATABASE_URL: `sqlite:${path}`, LATCH_ISSUER: 'http://latch.test' } };
}

async function latchOk(args: string[], env: Record<string, string>, input?: string): Promise<string> {
  const result = await runLatch(args, { env, ...(input === undefined ? {} : { input }) });
  assert.equal(result.code, 0, `latch ${args.join(' ')}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

function assertRefused(result: { code: number | null; stderr: string }, message: RegExp): void {
  assert.equal(result.code, 2, `exit code 2: ${result.stderr}`);
  assert.match(result.stderr, /^latch: /);
  assert.match(result.stderr, message);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
}

async function createClient(env: Record<string, string>, name = 'Backup App'): Promise<FlowClient> {
  const created = JSON.parse(await latchOk(['client', 'create', '--name', name, '--redirect-uri', REDIRECT_URI, '--json'], env));
  return { clientId: created.client_id, clientSecret: created.client_secret, redirectUris: created.redirect_uris };
}

/** Rows of one table of a database file, read with a connection of this test's own. */
function readColumn(path: string, query: string): unknown[] {
  const connection = openSqliteFile(path);
  try {
    return connection.prepare(query).all([]).map((row) => Object.values(row as object)[0]);
  } finally {
    connection.close();
  }
}

/** Names of the files in a folder that a restore may have left behind (temporary copies, kept databases). */
function leftovers(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.includes('.before-restore-'));
}

describe('latch db backup while latch serve takes writes', () => {
  let server: LatchProcess | undefined;
  after(() => server?.stop('SIGKILL'));

  test('the backup holds every exchange answered before it began; restored into a fresh folder, Latch serves those tokens', async () => {
    const source = dataFolder('serving');
    server = await startLatchProcess({ env: source.env });
    const client = await createClient(source.env);
    await latchOk(['user', 'create', '--email', USER.email, '--name', 'Backup User', '--email-verified', '--password-stdin', '--json'], source.env, USER.password);
    const browser = new TestBrowser();
    const baseUrl = server.baseUrl;

    // Code exchanges in a loop, four at a time: each answered token was committed before its response.
    const answered: string[] = [];
    let stop = false;
    const exchangeOnce = async (): Promise<void> => {
      const { verifier, challenge } = pkcePair();
      const params = { response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, scope: 'profile', state: 's', code_challenge: challenge, code_challenge_method: 'S256' };
      const redirect = await authorize(browser, baseUrl, params, USER);
      const token = await exchangeCode(baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, code_verifier: verifier });
      assert.equal(token.status, 200, JSON.stringify(token.body));
      answered.push(token.body.access_token as string);
    };
    await exchangeOnce(); // signs in and consents once; later authorizations redirect at once
    const loops = Array.from({ length: 4 }, async () => {
      while (!stop) await exchangeOnce();
    });
    try {
      while (answered.length < 100) await new Promise((resolve) => setTimeout(resolve, 20));
      const answeredBeforeBackup = [...answered];
      const backupFile = join(root, 'while-serving.db');
      // As an operator runs it: a process of its own, which lowers its own priority (a command run inside
      // another program leaves that program's priority alone: src/cli/terminal.ts ownsProcess).
      const backup = await runLatchProcess(['db', 'backup', backupFile], { env: source.env });
      const answeredDuringBackup = answered.length - answeredBeforeBackup.length;
      assert.equal(backup.code, 0, backup.stderr);
      assert.match(backup.stdout, /^access_tokens\s+\d+$/m);
      assert.match(backup.stdout, /Wrote .*while-serving\.db: [\d.]+ MB, \d+ rows in \d+ tables, integrity check ok\./);
      assert.match(backup.stdout, /at the lowest CPU priority \(nice 19\)/);
      assert.match(backup.stderr, /LATCH_SECRET/);
      assert.ok(answeredDuringBackup > 0, 'the server kept answering exchanges while the backup ran');

      const restored = dataFolder('restored');
      const restore = await runLatch(['db', 'restore', backupFile], { env: restored.env });
      assert.equal(restore.code, 0, restore.stderr);
      assert.match(restore.stdout, /integrity check ok/);
      assert.match(restore.stdout, /The backup has every migration of this Latch/);
      assert.match(restore.stderr, /same LATCH_SECRET/);
      assert.deepEqual(readColumn(restored.path, 'pragma integrity_check'), ['ok']);
      const restoredHashes = new Set(readColumn(restored.path, 'select token_hash from access_tokens'));
      const missing = answeredBeforeBackup.filter((token) => !restoredHashes.has(hashTimeOrderedSecret(token)));
      assert.deepEqual(missing, [], `${missing.length} of ${answeredBeforeBackup.length} tokens answered before the backup are missing`);
      assert.ok(existsSync(`${restored.path}-changes`), 'the change signal is written beside the restored database');
      assert.deepEqual(leftovers(restored.dir), []);

      // With the secret of the original, a server on the restored copy accepts a token from before the backup.
      copyFileSync(join(source.dir, 'secret'), join(restored.dir, 'secret'));
      const copy = await startLatchProcess({ env: restored.env });
      try {
        const info = await fetch(`${copy.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${answeredBeforeBackup[0]}` } });
        assert.equal(info.status, 200, await info.clone().text());
        assert.equal((await info.json()).email, USER.email);
      } finally {
        await copy.stop();
      }
    } finally {
      stop = true;
      await Promise.all(loops);
    }
  });
});

describe('latch db restore and a running Latch', () => {
  test('refuses while latch serve uses the target and changes nothing; goes ahead once it has stopped', async () => {
    const target = dataFolder('in-use');
    const server = await startLatchProcess({ env: target.env });
    try {
      await createClient(target.env, 'In The Backup');
      const backupFile = join(root, 'in-use-backup.db');
      await latchOk(['db', 'backup', backupFile], target.env);
      const later = await createClient(target.env, 'After The Backup');

      const refused = await runLatch(['db', 'restore', backupFile], { env: target.env });
      assertRefused(refused, /in use by a running Latch process.*stop it.*nothing was changed/);
      assert.deepEqual(leftovers(target.dir), []);
      // The server still serves the database as it was, with the client created after the backup.
      const clients = JSON.parse(await latchOk(['client', 'list', '--json'], target.env)) as Array<{ client_id: string }>;
      assert.ok(clients.some((client) => client.client_id === later.clientId));
      assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);

      await server.stop();
      const restored = await runLatch(['db', 'restore', backupFile], { env: target.env });
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /The database it replaced is kept as .*latch\.db\.before-restore-/);
      const names = readColumn(target.path, 'select name from clients order by name');
      assert.deepEqual(names, ['In The Backup']);
      // The replaced database is kept whole beside it, with the client created after the backup.
      const [kept] = leftovers(target.dir);
      assert.ok(kept, 'the replaced database is kept');
      assert.deepEqual(readColumn(join(target.dir, kept), 'select name from clients order by name'), ['After The Backup', 'In The Backup']);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  test('after latch serve was killed with SIGKILL, restore goes ahead and no stale WAL is replayed into the restored file', async () => {
    const target = dataFolder('killed');
    const server = await startLatchProcess({ env: target.env });
    await createClient(target.env, 'In The Backup');
    const backupFile = join(root, 'killed-backup.db');
    await latchOk(['db', 'backup', backupFile], target.env);
    await createClient(target.env, 'After The Backup');
    await server.stop('SIGKILL');
    assert.ok(existsSync(`${target.path}-wal`), 'the killed server left its WAL behind');

    const restored = await runLatch(['db', 'restore', backupFile], { env: target.env });
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(existsSync(`${target.path}-wal`), false);
    assert.deepEqual(readColumn(target.path, 'select name from clients order by name'), ['In The Backup']);
    assert.deepEqual(readColumn(target.path, 'pragma integrity_check'), ['ok']);
  });
});

describe('latch db restore refuses what it must not restore', () => {
  let target: ReturnType<typeof dataFolder>;
  let targetBytes: Buffer;
  before(async () => {
    target = dataFolder('refusals');
    await latchOk(['migrate'], target.env);
    await createClient(target.env, 'Kept');
    targetBytes = readFileSync(target.path);
  });

  function assertTargetUntouched(): void {
    assert.ok(readFileSync(target.path).equals(targetBytes), 'the target database is unchanged');
    assert.deepEqual(leftovers(target.dir), []);
  }

  test('a file that is not a SQLite database', async () => {
    const file = join(root, 'notes.txt');
    writeFileSync(file, 'these are not the rows you are looking for\n'.repeat(200));
    assertRefused(await runLatch(['db', 'restore', file], { env: target.env }), /notes\.txt is not a SQLite database/);
    assertTargetUntouched();
  });

  test('a SQLite database that is not a Latch database', async () => {
    const file = join(root, 'other-app.db');
    const other = openSqliteFile(file);
    other.prepare('create table notes (id integer primary key, body text)').run([]);
    other.prepare("insert into notes (body) values ('hello')").run([]);
    other.close();
    assertRefused(await runLatch(['db', 'restore', file], { env: target.env }), /other-app\.db is not a Latch database \(it has no kysely_migration table\)/);
    assertTargetUntouched();
  });

  test('a backup from a newer Latch (a migration this code does not know)', async () => {
    const file = join(root, 'newer.db');
    await latchOk(['db', 'backup', file], target.env);
    const newer = openSqliteFile(file);
    newer.prepare("insert into kysely_migration (name, timestamp) values ('2999_01_01_0000_from_the_future', '2999-01-01T00:00:00.000Z')").run([]);
    newer.close();
    assertRefused(await runLatch(['db', 'restore', file], { env: target.env }), /comes from a newer Latch .*2999_01_01_0000_from_the_future/);
    assertTargetUntouched();
  });

  test('a missing backup file', async () => {
    assertRefused(await runLatch(['db', 'restore', join(root, 'no-such-backup.db')], { env: target.env }), /There is no backup file at/);
    assertTargetUntouched();
  });
});

describe('latch db backup refusals', () => {
  test('an existing FILE is refused without --force and replaced with it', async () => {
    const source = dataFolder('force');
    await latchOk(['migrate'], source.env);
    const file = join(root, 'existing.db');
    writeFileSync(file, 'an earlier backup');
    assertRefused(await runLatch(['db', 'backup', file], { env: source.env }), /existing\.db already exists: .*--force/);
    assert.equal(readFileSync(file, 'utf8'), 'an earlier backup');
    // Run inside this test's process (helpers/cli.ts): the backup leaves the process's priority as it was.
    const priority = getPriority();
    const forced = await latchOk(['db', 'backup', file, '--force'], source.env);
    assert.equal(getPriority(), priority, 'a backup run inside another program does not lower its priority');
    assert.doesNotMatch(forced, /nice 19/);
    assert.deepEqual(readColumn(file, 'pragma integrity_check'), ['ok']);
  });

  test('a database that does not exist is not created to be backed up', async () => {
    const missing = dataFolder('never-created');
    assertRefused(await runLatch(['db', 'backup', join(root, 'of-nothing.db')], { env: missing.env }), /There is no database at/);
    assert.equal(existsSync(missing.path), false);
  });

  test('PostgreSQL is refused, pointing to pg_dump and pg_restore', async () => {
    const env = { LATCH_DATABASE_URL: 'postgres://latch@127.0.0.1:1/latch', LATCH_SECRET: 'a'.repeat(32) };
    assertRefused(await runLatch(['db', 'backup', join(root, 'pg.db')], { env }), /embedded SQLite database; for PostgreSQL use pg_dump --format=custom/);
    assertRefused(await runLatch(['db', 'restore', join(root, 'pg.db')], { env }), /for PostgreSQL use pg_restore --clean/);
  });
});
