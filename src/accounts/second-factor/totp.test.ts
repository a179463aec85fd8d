/** Table tests of the TOTP rules (RFC 6238) with codes computed by otpauth itself. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { createTotpSecret, groupSecret, matchTotpCode, normalizeTotpCode, totpUri } from './totp.js';

const secret = createTotpSecret();
const reference = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
const now = new Date('2026-11-24T12:00:10Z');
const step = Math.floor(now.getTime() / 30_000);
const codeAt = (offsetSteps: number) => reference.generate({ timestamp: now.getTime() + offsetSteps * 30_000 });

test('a secret is 160 bits of base32 (RFC 4226 §4 R6), different each time', () => {
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.notEqual(createTotpSecret(), secret);
});

test('the URI names the issuer and account with SHA1, 6 digits, 30 s (the values every app reads)', () => {
  const uri = totpUri(secret, 'Latch', 'ada@example.com');
  assert.equal(uri, `otpauth://totp/Latch:ada%40example.com?issuer=Latch&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
});

test('codes of this step and one step either side match, with the step they belong to; two steps away do not', () => {
  for (const [offset, expected] of [
    [0, step],
    [-1, step - 1],
    [1, step + 1],
    [-2, null],
    [2, null],
  ] as const) {
    const code = codeAt(offset);
    // Two steps' codes can collide by chance (1 in 10^6): then the earlier match is the right answer too.
    if (expected === null && [codeAt(-1), codeAt(0), codeAt(1)].includes(code)) continue;
    assert.equal(matchTotpCode(secret, code, now), expected, `offset ${offset}`);
  }
});

test('typed codes: spaces and a dash are ignored, anything but six digits is no code', () => {
  for (const [typed, expected] of [
    ['123456', '123456'],
    [' 123 456 ', '123456'],
    ['123-456', '123456'],
    ['12345', null],
    ['1234567', null],
    ['12345a', null],
    ['', null],
  ] as const) {
    assert.equal(normalizeTotpCode(typed), expected, typed);
  }
  assert.equal(matchTotpCode(secret, 'abcdef', now), null);
});

test('the secret is shown in groups of four', () => {
  assert.equal(groupSecret('ABCDEFGHIJKLMNOP'), 'ABCD EFGH IJKL MNOP');
  assert.equal(groupSecret('ABCDEF'), 'ABCD EF');
});
