/**
 * What SQLite alone spends on a refresh (the refresh_token grant with rotation), and on which part: the statements
 * a refresh runs in a group commit, in batches as the token endpoint runs them at saturation, without HTTP, Fastify
 * or Latch's own code. BENCHMARKS.md, "The refresh's SQLite work, part by part".
 *
 * Each batch is BEGIN, one savepoint, then per refresh the rotation (`UPDATE … RETURNING`), the successor's insert,
 * the new access token's insert and the audit event's insert, then RELEASE and COMMIT (sqlite/group-commit.ts), on
 * Latch's own schema (its migrations, from ../dist) with the shipped pragmas (WAL, synchronous=NORMAL, temp_store in
 * memory, foreign keys on) and a passive checkpoint every ten batches (as the checkpointer's every 50 ms). Refresh
 * tokens are minted ahead (PREFILL, time-ordered keys as Latch's) and presented in order, each once.
 *
 * Variants, each a fresh copy of one migrated database, alternating over the rounds, CPU per refresh (user +
 * system, this process), the WAL frames (4 KiB pages) a refresh writes, and which tables and indexes the frames
 * of one batch belong to:
 *   shipped           as Latch runs it
 *   no-foreign-keys   `foreign_keys = OFF`: what the parent-row checks cost
 *   no-expiry-indexes without the expires_at indexes of refresh_tokens and access_tokens (cleanup's)
 *   no-audit-indexes  the audit row without its three indexes
 *   no-audit          no audit row at all
 *   rotation-in-place rows stored with placeholders as large as what rotation writes, so that a rotation does
 *                     not grow its row (a schema Latch does not have: what it would save)
 *   without-rowid     refresh_tokens and access_tokens as WITHOUT ROWID tables keyed by token_hash, so that the
 *                     key index is the table (also a schema Latch does not have)
 * The variants only measure: Latch ships every one of these parts.
 *
 *   node refresh-statements.mjs     (REFRESH_ROUNDS=3 REFRESH_PREFILL=200000 REFRESH_BATCH=16, REFRESH_VARIANTS=all of them)
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLatchBuilt, ROOT } from './lib/latch.mjs';
import { median } from './lib/stats.mjs';

const ROUNDS = Number(process.env.REFRESH_ROUNDS ?? 3);
const PREFILL = Number(process.env.REFRESH_PREFILL ?? 200_000);
const BATCH = Number(process.env.REFRESH_BATCH ?? 16);
const VARIANTS = (process.env.REFRESH_VARIANTS ?? 'shipped,no-foreign-keys,no-expiry-indexes,no-audit-indexes,no-audit,rotation-in-place,without-rowid').split(',');
const log = (message) => process.stderr.write(`${message}\n`);

ensureLatchBuilt(log);
const require = createRequire(join(ROOT, 'package.json'));
const Database = require('better-sqlite3');
const { openStorage } = await import(join(ROOT, 'dist/storage/open-storage.js'));

const workDir = mkdtempSync(join(tmpdir(), 'latch-refresh-statements-'));
const template = join(workDir, 'migrated.db');
await (await openStorage(`sqlite:${template}`)).close();

/** One variant on a fresh copy: mint PREFILL refresh tokens, warm up, then measure refreshing the rest. */
function measure(variant) {
  const path = join(workDir, `${variant}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  copyFileSync(template, path);
  const db = new Database(path);
  for (const pragma of ['journal_mode = WAL', 'synchronous = NORMAL', 'temp_store = MEMORY']) db.pragma(pragma);
  db.pragma(`foreign_keys = ${variant === 'no-foreign-keys' ? 'OFF' : 'ON'}`);
  if (variant === 'no-expiry-indexes') db.exec('drop index refresh_tokens_expires_at; drop index access_tokens_expires_at');
  if (variant === 'without-rowid') for (const table of ['refresh_tokens', 'access_tokens']) rebuildWithoutRowid(db, table);
  if (variant === 'no-audit-indexes') db.exec('drop index audit_events_created_at; drop index audit_events_user_id_created_at; drop index audit_events_client_id_created_at');
  const now = Math.floor(Date.now() / 1000);
  db.prepare("insert into users (email, email_normalized, name, password_hash, created_at, updated_at) values ('a@example.com', 'a@example.com', 'A', 'x', ?, ?)").run(now, now);
  db.prepare("insert into clients (client_id, name, secret_hash, redirect_uris, created_at, updated_at) values ('bench', 'Bench', 'h', '[]', ?, ?)").run(now, now);
  // Time-ordered keys, as Latch's tokens and grant ids (crypto/secrets.ts): the creation time first.
  let sequence = 0;
  const key = () => {
    sequence += 1;
    return `${Date.now().toString(36).padStart(10, '0')}${createHash('sha256').update(String(sequence)).digest('base64url')}`;
  };
  // rotation-in-place: a row is stored with placeholders of the size rotation writes (a 4-byte time, the
  // successor's text), so that rotating it does not grow it; "not rotated" is the placeholder time.
  const inPlace = variant === 'rotation-in-place';
  const NOT_ROTATED = 2 ** 31 - 1;
  const SUCCESSOR = 'successor-recovery-'.padEnd(60, 'x');
  const insertRefresh = db.prepare(
    `insert into refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, sid, amr, acr, created_at, expires_at, grant_expires_at, rotated_at, successor_encrypted, revoked_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${inPlace ? `${NOT_ROTATED}, '${'-'.repeat(SUCCESSOR.length)}'` : 'null, null'}, null)`,
  );
  const insertAccess = db.prepare('insert into access_tokens (token_hash, client_id, user_id, scope, grant_id, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)');
  const rotate = db.prepare(
    `update refresh_tokens set rotated_at = ?, successor_encrypted = ? where token_hash = ? and client_id = ? and rotated_at ${inPlace ? `= ${NOT_ROTATED}` : 'is null'} and revoked_at is null and expires_at > ? and grant_expires_at > ? returning *`,
  );
  const audit = db.prepare('insert into audit_events (created_at, type, user_id, actor_user_id, client_id, ip_address, user_agent, request_id, details) values (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const scope = 'offline_access profile';
  const tokens = [];
  const mint = db.transaction((count) => {
    for (let i = 0; i < count; i++) {
      const token = key();
      const grant = key();
      tokens.push(token);
      insertRefresh.run(token, grant, 'bench', 1, scope, now, 'sid', 'pwd', null, now, now + 86_400, now + 864_000);
      insertAccess.run(key(), 'bench', 1, scope, grant, now, now + 3600);
    }
  });
  for (let done = 0; done < PREFILL; done += 1000) mint(Math.min(1000, PREFILL - done));
  db.pragma('wal_checkpoint(TRUNCATE)');
  let next = 0;
  const batch = () => {
    db.exec('begin');
    db.exec('savepoint batch');
    for (let i = 0; i < BATCH; i++) {
      const row = rotate.get(now, SUCCESSOR, tokens[next++], 'bench', now, now);
      if (!row) throw new Error('a minted refresh token did not rotate');
      insertRefresh.run(key(), row.grant_id, 'bench', 1, row.scope, row.auth_time, row.sid, row.amr, row.acr, now, now + 86_400, row.grant_expires_at);
      insertAccess.run(key(), 'bench', 1, row.scope, row.grant_id, now, now + 3600);
      if (variant !== 'no-audit') {
        audit.run(now, 'token.refreshed', 1, null, 'bench', '127.0.0.1', 'bench/1.0', `req-${next}`, '{"scope":["offline_access","profile"],"refresh_token_issued":true}');
      }
    }
    db.exec('release batch');
    db.exec('commit');
  };
  // Warm-up: a tenth of the tokens.
  while (next < PREFILL / 10) batch();
  const byBtree = framesByBtree(db, path, batch);
  const first = next;
  const start = process.cpuUsage();
  let batches = 0;
  // WAL frames written (a page each, two pwrites each): what a passive checkpoint reports as the log's length,
  // counted from the restart of the WAL the previous checkpoint allowed (nothing else reads or writes here).
  let frames = 0;
  const checkpoint = () => (frames += db.pragma('wal_checkpoint(PASSIVE)')[0].log);
  checkpoint();
  frames = 0;
  while (next + BATCH <= PREFILL) {
    batch();
    if (++batches % 10 === 0) checkpoint();
  }
  const used = process.cpuUsage(start);
  checkpoint();
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  return { micros: (used.user + used.system) / (next - first), frames: frames / (next - first), byBtree };
}

/** The (empty) table again as a WITHOUT ROWID table keyed by its primary key, with its indexes: one B-tree fewer. */
function rebuildWithoutRowid(db, table) {
  const { sql: create } = db.prepare("select sql from sqlite_master where type = 'table' and name = ?").get(table);
  const indexes = db.prepare("select sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null").all(table);
  db.exec(`drop table ${table}`);
  db.exec(`${create} without rowid`);
  for (const { sql } of indexes) db.exec(sql);
}

/**
 * Which tables and indexes the pages of one batch belong to: the WAL emptied, one batch run, the page number of each
 * frame read from its header (the WAL's format: sqlite.org/fileformat.html, "WAL File Format") and named through
 * the dbstat table. Run after the warm-up, outside the measured time.
 */
function framesByBtree(db, path, batch) {
  db.pragma('wal_checkpoint(TRUNCATE)');
  batch();
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const owner = new Map(db.prepare('select pageno, name from dbstat').all().map(({ pageno, name }) => [pageno, name]));
  const counts = {};
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    const name = owner.get(wal.readUInt32BE(offset)) ?? '(free list)';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
}

try {
  const results = Object.fromEntries(VARIANTS.map((variant) => [variant, []]));
  const walFrames = Object.fromEntries(VARIANTS.map((variant) => [variant, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      const { micros, frames, byBtree } = measure(variant);
      results[variant].push(micros);
      walFrames[variant].push(frames);
      log(`  round ${round + 1} ${variant}: ${micros.toFixed(1)} µs, ${frames.toFixed(2)} WAL frames a refresh; one batch's frames: ${byBtree}`);
    }
  }
  console.log(`\nSQLite CPU per refresh, batches of ${BATCH}, ${PREFILL} refresh tokens minted, median (min–max) over ${ROUNDS} rounds:`);
  const shipped = median(results.shipped);
  for (const variant of VARIANTS) {
    const values = results[variant];
    const m = median(values);
    const delta = variant === 'shipped' ? '' : `  (${(m - shipped).toFixed(1)} µs against shipped)`;
    console.log(`  ${variant.padEnd(18)} ${m.toFixed(1)} µs (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})${delta}, ${median(walFrames[variant]).toFixed(2)} WAL frames a refresh`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
