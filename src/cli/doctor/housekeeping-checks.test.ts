/**
 * Expired rows and signing keys in `latch doctor`, as tables: the cleanup's cutoffs (codes kept a day), a
 * backlog that shows the cleanup is not running, keys by age and state, and whether the secret opens them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { ExpiredRows } from '../../storage/database-inspection.js';
import type { SigningKeyRecord } from '../../storage/storage.js';
import { checkExpiredRows, checkKeysOpenWithSecret, checkSigningKeys, expiryCutoffs } from './housekeeping-checks.js';

const NOW = new Date('2027-03-01T12:00:00Z');
const DAY = 86400_000;

describe('expiryCutoffs', () => {
  test('server.ts deleteExpiredRecords: codes a day after expiry, the rest at expiry; overdue two intervals (20 min) later', () => {
    const cutoffs = expiryCutoffs(NOW);
    assert.equal(cutoffs.authorization_codes.due.getTime(), NOW.getTime() - DAY);
    assert.equal(cutoffs.authorization_codes.overdue.getTime(), NOW.getTime() - DAY - 20 * 60_000);
    for (const table of ['access_tokens', 'refresh_tokens', 'browser_sessions', 'email_links', 'used_webauthn_challenges'] as const) {
      assert.equal(cutoffs[table].due.getTime(), NOW.getTime());
      assert.equal(cutoffs[table].overdue.getTime(), NOW.getTime() - 20 * 60_000);
    }
  });
});

describe('checkExpiredRows', () => {
  const rows = (due: number, overdue: number): ExpiredRows[] => [
    { table: 'access_tokens', due, overdue },
    { table: 'browser_sessions', due: 0, overdue: 0 },
  ];
  const table: { situation: string; counts: ExpiredRows[]; level: string; title: RegExp }[] = [
    { situation: 'nothing expired', counts: rows(0, 0), level: 'ok', title: /^No expired rows/ },
    { situation: 'rows expired since the last cleanup are normal', counts: rows(5000, 0), level: 'ok', title: /^5000 expired rows waiting for the cleanup \(access_tokens 5000\)$/ },
    { situation: 'a few rows the cleanup should have taken', counts: rows(120, 20), level: 'note', title: /20 of them should have been deleted by now/ },
    { situation: 'a backlog: no cleanup runs', counts: rows(250_000, 240_000), level: 'warning', title: /^250000 expired rows .* 240000 of them should have been deleted by now/ },
  ];
  for (const row of table) {
    test(row.situation, () => {
      const finding = checkExpiredRows(row.counts);
      assert.equal(finding.level, row.level);
      assert.match(finding.title, row.title);
      if (row.level !== 'ok') assert.match(finding.fix ?? '', /cleanup runs every 10 minutes in each `latch serve`/);
    });
  }
});

function key(alg: SigningAlgorithm, activatedDaysAgo: number, extra: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  const activatesAt = new Date(NOW.getTime() - activatedDaysAgo * DAY);
  return { kid: `${alg}-${activatedDaysAgo}`, alg, publicJwk: {}, privateJwkEncrypted: 'v1.x.y.z', createdAt: activatesAt, activatesAt, deactivatesAt: null, retiresAt: null, ...extra };
}
const all = (days: number) => (['RS256', 'ES256', 'EdDSA'] as const).map((alg) => key(alg, days));

describe('checkSigningKeys', () => {
  const rows: { situation: string; keys: SigningKeyRecord[]; level: string; title: RegExp }[] = [
    { situation: 'none yet: the first start makes them', keys: [], level: 'note', title: /No signing keys yet/ },
    { situation: 'fresh keys: when the next rotation is due', keys: all(12), level: 'ok', title: /signed for 12 days; next rotation due 2027-05-18/ },
    { situation: 'past 90 days: due', keys: all(100), level: 'note', title: /signed for 100 days: rotation was due 2027-02-19/ },
    { situation: 'NIST SP 800-57 §5.3.6: past a year', keys: all(400), level: 'warning', title: /signed for 400 days: over a year/ },
    { situation: 'the oldest algorithm counts', keys: [key('RS256', 10), key('ES256', 200), key('EdDSA', 10)], level: 'note', title: /oldest signing key \(ES256\) has signed for 200 days/ },
    {
      situation: 'a rotation under way: the next key is named',
      keys: [...all(100), { ...key('RS256', -0.5), kid: 'next' }],
      level: 'ok',
      title: /the next \(RS256\) signs from 2027-03-02T00:00:00\.000Z/,
    },
    { situation: 'an algorithm with no key that signs', keys: [key('RS256', 5), key('ES256', 5)], level: 'warning', title: /No EdDSA key signs now/ },
    {
      situation: 'only pending keys (rotated before the first start)',
      keys: (['RS256', 'ES256', 'EdDSA'] as const).map((alg) => key(alg, -1 / 24)),
      level: 'warning',
      title: /No RS256, ES256, EdDSA key signs now \(the next activates/,
    },
    { situation: 'retired keys only count as none', keys: all(30).map((k) => ({ ...k, deactivatesAt: new Date(NOW.getTime() - DAY), retiresAt: new Date(NOW.getTime() - 1000) })), level: 'note', title: /No signing keys yet/ },
  ];
  for (const row of rows) {
    test(row.situation, () => {
      const finding = checkSigningKeys(row.keys, NOW);
      assert.equal(finding.level, row.level, finding.title);
      assert.match(finding.title, row.title);
    });
  }
});

describe('checkKeysOpenWithSecret', () => {
  test('no keys: nothing to say', () => assert.equal(checkKeysOpenWithSecret(0, [], false), null));
  test('every key opens', () => assert.equal(checkKeysOpenWithSecret(3, [], true)?.level, 'ok'));
  test('keys but no secret (data/secret lost): the next start would fail', () => {
    const finding = checkKeysOpenWithSecret(3, [], false);
    assert.equal(finding?.level, 'problem');
    assert.match(finding?.fix ?? '', /Restore the secret/);
  });
  test('a wrong secret (a restore with another one): the kids that fail are named', () => {
    const finding = checkKeysOpenWithSecret(3, ['kid-a'], true);
    assert.equal(finding?.level, 'problem');
    assert.match(finding?.title ?? '', /1 of 3 published signing keys cannot be decrypted with this secret \(kid-a\): Latch refuses to start/);
  });
});
