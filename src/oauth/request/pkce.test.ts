/**
 * PKCE's syntax and transformation (RFC 7636 §4.1, §4.2, §4.6; S256 only, RFC 9700 §2.1.1), one clause per row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeS256Challenge, isValidCodeVerifier, isValidS256Challenge } from './pkce.js';

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

describe('isValidCodeVerifier', () => {
  const rows: { rule: string; verifier: string; valid: boolean }[] = [
    { rule: 'RFC 7636 §4.1: 43 characters is the minimum length', verifier: 'a'.repeat(43), valid: true },
    { rule: 'RFC 7636 §4.1: 42 characters is too short', verifier: 'a'.repeat(42), valid: false },
    { rule: 'RFC 7636 §4.1: 128 characters is the maximum length', verifier: 'a'.repeat(128), valid: true },
    { rule: 'RFC 7636 §4.1: 129 characters is too long', verifier: 'a'.repeat(129), valid: false },
    { rule: 'RFC 7636 §4.1: every unreserved character (ALPHA / DIGIT / "-" / "." / "_" / "~") is allowed', verifier: UNRESERVED, valid: true },
    { rule: 'RFC 7636 §4.1: a space is not unreserved', verifier: `${'a'.repeat(42)} `, valid: false },
    { rule: 'RFC 7636 §4.1: "+" and "/" (base64, not base64url) are not unreserved', verifier: `${'a'.repeat(42)}+`, valid: false },
    { rule: 'RFC 7636 §4.1: "=" padding is not unreserved', verifier: `${'a'.repeat(42)}=`, valid: false },
    { rule: 'RFC 7636 §4.1: a percent-encoded character is not unreserved', verifier: `${'a'.repeat(41)}%41`, valid: false },
    { rule: 'RFC 7636 §4.1: non-ASCII letters are not ALPHA', verifier: `${'a'.repeat(42)}é`, valid: false },
    { rule: 'RFC 7636 §4.1: a line break ends no verifier', verifier: `${'a'.repeat(43)}\n`, valid: false },
  ];
  for (const row of rows) test(row.rule, () => assert.equal(isValidCodeVerifier(row.verifier), row.valid));
});

describe('isValidS256Challenge', () => {
  const rows: { rule: string; challenge: string; valid: boolean }[] = [
    { rule: 'RFC 7636 §4.2: BASE64URL(SHA256(…)) is 43 characters of the base64url alphabet', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', valid: true },
    { rule: 'RFC 7636 §4.2: 42 characters is no SHA-256', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c', valid: false },
    { rule: 'RFC 7636 §4.2: 44 characters is no SHA-256', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cMA', valid: false },
    { rule: 'RFC 7636 §3: base64url has no padding', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c=', valid: false },
    { rule: 'RFC 7636 §3: base64url uses "-" and "_", not "+" and "/"', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM', valid: false },
    { rule: 'RFC 7636 §4.2: "." and "~" are verifier characters, not base64url', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw.cM', valid: false },
  ];
  for (const row of rows) test(row.rule, () => assert.equal(isValidS256Challenge(row.challenge), row.valid));
});

describe('computeS256Challenge', () => {
  test('RFC 7636 Appendix B: the example verifier gives the example challenge', () => {
    assert.equal(computeS256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
  test('RFC 7636 §4.2: every challenge it computes is a valid S256 challenge', () => {
    for (const verifier of ['a'.repeat(43), UNRESERVED, '~'.repeat(128)]) assert.ok(isValidS256Challenge(computeS256Challenge(verifier)));
  });
});
