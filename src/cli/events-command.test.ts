import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSince, parseTypeFilter } from './events-command.js';
import { UsageError } from './output.js';

test('--since: an ISO 8601 time, a date (midnight UTC) or an age; anything else is a usage error', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const cases: Array<[string, string | null]> = [
    ['2026-11-24T09:30:00Z', '2026-11-24T09:30:00.000Z'],
    ['2026-11-24T09:30:00+01:00', '2026-11-24T08:30:00.000Z'],
    ['2026-11-24', '2026-11-24T00:00:00.000Z'],
    ['30m', '2026-11-24T11:30:00.000Z'],
    ['24h', '2026-11-23T12:00:00.000Z'],
    ['7d', '2026-11-17T12:00:00.000Z'],
    ['yesterday', null],
    ['2026-13-40', null],
    ['7 days', null],
    ['1700000000', null],
    ['', null],
  ];
  for (const [text, expected] of cases) {
    if (expected === null) assert.throws(() => parseSince(text, now), UsageError, text);
    else assert.equal(parseSince(text, now).toISOString(), expected, text);
  }
});

test('--type: one known type, or a family ending in .*; an unknown name lists the types', () => {
  assert.deepEqual(parseTypeFilter('user.signin.failed'), { types: ['user.signin.failed'] });
  assert.deepEqual(parseTypeFilter('user.*'), { typePrefix: 'user.' });
  assert.deepEqual(parseTypeFilter('user.signin.*'), { typePrefix: 'user.signin.' });
  assert.deepEqual(parseTypeFilter('token.*'), { typePrefix: 'token.' });
  for (const bad of ['user', 'user.signin', 'login', 'users.*', '*', 'user.signin.failed.*']) {
    assert.throws(() => parseTypeFilter(bad), (error: Error) => error instanceof UsageError && /user\.signin\.succeeded/.test(error.message), bad);
  }
});
