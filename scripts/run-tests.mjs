#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's own test runner (TypeScript through tsx).
// `npm test -- path/to/file.test.ts …` runs only those files.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/**
 * The slowest files first (scripts/test-durations.json, written by LATCH_TEST_DURATIONS_OUT=… npm test): the
 * runner starts files in the order given, so a slow file started last would run on alone at the end. Files not
 * measured yet (new ones) go first, as they may be slow; the rest in the order of their last measured time.
 */
function slowestFirst(files) {
  const path = 'scripts/test-durations.json';
  const measured = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const seconds = (file) => measured[file] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

const requested = process.argv.slice(2);
const files = requested.length > 0 ? requested : slowestFirst([...findTests('src'), ...findTests('test')]);
if (files.length === 0) {
  console.error('No test files found.');
  process.exit(1);
}
const concurrency = process.env.LATCH_TEST_CONCURRENCY ?? '3';
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    ...(process.env.LATCH_TEST_DURATIONS_OUT
      ? ['--test-reporter=./scripts/file-durations-reporter.mjs', `--test-reporter-destination=${process.env.LATCH_TEST_DURATIONS_OUT}`]
      : []),
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, LATCH_LOG_LEVEL: process.env.LATCH_LOG_LEVEL ?? 'silent' } },
);
process.exit(result.status ?? 1);
