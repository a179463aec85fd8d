/** The repository conformance suite on SQLite: a fresh database file per run (a file, so that a second connection can share it). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../src/storage/open-storage.js';
import { defineRepositorySuite } from './repositories.suite.js';

defineRepositorySuite('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latch-sqlite-suite-'));
  const url = `sqlite:${join(dir, 'latch.db')}`;
  const storage = await openStorage(url);
  return {
    storage,
    openAnother: () => openStorage(url, { migrate: false }),
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
