/**
 * What the indexes of access_tokens cost each token inserted, on SQLite and PostgreSQL: the schema as shipped
 * (Latch's migrations, from ../dist: indexes on (user_id, client_id) and on grant_id, among others) against the
 * same schema with those two merged into one on (user_id, client_id, grant_id), which could serve every lookup
 * by user, by user and client, and by grant (whose callers know the grant's user and client).
 *
 * Each variant gets a fresh database prefilled with PREFILL tokens, then TOKENS tokens are inserted as the code
 * exchange inserts them: time-ordered token keys and grant ids, users and clients spread, GROUP tokens per
 * transaction (SQLite, prepared statements, as a group commit) or per multi-row statement (PostgreSQL, as a
 * batch). Rounds alternate the variants. Printed: time per token (median, min–max over the rounds), WAL pages
 * per commit (SQLite) and each index's size per token. BENCHMARKS.md, "Merging two indexes of access_tokens,
 * measured".
 *
 *   node token-indexes.mjs            (INDEX_ROUNDS=4 INDEX_TOKENS=40000 INDEX_PREFILL=200000 INDEX_GROUP=16)
 *   BENCH_POSTGRES=0 node token-indexes.mjs   (SQLite only)
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureLatchBuilt, ROOT } from './lib/latch.mjs';
import { createBenchDatabase } from './lib/postgres.mjs';
import { median } from './lib/stats.mjs';

const ROUNDS = Number(process.env.INDEX_ROUNDS ?? 4);
const TOKENS = Number(process.env.INDEX_TOKENS ?? 40_000);
const PREFILL = Number(process.env.INDEX_PREFILL ?? 200_000);
const GROUP = Number(process.env.INDEX_GROUP ?? 16);
const USERS = 10_000;
const CLIENTS = 20;
const log = (message) => process.stderr.write(`${message}\n`);

ensureLatchBuilt(log);
const require = createRequire(join(ROOT, 'package.json'));
const Database = require('better-sqlite3');
const pg = require('pg');
const { Migrator, sql } = await import(join(ROOT, 'node_modules/kysely/dist/esm/index.js'));
const { openStorage } = await import(join(ROOT, 'dist/storage/open-storage.js'));
const { migrationProvider } = await import(join(ROOT, 'dist/storage/migrations/index.js'));

const VARIANTS = [
  { name: 'shipped: (user_id, client_id) and (grant_id)', merged: false },
  { name: 'merged: (user_id, client_id, grant_id)', merged: true },
];

/** The schema of a variant (Latch's migrations, then the variant's indexes), with its users and clients. */
async function migrate(url, variant) {
  const storage = await openStorage(url, { migrate: false });
  try {
    const { error } = await new Migrator({ db: storage.db, provider: migrationProvider }).migrateToLatest();
    if (error) throw error;
    if (variant.merged) {
      await storage.db.schema.createIndex('access_tokens_user_client_grant').on('access_tokens').columns(['user_id', 'client_id', 'grant_id']).execute();
      await storage.db.schema.dropIndex('access_tokens_user_client').execute();
      await storage.db.schema.dropIndex('access_tokens_grant_id').execute();
    }
    await sql`insert into clients (client_id, name, secret_hash, redirect_uris, created_at, updated_at)
      select 'client-' || n, 'App', 's', '[]', 1, 1 from (${sql.raw(series(CLIENTS))}) as numbers`.execute(storage.db);
    await sql`insert into users (email, email_normalized, email_verified, name, password_hash, created_at, updated_at)
      select 'u' || n || '@example.com', 'u' || n || '@example.com', 1, 'User', 'h', 1, 1 from (${sql.raw(series(USERS))}) as numbers`.execute(storage.db);
  } finally {
    await storage.close();
  }
}

/** `select n` for n = 1…count, in SQL both databases run. */
function series(count) {
  return `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count}) select n from s`;
}

let clock = Date.now();
/** One access token row as the code exchange writes it: keys led by their creation time (crypto/secrets.ts). */
function tokenRow(i) {
  clock += 1;
  const time = clock.toString(16).padStart(11, '0');
  return [
    `${time}.${createHash('sha256').update(randomBytes(32)).digest('base64url')}`,
    `client-${1 + (i % CLIENTS)}`,
    1 + Math.floor(Math.random() * USERS),
    'openid profile',
    `${time}${randomBytes(16).toString('base64url')}`,
    Math.floor(clock / 1000),
    Math.floor(clock / 1000) + 3600,
  ];
}

async function sqliteRound(variant) {
  const dir = mkdtempSync(join(tmpdir(), 'latch-token-indexes-'));
  try {
    const path = join(dir, 'latch.db');
    await migrate(`sqlite:${path}`, variant);
    const db = new Database(path);
    // Latch's writer pragmas (storage/sqlite/connection.ts); checkpoints only when asked, so that the WAL's frames can be counted.
    for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'temp_store = MEMORY', 'wal_autocheckpoint = 0']) db.pragma(pragma);
    const insert = db.prepare('insert into access_tokens (token_hash, client_id, user_id, scope, grant_id, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)');
    const insertGroup = db.transaction((rows) => rows.forEach((row) => insert.run(row)));
    for (let i = 0; i < PREFILL; i += 1000) insertGroup(Array.from({ length: 1000 }, (_, k) => tokenRow(i + k)));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const groups = Array.from({ length: TOKENS / GROUP }, (_, g) => Array.from({ length: GROUP }, (_, k) => tokenRow(g * GROUP + k)));
    const start = performance.now();
    for (const group of groups) insertGroup(group);
    const microseconds = ((performance.now() - start) * 1000) / TOKENS;
    // PASSIVE answers how many frames the WAL holds (`log`); TRUNCATE before the timed part emptied it.
    const frames = db.pragma('wal_checkpoint(PASSIVE)')[0].log;
    const sizes = db.prepare("select name, sum(pgsize) as bytes from dbstat where name = 'access_tokens' or name in (select name from sqlite_master where tbl_name = 'access_tokens' and type = 'index') group by name").all();
    db.close();
    return { microseconds, pagesPerCommit: frames / groups.length, sizes: Object.fromEntries(sizes.map((row) => [row.name, row.bytes / (PREFILL + TOKENS)])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresRound(variant) {
  const database = await createBenchDatabase('indexes');
  if (database.skip) return { skip: database.skip };
  try {
    await migrate(database.databaseUrl, variant);
    const client = new pg.Client({ connectionString: database.databaseUrl });
    await client.connect();
    try {
      const statement = (count) =>
        `insert into access_tokens (token_hash, client_id, user_id, scope, grant_id, created_at, expires_at) values ${Array.from({ length: count }, (_, r) => `(${Array.from({ length: 7 }, (_, c) => `$${r * 7 + c + 1}`).join(', ')})`).join(', ')}`;
      const prefill = statement(1000);
      for (let i = 0; i < PREFILL; i += 1000) await client.query(prefill, Array.from({ length: 1000 }, (_, k) => tokenRow(i + k)).flat());
      await client.query('vacuum analyze access_tokens');
      const groups = Array.from({ length: TOKENS / GROUP }, (_, g) => Array.from({ length: GROUP }, (_, k) => tokenRow(g * GROUP + k)).flat());
      const text = statement(GROUP);
      const start = performance.now();
      for (const values of groups) await client.query({ name: 'insert-group', text, values });
      const microseconds = ((performance.now() - start) * 1000) / TOKENS;
      const sizes = await client.query("select relname as name, pg_relation_size(oid) as bytes from pg_class where relname = 'access_tokens' or oid in (select indexrelid from pg_index where indrelid = 'access_tokens'::regclass)");
      return { microseconds, sizes: Object.fromEntries(sizes.rows.map((row) => [row.name, Number(row.bytes) / (PREFILL + TOKENS)])) };
    } finally {
      await client.end();
    }
  } finally {
    await database.drop();
  }
}

function report(title, results) {
  console.log(`\n${title}: ${TOKENS} tokens after ${PREFILL}, ${GROUP} a ${title === 'SQLite' ? 'transaction' : 'statement'}, ${ROUNDS} rounds`);
  for (const variant of VARIANTS) {
    const rounds = results.get(variant);
    const times = rounds.map((round) => round.microseconds);
    const pages = rounds[0].pagesPerCommit === undefined ? '' : `, ${median(rounds.map((round) => round.pagesPerCommit)).toFixed(1)} WAL pages a commit`;
    const sizes = Object.entries(rounds.at(-1).sizes)
      .map(([name, bytes]) => `${name} ${bytes.toFixed(0)} B`)
      .join(', ');
    console.log(`  ${variant.name}: ${median(times).toFixed(2)} µs a token (${Math.min(...times).toFixed(2)}–${Math.max(...times).toFixed(2)})${pages}; per token: ${sizes}`);
  }
}

for (const [title, round] of [['SQLite', sqliteRound], ['PostgreSQL', postgresRound]]) {
  const results = new Map(VARIANTS.map((variant) => [variant, []]));
  let skipped = null;
  for (let r = 0; r < ROUNDS && !skipped; r++) {
    for (const variant of r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      log(`${title} round ${r + 1}: ${variant.name}`);
      const result = await round(variant);
      if (result.skip) skipped = result.skip;
      else results.get(variant).push(result);
    }
  }
  if (skipped) console.log(`\n${title}: skipped (${skipped})`);
  else report(title, results);
}
