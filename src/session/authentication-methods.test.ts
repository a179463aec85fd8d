import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACR, chooseAcr, levelOf, passkeyAmr, PASSWORD_AMR, stepUpFor, wantedLevel, withSecondStep } from './authentication-methods.js';

test('amr of each way to sign in (RFC 8176 values)', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['password', [...PASSWORD_AMR], ['pwd']],
    ['password + app code', withSecondStep(PASSWORD_AMR, 'otp'), ['pwd', 'otp', 'mfa']],
    ['password + recovery code', withSecondStep(PASSWORD_AMR, 'recovery_code'), ['pwd', 'otp', 'mfa']],
    ['password + synced passkey', withSecondStep(PASSWORD_AMR, { passkey: { deviceBound: false } }), ['pwd', 'swk', 'user', 'mfa']],
    ['password + security key', withSecondStep(PASSWORD_AMR, { passkey: { deviceBound: true } }), ['pwd', 'hwk', 'user', 'mfa']],
    ['synced passkey alone', passkeyAmr(false), ['swk', 'user', 'mfa']],
    ['security key alone', passkeyAmr(true), ['hwk', 'user', 'mfa']],
    ['app code, then a passkey step-up', withSecondStep(['pwd', 'otp', 'mfa'], { passkey: { deviceBound: false } }), ['pwd', 'otp', 'swk', 'user', 'mfa']],
  ];
  for (const [name, amr, expected] of cases) assert.deepEqual(amr, expected, name);
});

test('levelOf: sfa < mfa < phr < phrh; unknown methods (old sessions) have no level', () => {
  const cases: Array<[string[], number | null]> = [
    [[], null],
    [['pwd'], 0],
    [['pwd', 'otp', 'mfa'], 1],
    [['swk', 'user', 'mfa'], 2],
    [['pwd', 'swk', 'user', 'mfa'], 2],
    [['hwk', 'user', 'mfa'], 3],
  ];
  for (const [amr, level] of cases) assert.equal(levelOf(amr), level, amr.join(' '));
});

test('wantedLevel: the weakest known value asked for; unknown values ignored; sfa asks for nothing; a client that requires mfa makes it essential', () => {
  const cases: Array<[string[], boolean, { level: number; essential: boolean } | null]> = [
    [[], false, null],
    [['urn:example:gold'], false, null],
    [[ACR.singleFactor], false, null],
    [[ACR.multiFactor], false, { level: 1, essential: false }],
    [['phr', 'phrh'], false, { level: 2, essential: false }],
    [['urn:example:gold', 'phrh'], false, { level: 3, essential: false }],
    [[], true, { level: 1, essential: true }],
    [[ACR.singleFactor], true, { level: 1, essential: true }],
    [['phr'], true, { level: 2, essential: true }],
  ];
  for (const [values, requires, wanted] of cases) assert.deepEqual(wantedLevel(values, requires), wanted, `${values.join(' ')} ${requires}`);
});

test('chooseAcr: the strongest requested value reached, else the sign-in’s own level', () => {
  const cases: Array<[string[], string[], string | null]> = [
    [['pwd'], [], ACR.singleFactor],
    [['pwd', 'otp', 'mfa'], [], ACR.multiFactor],
    [['swk', 'user', 'mfa'], [], 'phr'],
    [['swk', 'user', 'mfa'], [ACR.multiFactor], ACR.multiFactor],
    [['hwk', 'user', 'mfa'], [ACR.multiFactor, 'phr'], 'phr'],
    [['pwd'], [ACR.multiFactor], ACR.singleFactor],
    [[], [ACR.multiFactor], null],
  ];
  for (const [amr, values, acr] of cases) assert.equal(chooseAcr(amr, values), acr, `${amr.join(' ')} for ${values.join(' ')}`);
});

test('stepUpFor: what the person has enrolled decides what can raise the sign-in', () => {
  const none = { authenticatorApp: false, passkeys: [] };
  const app = { authenticatorApp: true, passkeys: [] };
  const synced = { authenticatorApp: false, passkeys: [{ deviceBound: false }] };
  const bound = { authenticatorApp: true, passkeys: [{ deviceBound: false }, { deviceBound: true }] };
  assert.equal(stepUpFor(1, none), null);
  assert.equal(stepUpFor(1, app), 'any');
  assert.equal(stepUpFor(1, synced), 'any');
  assert.equal(stepUpFor(2, app), null);
  assert.equal(stepUpFor(2, synced), 'passkey');
  assert.equal(stepUpFor(3, synced), null);
  assert.equal(stepUpFor(3, bound), 'device-bound passkey');
});
