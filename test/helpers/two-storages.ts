/**
 * Two connection pools on one fresh database, as two Latch processes have: the storage tests of queues and
 * one-time records race them against each other. On SQLite a file of its own; on PostgreSQL a schema of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type OpenedStorage } from '../../src/storage/open-storage.js';
import { createTestSchema, POSTGRES_TEST_URL } from './postgres.js';

export interface Opened {
  storage: OpenedStorage;
  /** A second connection pool (a second process) on the same database. */
  other: OpenedStorage;
  close(): Promise<void>;
}

export async function openSqliteFile(): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), 'latch-storage-'));
  const url = `sqlite:${join(dir, 'latch.db')}`;
  const storage = await openStorage(url);
  const other = await openStorage(url, { migrate: false });
  return {
    storage,
    other,
    async close() {
      await other.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function openPostgres(): Promise<Opened> {
  const schema = await createTestSchema();
  const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 5 });
  const other = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 5, migrate: false });
  return {
    storage,
    other,
    async close() {
      await other.close();
      await storage.close();
      await schema.drop();
    },
  };
}
