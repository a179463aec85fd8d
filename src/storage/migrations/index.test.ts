/**
 * The migrations are registered in the order they run: Kysely runs them by name, while `latch doctor` and the
 * tests read "the latest" from the registry's order. A migration registered out of place (two people adding
 * one at once) would make them disagree.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { migrationProvider } from './index.js';

test('every migration file is registered, in name order', async () => {
  const registered = Object.keys(await migrationProvider.getMigrations());
  assert.deepEqual(registered, [...registered].sort(), 'registered in name order');
  const files = readdirSync(dirname(fileURLToPath(import.meta.url)))
    .filter((name) => /^\d{4}_\d{2}_\d{2}_\d{4}_.+\.ts$/.test(name) && !name.endsWith('.test.ts'))
    .map((name) => name.replace(/\.ts$/, ''));
  assert.deepEqual([...files].sort(), [...registered].sort(), 'one registration per migration file');
});
