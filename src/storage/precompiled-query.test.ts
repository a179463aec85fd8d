import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { openStorage } from './open-storage.js';
import { precompileQuery, type Parameter } from './precompiled-query.js';

type OpenedStorage = Awaited<ReturnType<typeof openStorage>>;

async function insertUser(db: Kysely<Database>, email: string): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({ email, email_normalized: email, email_verified: 1, name: 'N', avatar_url: null, password_hash: 'x', created_at: 1, updated_at: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('precompiled queries', () => {
  let first: OpenedStorage;
  let second: OpenedStorage;
  before(async () => {
    first = await openStorage('sqlite::memory:');
    second = await openStorage('sqlite::memory:');
  });
  after(async () => {
    await first.close();
    await second.close();
  });

  test('binds each named value where its placeholder stands, whatever the order, and keeps constants', async () => {
    const id = await insertUser(first.db, 'order@example.com');
    const find = precompileQuery((db, p: Parameter<{ name: string; id: number }>) =>
      db.selectFrom('users').select(['id', 'email']).where('email_verified', '=', 1).where('id', '=', p('id')).where('name', '=', p('name')),
    );
    // Spread: node:sqlite (Node 24) returns rows without a prototype, better-sqlite3 plain objects.
    assert.deepEqual((await first.db.executeQuery(find(first.db, { name: 'N', id }))).rows.map((row) => ({ ...row })), [{ id, email: 'order@example.com' }]);
    assert.deepEqual((await first.db.executeQuery(find(first.db, { name: 'other', id }))).rows, []);
    assert.deepEqual((await first.db.executeQuery(find(first.db, { name: 'N', id: id + 1000 }))).rows, []);
  });

  test('is compiled once per database, and a transaction reuses its database’s compiled form', async () => {
    let builds = 0;
    const count = precompileQuery((db, p: Parameter<{ email: string }>) => {
      builds += 1;
      return db.selectFrom('users').select('id').where('email', '=', p('email'));
    });
    await first.db.executeQuery(count(first.db, { email: 'a@example.com' }));
    await first.db.executeQuery(count(first.db, { email: 'b@example.com' }));
    await first.db.transaction().execute((trx) => trx.executeQuery(count(trx, { email: 'c@example.com' })));
    assert.equal(builds, 1);
    await second.db.executeQuery(count(second.db, { email: 'a@example.com' }));
    assert.equal(builds, 2);
  });

  test('runs on the transaction it is given, so a rollback undoes it', async () => {
    const insert = precompileQuery((db, p: Parameter<{ email: string }>) =>
      db.insertInto('users').values({ email: p('email'), email_normalized: p('email'), email_verified: 0, name: 'T', avatar_url: null, password_hash: 'x', created_at: 1, updated_at: 1 }),
    );
    await assert.rejects(
      first.db.transaction().execute(async (trx) => {
        await trx.executeQuery(insert(trx, { email: 'rolled-back@example.com' }));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    const rows = await first.db.selectFrom('users').select('id').where('email', '=', 'rolled-back@example.com').execute();
    assert.equal(rows.length, 0);
  });

  test('refuses a missing value instead of binding it as NULL', async () => {
    const find = precompileQuery((db, p: Parameter<{ email: string }>) => db.selectFrom('users').select('id').where('email', '=', p('email')));
    assert.throws(() => find(first.db, {} as { email: string }), /no value for parameter email/);
  });
});
