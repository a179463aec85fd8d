#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's own test runner (TypeScript through tsx).
// `npm test -- path/to/file.test.ts …` runs only those files.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules') continue;
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts') || entry.endsWith('.test.tsx')) found.push(path);
  }
  return found;
}

const requested = process.argv.slice(2);
const files = requested.length > 0 ? requested : [...findTests('src'), ...findTests('test')].sort();
if (files.length === 0) {
  console.error('No test files found.');
  process.exit(1);
}
const concurrency = process.env.LATCH_TEST_CONCURRENCY ?? '3';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, LATCH_LOG_LEVEL: process.env.LATCH_LOG_LEVEL ?? 'silent' } },
);
process.exit(result.status ?? 1);
