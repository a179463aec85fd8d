/**
 * LATCH_SECRET's rules in `latch doctor`: what looks made by hand, one kind per row; random secrets of the usual
 * generators never do; and the findings for each place the secret can come from. No finding repeats the secret.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { describe, test } from 'node:test';
import { checkSecret, secretWeakness, type SecretSource } from './secret-checks.js';

describe('secretWeakness', () => {
  const rows: { kind: string; secret: string; weakness: RegExp | null }[] = [
    { kind: 'config.ts: shorter than 32 characters (Latch refuses to start)', secret: 'short-but-random-Xq9', weakness: /20 characters long; Latch needs at least 32/ },
    { kind: 'a placeholder word', secret: 'changemechangemechangemechangeme', weakness: /contains "changeme"/ },
    { kind: 'the word secret', secret: 'my-production-secret-for-auth-2026', weakness: /contains "secret"/ },
    { kind: "Latch's own test secrets", secret: 'test-secret-shared-by-every-latch-process-0123456789', weakness: /contains "secret"/ },
    { kind: 'one character repeated', secret: 'x'.repeat(40), weakness: /repeats a 1-character pattern/ },
    { kind: 'a short random part repeated', secret: 'Qz7#kP2m'.repeat(5), weakness: /repeats a 8-character pattern/ },
    { kind: 'few different characters', secret: 'abcabbcaacbbacaabcbacbaacbbcabaacbcab', weakness: /only 3 different characters/ },
    { kind: 'a run of neighbouring characters', secret: 'abcdefghijklmnopqrstuvwxyz0123456789', weakness: /runs of neighbouring characters/ },
    { kind: 'a passphrase of words is accepted', secret: 'correct horse battery staple now', weakness: null },
    { kind: 'openssl rand -base64 32', secret: 'q0V4mX8zC2s1fH9kPj3tLr6wYb5nAe7uGd0iZo4cQxk=', weakness: null },
    { kind: 'openssl rand -hex 16', secret: '9f2c4e81b07a6d35c8e1f4a2b9d06c73', weakness: null },
  ];
  for (const row of rows) {
    test(row.kind, () => {
      const weakness = secretWeakness(row.secret);
      if (row.weakness === null) assert.equal(weakness, null);
      else assert.match(weakness ?? '', row.weakness);
    });
  }

  test('random secrets of the usual generators are never called weak (5,000 of each)', () => {
    const generators: Record<string, () => string> = {
      'randomBytes(32) base64url (what Latch generates)': () => randomBytes(32).toString('base64url'),
      'openssl rand -base64 24': () => randomBytes(24).toString('base64'),
      'openssl rand -hex 16': () => randomBytes(16).toString('hex'),
      '32 random digits': () => Array.from({ length: 32 }, () => randomInt(10)).join(''),
    };
    // Found by CI: a made-up word in a mix of cases is chance, not a person's choice.
    assert.equal(secretWeakness('ntSDOesS8nUZSV+7dcM9/pxIlaTch8GZ'), null, 'a random secret holding IlaTch');
    for (const [name, generate] of Object.entries(generators)) {
      for (let i = 0; i < 5000; i++) {
        const secret = generate();
        assert.equal(secretWeakness(secret), null, `${name}: ${secret}`);
      }
    }
  });
});

describe('checkSecret', () => {
  const strong = randomBytes(32).toString('base64url');
  const rows: { source: SecretSource; expect: string[]; title?: RegExp }[] = [
    { source: { kind: 'environment', secret: strong }, expect: ['secret:ok'] },
    { source: { kind: 'environment', secret: 'password-password-password-12345' }, expect: ['secret:problem'], title: /LATCH_SECRET looks weak: it contains "password"/ },
    { source: { kind: 'missing', path: null }, expect: ['secret:problem'], title: /not set; with PostgreSQL Latch refuses to start/ },
    { source: { kind: 'missing', path: '/srv/latch/data/secret' }, expect: ['secret:note'], title: /first start generates it/ },
    { source: { kind: 'missing', path: '/srv/latch/data/secret', databaseExists: true }, expect: ['secret:warning'], title: /missing beside an existing database/ },
    { source: { kind: 'memory' }, expect: ['secret:ok'] },
    { source: { kind: 'unreadable-file', path: '/srv/latch/data/secret', reason: 'EACCES' }, expect: ['secret:problem'], title: /cannot be read \(EACCES\)/ },
    { source: { kind: 'file', path: 'data/secret', secret: strong, mode: 0o100600 }, expect: ['secret:ok', 'secret-file:ok'] },
    { source: { kind: 'file', path: 'data/secret', secret: strong, mode: 0o100644 }, expect: ['secret:ok', 'secret-file:warning'], title: /mode 0644/ },
    { source: { kind: 'file', path: 'data/secret', secret: strong, mode: 0o100640 }, expect: ['secret:ok', 'secret-file:warning'] },
    { source: { kind: 'file', path: 'data/secret', secret: 'a'.repeat(43), mode: 0o100600 }, expect: ['secret:problem', 'secret-file:ok'] },
  ];
  for (const row of rows) {
    test(`${row.source.kind}${'mode' in row.source ? ` mode ${(row.source.mode & 0o777).toString(8)}` : ''} → ${row.expect.join(', ')}`, () => {
      const findings = checkSecret(row.source);
      assert.deepEqual(findings.map((f) => `${f.check}:${f.level}`), row.expect);
      if (row.title) assert.match(findings.map((f) => f.title).join('\n'), row.title);
      const secret = 'secret' in row.source ? row.source.secret : null;
      for (const finding of findings) {
        if (finding.level !== 'ok') assert.ok(finding.fix, 'says what to do');
        if (secret) assert.ok(!JSON.stringify(finding).includes(secret.slice(0, 12)), 'never repeats the secret');
      }
    });
  }
});
