/**
 * Redis and SMTP in `latch doctor`, one situation per row: several processes without shared counters, Redis away,
 * mail with and without a server, in development and in production.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkMail, checkRedis, type MailSituation, type RedisSituation } from './deployment-checks.js';

describe('checkRedis', () => {
  const rows: { situation: string; input: RedisSituation; expect: string[]; title?: RegExp }[] = [
    { situation: 'one process on SQLite needs no Redis', input: { processes: 1, dialect: 'sqlite', redisAddress: null, redis: null }, expect: [] },
    {
      situation: 'several processes without Redis: N times the limits',
      input: { processes: 4, dialect: 'sqlite', redisAddress: null, redis: null },
      expect: ['redis:warning'],
      title: /4 processes and no LATCH_REDIS_URL: .* allow 4 times the configured limits/,
    },
    { situation: 'PostgreSQL suggests other instances: a note', input: { processes: 1, dialect: 'postgres', redisAddress: null, redis: null }, expect: ['redis:note'] },
    { situation: 'Redis answers', input: { processes: 2, dialect: 'postgres', redisAddress: '127.0.0.1:6379', redis: { reachable: true } }, expect: ['redis:ok'] },
    {
      situation: 'Redis away: Latch serves degraded',
      input: { processes: 2, dialect: 'postgres', redisAddress: '10.0.0.9:6379', redis: { reachable: false, reason: 'connect ECONNREFUSED 10.0.0.9:6379' } },
      expect: ['redis:warning'],
      title: /Redis at 10\.0\.0\.9:6379 does not answer \(connect ECONNREFUSED/,
    },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const findings = checkRedis(row.input);
      assert.deepEqual(findings.map((f) => `${f.check}:${f.level}`), row.expect);
      if (row.title) assert.match(findings[0]!.title, row.title);
    });
  }
});

describe('checkMail', () => {
  const rows: { situation: string; input: MailSituation; level: string; title: RegExp; fix?: RegExp }[] = [
    { situation: 'development: the outbox', input: { smtpAddress: null, smtp: null, development: true }, level: 'note', title: /local outbox/ },
    { situation: 'production without SMTP: mail reaches no one', input: { smtpAddress: null, smtp: null, development: false }, level: 'problem', title: /never reach anyone/, fix: /Set LATCH_SMTP_URL/ },
    { situation: 'the server answers', input: { smtpAddress: 'smtp.example.com:465', smtp: { reachable: true }, development: false }, level: 'ok', title: /smtp\.example\.com:465 accepts/ },
    {
      situation: 'unreachable',
      input: { smtpAddress: 'smtp.example.com:465', smtp: { reachable: false, reason: 'ETIMEDOUT' }, development: false },
      level: 'problem',
      title: /Cannot reach the SMTP server smtp\.example\.com:465 \(ETIMEDOUT\)/,
      fix: /host and port/,
    },
    {
      situation: 'the login refused',
      input: { smtpAddress: 'smtp.example.com:587', smtp: { reachable: false, reason: '535 Authentication failed', refusedLogin: true }, development: true },
      level: 'problem',
      title: /refused the login/,
      fix: /user name and password/,
    },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const [finding] = checkMail(row.input);
      assert.equal(finding?.level, row.level);
      assert.match(finding?.title ?? '', row.title);
      if (row.fix) assert.match(finding?.fix ?? '', row.fix);
    });
  }
});
