/**
 * `latch doctor` (issue 16 item 5; README "latch doctor"), run in the test's process (helpers/cli.ts; once as
 * bin/latch.js itself) against real installations:
 * a fresh data folder, a bad configuration, a serving Latch, a database one migration behind, a backlog of
 * expired rows, SMTP up and down, PostgreSQL (connections against max_connections, clock) and PostgreSQL away.
 * It must change nothing: files, modification times and rows are compared before and after, and migrations it
 * reports stay pending.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { createKeyEncryption } from '../../src/crypto/key-encryption.js';
import { ensureSigningKeys } from '../../src/keys/signing-keys.js';
import { KNOWN_MIGRATIONS, readAppliedMigrations } from '../../src/storage/database-inspection.js';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { openStorage, type OpenedStorage } from '../../src/storage/open-storage.js';
import { runLatchCli } from '../helpers/cli.js';
import { runLatchProcess } from '../helpers/latch-process.js';
import { startFakeSmtp } from '../helpers/fake-smtp.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql } from '../helpers/postgres.js';
import { REDIS_TEST_URL, redisUnavailableReason } from '../helpers/redis.js';
import { startTestServer } from '../helpers/test-server.js';

const STRONG_SECRET = randomBytes(32).toString('base64url');

interface Finding {
  check: string;
  level: 'ok' | 'note' | 'warning' | 'problem';
  title: string;
  fix: string | null;
}
interface Report {
  installation: { database: string; issuer: string; processes: number; processes_from: string } | null;
  findings: Finding[];
  counts: Record<Finding['level'], number>;
  exit_status: number;
}

/**
 * `latch doctor ARGS` with exactly this Latch environment: the test runner's own LATCH_* variables are blanked,
 * so that only `env` configures it (the CLI treats an empty variable as unset).
 */
async function doctor(args: string[], env: Record<string, string>) {
  const blank = Object.fromEntries(Object.keys(process.env).filter((name) => name.startsWith('LATCH_') || name === 'HOST' || name === 'PORT').map((name) => [name, '']));
  return runLatchCli(['doctor', ...args], { ...blank, LATCH_LOG_LEVEL: 'silent', ...env });
}

/** The text report with each finding on one line: its wrapped lines (title, then fix) joined by spaces. */
function flat(stdout: string): string {
  return stdout.replace(/\n {9}/g, ' ');
}

async function doctorJson(env: Record<string, string>, args: string[] = []): Promise<{ code: number; report: Report; stderr: string }> {
  const { code, stdout, stderr } = await doctor(['--json', ...args], env);
  return { code, report: JSON.parse(stdout) as Report, stderr };
}

function levelOf(report: Report, check: string): Finding['level'] | undefined {
  return report.findings.find((finding) => finding.check === check)?.level;
}

/** Every file of a folder with its size, mode and modification time: what "nothing was written" compares. */
function filesOf(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => {
    const stat = statSync(join(dir, name));
    return [name, `${stat.size} ${stat.mode.toString(8)} ${stat.mtimeMs}`];
  }));
}

async function rowCounts(db: Kysely<any>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['users', 'browser_sessions', 'signing_keys', 'access_tokens', 'authorization_codes', 'kysely_migration']) {
    const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

async function migrateTo(storage: OpenedStorage, name: string, schema: string | null): Promise<void> {
  const { error } = await new Migrator({ db: storage.db, provider: migrationProvider, ...(schema && { migrationTableSchema: schema }) }).migrateTo(name);
  if (error) throw error;
}

/** Browser sessions that expired an hour ago, as a Latch whose cleanup never ran would keep them. */
async function seedExpiredSessions(db: Kysely<any>, count: number): Promise<void> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const { rows } = await sql<{ id: number }>`insert into users (email, email_normalized, email_verified, name, avatar_url, password_hash, created_at, updated_at)
    values ('backlog@example.com', 'backlog@example.com', 1, 'Backlog', null, 'h', ${nowSeconds}, ${nowSeconds}) returning id`.execute(db);
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i++) {
      await sql`insert into browser_sessions (session_hash, user_id, auth_time, created_at, last_seen_at, expires_at, user_agent, ip_address, sid)
        values (${`expired-${i}`}, ${rows[0]!.id}, ${nowSeconds - 90000}, ${nowSeconds - 90000}, ${nowSeconds - 90000}, ${nowSeconds - 3600}, null, null, ${`sid-${i}`})`.execute(trx);
    }
  });
}

describe('latch doctor', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'latch-doctor-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  test('a clean install (nothing started yet): exit 0, every check listed, and no file created', async () => {
    const dir = newDir();
    const dataDir = join(dir, 'data');
    const env = { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}` };
    const { code, stdout: wrapped, stderr } = await doctor([], env);
    const stdout = flat(wrapped);
    assert.equal(code, 0, stdout + stderr);
    assert.equal(stderr, '');
    assert.match(stdout, /^Latch doctor: sqlite:.*latch\.db, issuer http:\/\/localhost:3000, 1 process \(one process: neither --workers nor LATCH_WORKERS\)/);
    assert.match(stdout, /note {5}LATCH_ISSUER http:\/\/localhost:3000 is on this machine: a development setup/);
    assert.match(stdout, /note {5}LATCH_SECRET is not set and .*data\/secret does not exist yet: the first start generates it/);
    assert.match(stdout, /note {5}The embedded database sqlite:.*latch\.db does not exist yet/);
    assert.match(stdout, /note {5}LATCH_SMTP_URL is not set: mail is kept in the local outbox/);
    assert.match(stdout, /\n0 problems, 0 warnings, 4 notes, 0 ok; exit status 0\n$/);
    // config.ts would have generated data/secret and the database: the doctor creates neither, nor the folder.
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a bad configuration: an http issuer on a public host without dev mode and a weak secret fail it, each with its fix', async () => {
    const dir = newDir();
    const weakSecret = 'changemechangemechangemechangeme';
    const env = { LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`, LATCH_ISSUER: 'http://auth.example.com', HOST: '0.0.0.0', LATCH_SECRET: weakSecret, LATCH_WORKERS: '3' };
    const { code, stdout: wrapped, stderr } = await doctor([], env);
    const stdout = flat(wrapped);
    assert.equal(code, 1, stdout + stderr);
    assert.equal(stderr, '');
    assert.match(stdout, /problem  LATCH_ISSUER http:\/\/auth\.example\.com is http on a public host, and LATCH_DEV_MODE is off/);
    assert.match(stdout, /fix: Put a TLS-terminating reverse proxy or load balancer in front of Latch, then set LATCH_ISSUER=https:\/\/auth\.example\.com and LATCH_TRUST_PROXY=1\./);
    assert.match(stdout, /problem  LATCH_SECRET looks weak: it contains "changeme" fix: Generate one, e\.g\. `openssl rand -base64 32`/);
    assert.match(stdout, /problem  LATCH_SMTP_URL is not set on a production issuer/);
    assert.match(stdout, /warning  3 processes and no LATCH_REDIS_URL/);
    assert.match(stdout, /3 problems, 1 warning, .*; exit status 1\n$/);
    assert.ok(!stdout.includes(weakSecret), 'the secret is never printed');

    // Behind TLS (an https issuer) without trust-proxy: Latch cannot terminate TLS, so a proxy does.
    const proxied = await doctorJson({ ...env, LATCH_ISSUER: 'https://auth.example.com', HOST: '127.0.0.1', LATCH_SECRET: STRONG_SECRET, LATCH_WORKERS: '' });
    assert.equal(proxied.code, 1);
    assert.equal(levelOf(proxied.report, 'issuer'), 'ok');
    assert.equal(levelOf(proxied.report, 'trust-proxy'), 'problem');
    assert.match(proxied.report.findings.find((f) => f.check === 'trust-proxy')!.title, /a proxy on this machine \(HOST is 127\.0\.0\.1\) does/);
  });

  test('a configuration Latch refuses is a problem per item, without repeating credentials', async () => {
    const dir = newDir();
    const { code, stdout } = await doctor([], {
      LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`,
      LATCH_REDIS_URL: 'http://admin:hunter2-redis@cache.example.com',
      LATCH_ACCESS_TOKEN_TTL_SECONDS: 'forever',
    });
    assert.equal(code, 1);
    assert.match(stdout, /problem  LATCH_ACCESS_TOKEN_TTL_SECONDS must be an integer/);
    assert.match(stdout, /problem  LATCH_REDIS_URL must start with redis:\/\//);
    assert.ok(!stdout.includes('hunter2'), stdout);
  });

  test('--json: the installation, each finding with check, level, title and fix, the counts and the exit status', async () => {
    const dir = newDir();
    const { code, report } = await doctorJson({ LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`, LATCH_SECRET: STRONG_SECRET }, ['--workers', '2']);
    assert.equal(code, 0);
    assert.deepEqual(Object.keys(report), ['installation', 'findings', 'counts', 'exit_status']);
    assert.deepEqual(report.installation, { database: `sqlite:${join(dir, 'latch.db')}`, issuer: 'http://localhost:3000', processes: 2, processes_from: '--workers 2' });
    assert.equal(report.exit_status, 0);
    assert.ok(report.findings.length >= 5);
    for (const finding of report.findings) {
      assert.deepEqual(Object.keys(finding), ['check', 'level', 'title', 'fix']);
      assert.ok(['ok', 'note', 'warning', 'problem'].includes(finding.level));
      assert.equal(typeof finding.title, 'string');
      assert.ok(!finding.title.includes('\n'), 'one line');
      assert.ok(finding.level === 'ok' || finding.level === 'note' || typeof finding.fix === 'string', `${finding.check} has a fix`);
    }
    const levels = ['problem', 'warning', 'note', 'ok'] as const;
    for (const level of levels) assert.equal(report.counts[level], report.findings.filter((f) => f.level === level).length);
    // Most severe first.
    const order = report.findings.map((f) => levels.indexOf(f.level));
    assert.deepEqual(order, [...order].sort((a, b) => a - b));
    assert.equal(levelOf(report, 'secret'), 'ok');
    assert.equal(levelOf(report, 'redis'), 'warning');
    assert.ok(!JSON.stringify(report).includes(STRONG_SECRET));
  });

  test('beside a serving Latch on SQLite, then on its stopped data folder with a backlog: nothing is written', async () => {
    const server = await startTestServer({ database: 'sqlite' });
    const env = { LATCH_DATABASE_URL: `sqlite:${join(server.dataDir, 'latch.db')}`, LATCH_ISSUER: server.config.issuer };
    try {
      const { code, report } = await doctorJson(env);
      assert.equal(code, 0, JSON.stringify(report, null, 2));
      assert.equal(levelOf(report, 'database'), 'ok');
      assert.equal(levelOf(report, 'migrations'), 'ok');
      assert.equal(levelOf(report, 'clock'), 'ok');
      assert.equal(levelOf(report, 'expired-rows'), 'ok');
      assert.equal(levelOf(report, 'signing-keys-secret'), 'ok');
      assert.match(report.findings.find((f) => f.check === 'signing-keys')!.title, /has signed for 0 days; next rotation due \d{4}-\d\d-\d\d/);
      assert.equal(levelOf(report, 'secret'), 'ok');
      assert.equal(levelOf(report, 'secret-file'), 'ok');
      assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200, 'the server still serves');
    } finally {
      await server.stop({ keepData: true });
    }
    dirs.push(server.dataDir);

    const storage = await openStorage(env.LATCH_DATABASE_URL, { migrate: false });
    await seedExpiredSessions(storage.db, 1200);
    const rowsBefore = await rowCounts(storage.db);
    await storage.close();
    chmodSync(join(server.dataDir, 'secret'), 0o644);
    const filesBefore = filesOf(server.dataDir);

    const text = await doctor([], env);
    text.stdout = flat(text.stdout);
    const { report } = await doctorJson(env);
    assert.equal(text.code, 0, text.stdout);
    assert.match(text.stdout, /warning  1200 expired rows waiting for the cleanup \(browser_sessions 1200\); 1200 of them should have been deleted by now/);
    assert.match(text.stdout, /fix: The cleanup runs every 10 minutes in each `latch serve` process/);
    assert.match(text.stdout, /warning  .*secret can be read by other users \(mode 0644\) fix: chmod 600 /);
    assert.equal(levelOf(report, 'secret-file'), 'warning');

    assert.deepEqual(filesOf(server.dataDir), filesBefore, 'no file created, changed or touched');
    const after = await openStorage(env.LATCH_DATABASE_URL, { migrate: false });
    try {
      assert.deepEqual(await rowCounts(after.db), rowsBefore, 'no row added or deleted (the backlog stays for the cleanup)');
    } finally {
      await after.close();
    }

    // The database without its secret (a copy that left data/secret behind): the next start could not decrypt the keys.
    renameSync(join(server.dataDir, 'secret'), join(server.dataDir, 'secret.elsewhere'));
    const lost = await doctorJson(env);
    assert.equal(lost.code, 1);
    assert.equal(levelOf(lost.report, 'secret'), 'warning');
    assert.equal(levelOf(lost.report, 'signing-keys-secret'), 'problem');
    assert.ok(!existsSync(join(server.dataDir, 'secret')), 'the doctor does not generate one');
  });

  test('a database migrated to an older migration: the pending ones are named, and stay pending', async () => {
    const dir = newDir();
    const url = `sqlite:${join(dir, 'latch.db')}`;
    const before = '2026_11_24_0200_logout';
    const pending = KNOWN_MIGRATIONS.slice(KNOWN_MIGRATIONS.indexOf(before) + 1);
    const storage = await openStorage(url, { migrate: false });
    await migrateTo(storage, before, null);
    await storage.close();

    const { code, stdout } = await doctor([], { LATCH_DATABASE_URL: url, LATCH_SECRET: STRONG_SECRET });
    assert.equal(code, 1, stdout);
    assert.match(flat(stdout), new RegExp(`problem  ${pending.length} migrations? (is|are) not applied: ${pending.join(', ')} fix: Run \`latch migrate\``));

    const reopened = await openStorage(url, { migrate: false });
    try {
      assert.deepEqual(await readAppliedMigrations(reopened.db), KNOWN_MIGRATIONS.slice(0, KNOWN_MIGRATIONS.indexOf(before) + 1));
    } finally {
      await reopened.close();
    }
  });

  test('SMTP: a server that answers is ok; one that does not is a problem naming host and port, never the password', async () => {
    const dir = newDir();
    const smtp = await startFakeSmtp();
    try {
      const base = { LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`, LATCH_SECRET: STRONG_SECRET };
      const up = await doctorJson({ ...base, LATCH_SMTP_URL: smtp.url });
      assert.equal(levelOf(up.report, 'smtp'), 'ok');
      assert.equal(smtp.received.length, 0, 'no mail sent');

      const started = Date.now();
      const down = await doctor([], { ...base, LATCH_SMTP_URL: 'smtp://mailer:hunter2-smtp@127.0.0.1:9/' });
      assert.equal(down.code, 1);
      assert.match(flat(down.stdout), /problem  Cannot reach the SMTP server 127\.0\.0\.1:9 \(.*ECONNREFUSED.*\): no mail goes out/);
      assert.ok(!down.stdout.includes('hunter2'));
      assert.ok(Date.now() - started < 15_000);
    } finally {
      await smtp.close();
    }
  });

  test('Redis with several processes: ok when it answers (PING), a warning naming host and port when it does not', async (t) => {
    const dir = newDir();
    const base = { LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`, LATCH_SECRET: STRONG_SECRET, LATCH_WORKERS: '2' };
    const away = await doctorJson({ ...base, LATCH_REDIS_URL: 'redis://:hunter2-redis@127.0.0.1:9' });
    assert.equal(away.code, 0, 'Latch serves degraded without Redis: a warning, not a problem');
    const finding = away.report.findings.find((f) => f.check === 'redis')!;
    assert.equal(finding.level, 'warning');
    assert.match(finding.title, /^Redis at 127\.0\.0\.1:9 does not answer \(.*ECONNREFUSED.*\)/);
    assert.ok(!JSON.stringify(away.report).includes('hunter2'));

    const unavailable = await redisUnavailableReason();
    if (unavailable) return t.skip(unavailable);
    const up = await doctorJson({ ...base, LATCH_REDIS_URL: REDIS_TEST_URL });
    assert.equal(levelOf(up.report, 'redis'), 'ok');
  });

  test('PostgreSQL: connections against max_connections with the configured workers, the clock, pending migrations; nothing written', async (t) => {
    const unavailable = await postgresUnavailableReason();
    if (unavailable) return t.skip(unavailable);
    const schema = await createTestSchema('latch_doctor');
    try {
      const storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name });
      await ensureSigningKeys(storage, createKeyEncryption(STRONG_SECRET));
      const rowsBefore = await rowCounts(storage.db);
      await storage.close();
      const env = { LATCH_DATABASE_URL: POSTGRES_TEST_URL, LATCH_DATABASE_SCHEMA: schema.name, LATCH_SECRET: STRONG_SECRET };

      const healthy = await doctorJson(env);
      assert.equal(healthy.code, 0, JSON.stringify(healthy.report, null, 2));
      assert.equal(levelOf(healthy.report, 'migrations'), 'ok');
      assert.equal(levelOf(healthy.report, 'clock'), 'ok', 'PostgreSQL on this machine shares its clock');
      assert.match(healthy.report.findings.find((f) => f.check === 'clock')!.title, /agrees with the database's: \d+ ms (behind|ahead of) the database's/);
      assert.match(healthy.report.findings.find((f) => f.check === 'connections')!.title, /^1 process × \(10 pooled \+ 1 listening\) = 11 connections/);
      assert.equal(levelOf(healthy.report, 'signing-keys-secret'), 'ok');
      assert.equal(levelOf(healthy.report, 'redis'), 'note');

      // More connections than the server allows: a pool as large as max_connections, in two processes.
      const { rows } = await runAdminSql('show max_connections');
      const maxConnections = Number(rows[0].max_connections);
      const poolSize = Math.min(1000, maxConnections);
      const crowded = await doctor(['--workers', '2'], { ...env, LATCH_DATABASE_POOL_SIZE: String(poolSize) });
      crowded.stdout = flat(crowded.stdout);
      assert.equal(crowded.code, 1, crowded.stdout);
      assert.match(
        crowded.stdout,
        new RegExp(`problem  Latch may open more connections than PostgreSQL allows: 2 processes × \\(${poolSize} pooled \\+ 1 listening\\) = ${2 * (poolSize + 1)} connections; PostgreSQL allows \\d+ \\(max_connections ${maxConnections} − \\d+ reserved\\)`),
      );
      assert.match(crowded.stdout, /fix: Lower LATCH_DATABASE_POOL_SIZE to \d+ or less/);
      assert.match(crowded.stdout, /^Latch doctor: postgres:\/\/127\.0\.0\.1:5432\/test \(schema latch_doctor_\w+\), .* 2 processes \(--workers 2\)/);

      // The same as an operator runs it (bin/latch.js, the bundle, node-postgres outside it): the same finding and
      // exit status, and the process ends by itself once the command is done (else 'close' never comes).
      const asProcess = await runLatchProcess(['doctor', '--workers', '2'], {
        env: { ...env, LATCH_DATABASE_POOL_SIZE: String(poolSize), LATCH_LOG_LEVEL: 'silent', HOST: '', PORT: '' },
      });
      assert.equal(asProcess.code, 1, `${asProcess.stdout}${asProcess.stderr}`);
      assert.match(flat(asProcess.stdout), /problem  Latch may open more connections than PostgreSQL allows: 2 processes/);
      assert.equal(asProcess.stderr, '');

      // Another secret than the keys were made with: Latch would refuse to start.
      const wrongSecret = await doctorJson({ ...env, LATCH_SECRET: randomBytes(32).toString('base64url') });
      assert.equal(levelOf(wrongSecret.report, 'signing-keys-secret'), 'problem');

      const reopened = await openStorage(POSTGRES_TEST_URL, { migrate: false, postgresSchema: schema.name });
      try {
        assert.deepEqual(await rowCounts(reopened.db), rowsBefore, 'nothing written');
      } finally {
        await reopened.close();
      }
    } finally {
      await schema.drop();
    }

    // One migration behind, on PostgreSQL too.
    const older = await createTestSchema('latch_doctor');
    try {
      const storage = await openStorage(POSTGRES_TEST_URL, { migrate: false, postgresSchema: older.name });
      const last = KNOWN_MIGRATIONS[KNOWN_MIGRATIONS.length - 2]!;
      await migrateTo(storage, last, older.name);
      await storage.close();
      const { code, report } = await doctorJson({ LATCH_DATABASE_URL: POSTGRES_TEST_URL, LATCH_DATABASE_SCHEMA: older.name, LATCH_SECRET: STRONG_SECRET });
      assert.equal(code, 1);
      assert.equal(report.findings.find((f) => f.check === 'migrations')?.title, `1 migration is not applied: ${KNOWN_MIGRATIONS.at(-1)}`);
    } finally {
      await older.drop();
    }
  });

  test('PostgreSQL away: a problem finding with the fix, no stack trace, no password', async () => {
    const { code, stdout: wrapped, stderr } = await doctor([], {
      LATCH_DATABASE_URL: 'postgres://latch:hunter2-database@127.0.0.1:9/latch',
      LATCH_SECRET: STRONG_SECRET,
    });
    const stdout = flat(wrapped);
    assert.equal(code, 1);
    assert.equal(stderr, '');
    assert.match(stdout, /problem  Cannot read the database postgres:\/\/127\.0\.0\.1:9\/latch: .*ECONNREFUSED/);
    assert.match(stdout, /fix: Check that PostgreSQL runs/);
    assert.ok(!/\n\s+at /.test(stdout), 'no stack trace');
    assert.ok(!stdout.includes('hunter2'));
  });
});
