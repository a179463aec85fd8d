/**
 * The SQLite group commit (group-commit.ts) on a database file, as served: group commit (one COMMIT for the
 * units of one event-loop round, a unit that fails undone alone), its isolation from Kysely transactions, what reads
 * see, and closing. Commits are counted in the WAL file itself (commit frames), not through a mock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { bindRepositories, createDatabase, migrateToLatest } from '../open-storage.js';
import { kyselyExecutor, type WritePlan } from '../query-executor.js';
import type { Storage } from '../storage.js';
import { openSqlite } from './connection.js';
import { openSqliteEngine, type SqliteEngine } from './engine.js';
import type { ExecuteNow, SqliteGroupCommit } from './group-commit.js';

/** The engine of a database file, migrated, with its repositories (as open-storage.ts composes them, uncached). */
async function openEngine(path: string): Promise<{ engine: SqliteEngine; storage: Storage & { db: Kysely<Database> } }> {
  const engine = openSqliteEngine(path);
  await migrateToLatest({ db: engine.db, signal: engine.signal });
  const storage = Object.assign(bindRepositories(engine.db, engine.executor, 'sqlite', () => engine.close()), { db: engine.db });
  return { engine, storage };
}

let dir: string;
let sequence = 0;
const newPath = () => join(dir, `latch-${++sequence}.db`);
const uniqueEmail = (label: string) => `${label}-${++sequence}-${Math.random().toString(36).slice(2)}@example.com`;

/**
 * Commits in the WAL since it was last restarted: frames whose header carries the database size after the
 * commit (non-zero only on a transaction's last frame) and the WAL header's salts (older frames of an earlier
 * WAL generation carry other salts). https://www.sqlite.org/fileformat2.html#walformat
 */
function walCommits(path: string): number {
  let wal: Buffer;
  try {
    wal = readFileSync(`${path}-wal`);
  } catch {
    return 0;
  }
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits += 1;
  }
  return commits;
}

function insertUser(db: Kysely<Database>, email: string): CompiledQuery {
  return db
    .insertInto('users')
    .values({ email, email_normalized: email, email_verified: 1, name: 'N', avatar_url: null, password_hash: 'x', created_at: 1, updated_at: 1 })
    .compile();
}

function selectUser(db: Kysely<Database>, email: string) {
  return db.selectFrom('users').select(['id', 'email']).where('email_normalized', '=', email).compile();
}

/** Whether the user is in the file, as another process would see it (a connection of its own). */
function committedElsewhere(path: string, emails: string[]): boolean[] {
  const connection = openSqlite(path, undefined, { readOnly: true });
  try {
    const statement = connection.prepare('select count(*) as n from users where email_normalized = ?');
    return emails.map((email) => (statement.all([email])[0] as { n: number }).n === 1);
  } finally {
    connection.close();
  }
}

const settledYet = (promise: Promise<unknown>) => {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
};

const nextRound = () => new Promise((resolve) => setImmediate(resolve));

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'latch-group-commit-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite group commit', () => {
  let path: string;
  let storage: Storage & { db: Kysely<Database> };
  let fastPath: SqliteGroupCommit;
  let openedEngine: SqliteEngine;
  before(async () => {
    path = newPath();
    const opened = await openEngine(path);
    storage = opened.storage;
    openedEngine = opened.engine;
    fastPath = opened.engine.groupCommit;
  });
  after(async () => storage?.close());

  test('writes issued in one round share one commit, and each caller gets its own result', async () => {
    const emails = Array.from({ length: 10 }, () => uniqueEmail('group'));
    const before = walCommits(path);
    const results = await Promise.all(emails.map((email) => fastPath.write((execute) => execute(insertUser(storage.db, email)).numAffectedRows)));
    assert.equal(walCommits(path) - before, 1);
    assert.deepEqual(results, emails.map(() => 1n));
    assert.deepEqual(committedElsewhere(path, emails), emails.map(() => true));
  });

  test('writes issued in different rounds get commits of their own', async () => {
    const before = walCommits(path);
    await fastPath.write((execute) => execute(insertUser(storage.db, uniqueEmail('first'))));
    await fastPath.write((execute) => execute(insertUser(storage.db, uniqueEmail('second'))));
    assert.equal(walCommits(path) - before, 2);
  });

  test('a deferrable write rides along with the next commit of other writes instead of committing on its own', async () => {
    const [rider, request] = [uniqueEmail('rider'), uniqueEmail('request')];
    const before = walCommits(path);
    const riding = fastPath.writeWithNext((execute) => execute(insertUser(storage.db, rider)), 5000);
    await nextRound();
    await nextRound();
    assert.deepEqual(committedElsewhere(path, [rider]), [false], 'it waits for a commit to join');
    await fastPath.write((execute) => execute(insertUser(storage.db, request)));
    await riding;
    assert.equal(walCommits(path) - before, 1, 'one commit for both');
    assert.deepEqual(committedElsewhere(path, [rider, request]), [true, true]);
  });

  test('with no other write, a deferrable write commits on its own after its wait', async () => {
    const rider = uniqueEmail('alone');
    const started = Date.now();
    await fastPath.writeWithNext((execute) => execute(insertUser(storage.db, rider)), 30);
    assert.ok(Date.now() - started >= 25, 'not before its wait');
    assert.deepEqual(committedElsewhere(path, [rider]), [true]);
  });

  test('a read that asks to see deferred writes commits the waiting ones first; a plain read does not wait for them', async () => {
    const rider = uniqueEmail('seen');
    const riding = fastPath.writeWithNext((execute) => execute(insertUser(storage.db, rider)), 5000);
    assert.equal((await openedEngine.executor.read(selectUser(storage.db, rider))).rows.length, 0);
    assert.equal((await openedEngine.executor.read(selectUser(storage.db, rider), { seeDeferredWrites: true })).rows.length, 1);
    await riding;
  });

  test('a deferrable unit that fails is undone alone; the writes it rode with are written', async () => {
    const [taken, request] = [uniqueEmail('taken-rider'), uniqueEmail('with-rider')];
    await fastPath.write((execute) => execute(insertUser(storage.db, taken)));
    const riding = fastPath.writeWithNext((execute) => execute(insertUser(storage.db, taken)), 5000);
    await fastPath.write((execute) => execute(insertUser(storage.db, request)));
    await assert.rejects(riding, /UNIQUE/);
    assert.deepEqual(committedElsewhere(path, [request]), [true]);
  });

  test('a unit that throws is rolled back alone and rejects; the others in its commit are written', async () => {
    const [a, b, c] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')];
    const before = walCommits(path);
    const outcomes = await Promise.allSettled([
      fastPath.write((execute) => execute(insertUser(storage.db, a))),
      fastPath.write((execute) => {
        execute(insertUser(storage.db, b));
        throw new Error('unit b fails after its insert');
      }),
      // A statement that fails in SQLite itself (email_normalized is unique), after a write of its own.
      fastPath.write((execute) => {
        execute(insertUser(storage.db, `${c}-first`));
        execute(insertUser(storage.db, a));
      }),
      fastPath.write((execute) => execute(insertUser(storage.db, c))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /unit b fails after its insert/);
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.equal(walCommits(path) - before, 1);
    assert.deepEqual(committedElsewhere(path, [a, b, `${c}-first`, c]), [true, false, false, true]);
  });

  test('units run once when none fails; after a failure the batch runs again in the same commit, each write landing once', async () => {
    const emails = Array.from({ length: 4 }, () => uniqueEmail('rerun'));
    const runs = [0, 0, 0, 0];
    const unit = (i: number, fail = false) => (execute: ExecuteNow) => {
      runs[i]! += 1;
      execute(insertUser(storage.db, emails[i]!));
      if (fail) throw new Error(`unit ${i} fails`);
      return i;
    };
    const before = walCommits(path);
    assert.deepEqual(await Promise.all([fastPath.write(unit(0)), fastPath.write(unit(1))]), [0, 1]);
    assert.deepEqual(runs.slice(0, 2), [1, 1], 'one savepoint for the batch: nothing runs twice');
    const outcomes = await Promise.allSettled([fastPath.write(unit(2)), fastPath.write(unit(3, true))]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected'],
    );
    assert.deepEqual(runs.slice(2), [2, 2], 'the batch ran again, each unit in a savepoint of its own');
    assert.equal(walCommits(path) - before, 2, 'one commit per batch, the second run included');
    // The first run's insert of unit 2 was undone, or its second run would have broken the unique email.
    assert.deepEqual(committedElsewhere(path, emails), [true, true, true, false]);
  });

  test('a lone unit (no savepoint) that fails after a write of its own writes nothing, and leaves no transaction open', async () => {
    const [failing, taken, next] = [uniqueEmail('lone'), uniqueEmail('taken'), uniqueEmail('next')];
    await fastPath.write((execute) => execute(insertUser(storage.db, taken)));
    const thrown = fastPath.write((execute) => {
      execute(insertUser(storage.db, failing));
      throw new Error('the lone unit fails after its insert');
    });
    await assert.rejects(thrown, /the lone unit fails after its insert/);
    // A statement SQLite itself refuses (email_normalized is unique), after a write of the unit's own.
    const refused = fastPath.write((execute) => {
      execute(insertUser(storage.db, `${failing}-second`));
      execute(insertUser(storage.db, taken));
    });
    await assert.rejects(refused, /UNIQUE/);
    // BEGIN IMMEDIATE would fail inside a transaction left open.
    await fastPath.write((execute) => execute(insertUser(storage.db, next)));
    assert.deepEqual(committedElsewhere(path, [failing, `${failing}-second`, taken, next]), [false, false, true, true]);
  });

  test('while another connection holds the write lock, a write waits without blocking the event loop, then commits', async () => {
    const other = openSqlite(path);
    const email = uniqueEmail('after-lock');
    try {
      other.prepare('begin immediate').run([]);
      const written = fastPath.write((execute) => execute(insertUser(storage.db, email)).numAffectedRows);
      const state = settledYet(written);
      // SQLite's busy handler would have slept on this thread: no timer would fire until the lock was gone (the
      // whole window). The window is long enough for a loaded machine (several test files on two cores) to fire some.
      const started = performance.now();
      let timersFired = 0;
      while (performance.now() - started < 300) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        timersFired += 1;
      }
      assert.ok(timersFired >= 5, `only ${timersFired} timers fired in 300 ms while the lock was held`);
      assert.equal(state.settled, false, 'the write cannot commit while the lock is held');
      other.prepare('commit').run([]);
      assert.equal(await written, 1n);
      assert.deepEqual(committedElsewhere(path, [email]), [true]);
    } finally {
      other.close();
    }
  });

  test('a unit that returns a promise is rejected and writes nothing; the others are written', async () => {
    const [sync, async] = [uniqueEmail('sync'), uniqueEmail('async')];
    const outcomes = await Promise.allSettled([
      fastPath.write((execute) => {
        execute(insertUser(storage.db, async));
        return Promise.resolve('escaped');
      }),
      fastPath.write((execute) => execute(insertUser(storage.db, sync))),
    ]);
    assert.equal(outcomes[0].status, 'rejected');
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /must be synchronous/);
    assert.equal(outcomes[1].status, 'fulfilled');
    assert.deepEqual(committedElsewhere(path, [async, sync]), [false, true]);
  });

  test('a batch whose COMMIT fails rejects every unit and writes none of them; the next batch commits', async () => {
    const [good, alsoGood] = [uniqueEmail('good'), uniqueEmail('also-good')];
    const outcomes = await Promise.allSettled([
      fastPath.write((execute) => execute(insertUser(storage.db, good))),
      // A foreign key checked only at COMMIT: the units all succeed, the commit does not.
      fastPath.write((execute) => {
        execute(CompiledQuery.raw('PRAGMA defer_foreign_keys = ON'));
        execute(
          storage.db
            .insertInto('access_tokens')
            .values({ token_hash: `orphan-${++sequence}`, client_id: 'no-such-client', user_id: 2_000_000_000, scope: 'openid', grant_id: 'orphan', created_at: 1, expires_at: 2, revoked_at: null })
            .compile(),
        );
      }),
      fastPath.write((execute) => execute(insertUser(storage.db, alsoGood))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected'],
    );
    for (const outcome of outcomes) assert.match(String((outcome as PromiseRejectedResult).reason), /FOREIGN KEY/);
    assert.deepEqual(committedElsewhere(path, [good, alsoGood]), [false, false]);
    const later = uniqueEmail('later');
    await fastPath.write((execute) => execute(insertUser(storage.db, later)));
    assert.deepEqual(committedElsewhere(path, [later]), [true]);
  });

  test('reads see a write as soon as its promise resolves, as does any other connection', async () => {
    const email = uniqueEmail('visible');
    const seen = await fastPath.write((execute) => execute(insertUser(storage.db, email))).then(() => ({
      fastPath: fastPath.read(selectUser(storage.db, email)).rows.length,
      elsewhere: committedElsewhere(path, [email])[0],
    }));
    assert.deepEqual(seen, { fastPath: 1, elsewhere: true });
  });

  test('a write issued while a transaction is open waits for it, and its rollback does not undo the write', async () => {
    const [inTransaction, onFastPath] = [uniqueEmail('in-transaction'), uniqueEmail('fast-path')];
    let pending: Promise<unknown> | undefined;
    let state: { settled: boolean } | undefined;
    await assert.rejects(
      storage.transaction(async (tx) => {
        assert.ok(await tx.users.insert({ email: inTransaction, emailVerified: true, name: 'T', avatarUrl: null, passwordHash: 'h' }, new Date()));
        pending = fastPath.write((execute) => execute(insertUser(storage.db, onFastPath)));
        state = settledYet(pending);
        // Let the group commit come due while the transaction is still open, and keep using the transaction.
        await nextRound();
        await nextRound();
        await tx.users.findByEmail(inTransaction);
        await nextRound();
        assert.equal(state.settled, false, 'the write waits for the transaction');
        throw new Error('abort');
      }),
      /abort/,
    );
    await pending;
    assert.deepEqual(committedElsewhere(path, [inTransaction, onFastPath]), [false, true]);
    assert.equal(fastPath.read(selectUser(storage.db, onFastPath)).rows.length, 1);
  });

  test('reads do not see the writes of an open transaction until it commits', async () => {
    const email = uniqueEmail('uncommitted');
    await storage.transaction(async (tx) => {
      assert.ok(await tx.users.insert({ email, emailVerified: true, name: 'T', avatarUrl: null, passwordHash: 'h' }, new Date()));
      assert.equal((await tx.users.findByEmail(email))?.email, email, 'the transaction sees its own write');
      assert.equal(fastPath.read(selectUser(storage.db, email)).rows.length, 0);
    });
    assert.equal(fastPath.read(selectUser(storage.db, email)).rows.length, 1);
  });

  test('a plan runs as one unit: a plan that throws half-way writes nothing, the plans beside it are written', async () => {
    const [first, second, beside] = [uniqueEmail('plan-first'), uniqueEmail('plan-second'), uniqueEmail('plan-beside')];
    const executor = openedEngine.executor;
    const outcomes = await Promise.allSettled([
      executor.run(function* (): WritePlan<never> {
        yield insertUser(storage.db, first);
        yield insertUser(storage.db, second);
        throw new Error('abort');
      }),
      executor.run(function* (): WritePlan<bigint | undefined> {
        return (yield insertUser(storage.db, beside)).numAffectedRows;
      }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'fulfilled'],
    );
    assert.deepEqual(committedElsewhere(path, [first, second, beside]), [false, false, true]);
  });

  test('in a transaction, a plan runs on the transaction (Kysely’s executor), so its rollback undoes it', async () => {
    const email = uniqueEmail('plan-in-transaction');
    await assert.rejects(
      storage.db.transaction().execute(async (trx) => {
        const written = await kyselyExecutor(trx).run(function* (): WritePlan<bigint | undefined> {
          return (yield insertUser(trx, email)).numAffectedRows;
        });
        assert.equal(written, 1n);
        assert.equal((await trx.executeQuery(selectUser(trx, email))).rows.length, 1, 'the transaction sees its own write');
        throw new Error('abort');
      }),
      /abort/,
    );
    assert.deepEqual(committedElsewhere(path, [email]), [false]);
  });
});

describe('SQLite engine: where there is none', () => {
  test('an in-memory database runs on Kysely alone, with no invalidation signal (nothing is cached)', async () => {
    const opened = await createDatabase('sqlite::memory:');
    try {
      assert.equal(opened.signal, null);
    } finally {
      await opened.close();
    }
  });
});

describe('SQLite group commit: closing', () => {
  test('close() finishes the writes already queued', async () => {
    const path = newPath();
    const { engine, storage } = await openEngine(path);
    const fastPath = engine.groupCommit;
    const emails = Array.from({ length: 5 }, () => uniqueEmail('queued'));
    const writes = emails.map((email) => fastPath.write((execute) => execute(insertUser(storage.db, email))));
    await storage.close();
    assert.deepEqual(
      (await Promise.allSettled(writes)).map((o) => o.status),
      emails.map(() => 'fulfilled'),
    );
    assert.deepEqual(committedElsewhere(path, emails), emails.map(() => true));
  });

  test('close() commits the deferrable writes still waiting', async () => {
    const path = newPath();
    const { engine, storage } = await openEngine(path);
    const email = uniqueEmail('closing-rider');
    const riding = engine.groupCommit.writeWithNext((execute) => execute(insertUser(storage.db, email)), 60_000);
    await storage.close();
    await riding;
    assert.deepEqual(committedElsewhere(path, [email]), [true]);
  });

  test('after close, writes reject and write nothing', async () => {
    const path = newPath();
    const { engine, storage } = await openEngine(path);
    const fastPath = engine.groupCommit;
    await fastPath.close();
    const email = uniqueEmail('after-close');
    try {
      // Kysely's connection is still open here: only the group commit's refusal keeps this out of the file.
      await assert.rejects(
        fastPath.write((execute) => execute(insertUser(storage.db, email))),
        /closed/,
      );
      await nextRound();
      await nextRound();
      assert.deepEqual(committedElsewhere(path, [email]), [false]);
    } finally {
      await storage.db.destroy();
    }
  });
});
