import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Config } from '../../config.js';
import { createKeyEncryption } from '../../crypto/key-encryption.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { recoverSuccessor, successorOf } from './refresh-successor.js';

const config = { secret: 'a'.repeat(24) + 'b'.repeat(24) } as Config;
const other = { secret: 'c'.repeat(24) + 'd'.repeat(24) } as Config;
const now = new Date('2026-11-25T00:00:00Z');

test('a successor is a refresh token of the usual form, recovered from the old token and what was stored, and by nothing else', () => {
  const presented = generateTimeOrderedSecret(SECRET_PREFIX.refreshToken, now.getTime() - 1000);
  const { successor, recovery } = successorOf(config, presented, now);
  assert.match(successor, /^latch_rt_[0-9a-f]{11}[A-Za-z0-9_-]{43}$/);
  assert.ok(hashTimeOrderedSecret(successor).startsWith(now.getTime().toString(16).padStart(11, '0')), 'time-ordered by its issue time');
  assert.match(recovery, /^d1\.[0-9a-f]{11}$/, 'only the time digits are stored');
  assert.ok(!recovery.includes(successor.slice(-43)));
  assert.equal(recoverSuccessor(config, presented, hashTimeOrderedSecret(presented), recovery), successor);

  const another = generateTimeOrderedSecret(SECRET_PREFIX.refreshToken, now.getTime() - 1000);
  assert.notEqual(recoverSuccessor(config, another, hashTimeOrderedSecret(another), recovery), successor, 'another token gives another successor');
  assert.notEqual(recoverSuccessor(other, presented, hashTimeOrderedSecret(presented), recovery), successor, 'another LATCH_SECRET gives another successor');
  assert.equal(recoverSuccessor(config, presented, hashTimeOrderedSecret(presented), 'd1.not-digits'), null);
  assert.equal(recoverSuccessor(config, presented, hashTimeOrderedSecret(presented), 'garbage'), null);
});

test('successors stored encrypted by earlier versions (v1) are still recovered', () => {
  const presented = generateTimeOrderedSecret(SECRET_PREFIX.refreshToken, now.getTime());
  const successor = generateTimeOrderedSecret(SECRET_PREFIX.refreshToken, now.getTime());
  const stored = createKeyEncryption(config.secret, 'latch refresh token successors v1').encrypt(successor, hashTimeOrderedSecret(presented));
  assert.equal(recoverSuccessor(config, presented, hashTimeOrderedSecret(presented), stored), successor);
  assert.equal(recoverSuccessor(config, presented, 'another-hash', stored), null, 'bound to the row it was stored with');
});
