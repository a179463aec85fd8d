/** Table tests of recovery codes: their form, the forgiving reading, and keyed, constant-time matching. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { findRecoveryCode, generateRecoveryCodes, hashRecoveryCode, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes.js';

const key = randomBytes(32);

test('ten codes of three groups of four Crockford base32 characters (60 bits), all different', () => {
  const codes = generateRecoveryCodes();
  assert.equal(codes.length, RECOVERY_CODE_COUNT);
  for (const code of codes) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
  assert.equal(new Set(codes).size, codes.length);
});

test('typed codes are read forgivingly: case, dashes, spaces, O for 0, I and L for 1', () => {
  for (const [typed, expected] of [
    ['7K3M-Q9TD-2XWA', '7K3MQ9TD2XWA'],
    ['7k3m q9td 2xwa', '7K3MQ9TD2XWA'],
    ['7K3MQ9TD2XWA', '7K3MQ9TD2XWA'],
    ['OOOO-IIII-LLLL', '000011111111'],
    ['7K3M-Q9TD-2XW', null],
    ['7K3M-Q9TD-2XWAB', null],
    ['7K3M-Q9TD-2XWU', null],
    ['', null],
  ] as const) {
    assert.equal(normalizeRecoveryCode(typed), expected, typed);
  }
});

test('a code matches its own stored hash only, however it is typed; another key matches nothing', () => {
  const codes = generateRecoveryCodes(3);
  const stored = codes.map((code) => hashRecoveryCode(key, code));
  assert.equal(findRecoveryCode(key, codes[1]!.toLowerCase().replace(/-/g, ' '), stored), stored[1]);
  assert.equal(findRecoveryCode(key, generateRecoveryCodes(1)[0]!, stored), null);
  assert.equal(findRecoveryCode(randomBytes(32), codes[1]!, stored), null);
  assert.equal(findRecoveryCode(key, 'not a code', stored), null);
  assert.ok(!stored.some((hash) => codes.some((code) => hash.includes(code.replace(/-/g, '')))), 'nothing of the code in clear');
});
