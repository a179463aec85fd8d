/**
 * The settings every writer connection to the embedded database opens with (connection.ts), read back
 * from SQLite itself on a database file, on the driver this Node uses: what the shipped server and the
 * benchmark run with.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { createDatabase, storageOptionsFromConfig } from '../open-storage.js';
import { openSqlite, type SqliteConnection } from './connection.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'latch-sqlite-connection-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function pragma(connection: SqliteConnection, name: string, column = name): unknown {
  const [row] = connection.prepare(`pragma ${name}`).all([]) as Array<Record<string, unknown>>;
  return row?.[column];
}

test('a writer connection runs in WAL mode, synchronous=NORMAL, with foreign keys and a busy timeout', () => {
  const connection = openSqlite(join(dir, 'writer.db'));
  try {
    assert.equal(pragma(connection, 'journal_mode'), 'wal');
    assert.equal(pragma(connection, 'synchronous'), 1); // NORMAL
    assert.equal(pragma(connection, 'foreign_keys'), 1);
    assert.equal(pragma(connection, 'busy_timeout', 'timeout'), 5000);
  } finally {
    connection.close();
  }
});

test('synchronous follows the option: full runs FULL (2), normal runs NORMAL (1)', () => {
  for (const [synchronous, expected] of [['full', 2], ['normal', 1]] as const) {
    const connection = openSqlite(join(dir, `synchronous-${synchronous}.db`), undefined, { synchronous });
    try {
      assert.equal(pragma(connection, 'synchronous'), expected, synchronous);
    } finally {
      connection.close();
    }
  }
});

test('LATCH_SQLITE_SYNCHRONOUS reaches the connection a server opens (config → storage options → pragma)', async () => {
  for (const [value, expected] of [['full', 2], ['normal', 1], ['', 1]] as const) {
    const databaseUrl = `sqlite:${join(dir, `config-${value || 'default'}.db`)}`;
    const config = loadConfig({ LATCH_DATABASE_URL: databaseUrl, LATCH_SECRET: 'a'.repeat(32), LATCH_SQLITE_SYNCHRONOUS: value });
    const { db, close } = await createDatabase(databaseUrl, storageOptionsFromConfig(config));
    try {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
      assert.equal(rows[0]?.synchronous, expected, value || 'default');
    } finally {
      await close();
    }
  }
});

test('savepoint journals stay in memory (temp_store=MEMORY), so a group commit writes no temporary file', () => {
  const connection = openSqlite(join(dir, 'temp-store.db'));
  try {
    assert.equal(pragma(connection, 'temp_store'), 2); // MEMORY
  } finally {
    connection.close();
  }
});

test('the read connection of the group commit cannot write', () => {
  const path = join(dir, 'reader.db');
  openSqlite(path).close();
  const reader = openSqlite(path, undefined, { readOnly: true });
  try {
    assert.equal(pragma(reader, 'query_only'), 1);
    assert.throws(() => reader.prepare('create table t (x)').run([]), /readonly|read-only|query_only|attempt to write/i);
  } finally {
    reader.close();
  }
});
