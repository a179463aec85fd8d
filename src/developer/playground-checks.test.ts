/**
 * The playground's id_token checks (OIDC Core §3.1.3.7), each shown failing on its own: a token signed by
 * another key, from another issuer, for another audience, with another nonce, or expired.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { inEnglish, translator } from '../i18n/translator.js';
import { checkIdToken, type IdTokenCheckName } from './playground-checks.js';

const ISSUER = 'https://id.example.com';
const CLIENT_ID = 'app-123';
const NONCE = 'n-0S6_WzA2Mj';
const NOW = new Date('2026-11-25T03:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

describe('checkIdToken', async () => {
  const latchKey = await keyPair('latch-1');
  const otherKey = await keyPair('latch-1');
  const jwks = { keys: [latchKey.jwk] };
  const sign = (claims: JWTPayload, key = latchKey.privateKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'latch-1', typ: 'JWT' }).sign(key);
  const good: JWTPayload = { iss: ISSUER, aud: CLIENT_ID, sub: 'u1', nonce: NONCE, iat: nowSeconds - 5, exp: nowSeconds + 300 };
  const failing = async (token: string) => (await checkIdToken(token, { jwks, issuer: ISSUER, clientId: CLIENT_ID, nonce: NONCE, now: NOW })).checks.filter((c) => !c.passed).map((c) => c.name);

  test('OIDC Core §3.1.3.7: a good token passes every check, and is decoded', async () => {
    const decoded = await checkIdToken(await sign(good), { jwks, issuer: ISSUER, clientId: CLIENT_ID, nonce: NONCE, now: NOW });
    assert.deepEqual(decoded.checks.map((c) => [c.name, c.passed]), [['signature', true], ['iss', true], ['aud', true], ['nonce', true], ['exp', true]]);
    assert.equal(decoded.header?.kid, 'latch-1');
    assert.equal(decoded.claims?.sub, 'u1');
  });

  const rows: { rule: string; claims: JWTPayload; otherKey?: true; fails: IdTokenCheckName[] }[] = [
    { rule: 'OIDC Core §3.1.3.7 (6): signed by a key the JWKS does not hold', claims: good, otherKey: true, fails: ['signature'] },
    { rule: 'OIDC Core §3.1.3.7 (2): another issuer', claims: { ...good, iss: 'https://evil.example.com' }, fails: ['iss'] },
    { rule: 'OIDC Core §3.1.3.7 (3): another audience', claims: { ...good, aud: 'other-app' }, fails: ['aud'] },
    { rule: 'OIDC Core §3.1.3.7 (4, 5): several audiences without azp naming this client', claims: { ...good, aud: [CLIENT_ID, 'other-app'] }, fails: ['aud'] },
    { rule: 'OIDC Core §3.1.3.7 (11): another nonce', claims: { ...good, nonce: 'tampered' }, fails: ['nonce'] },
    { rule: 'OIDC Core §3.1.3.7 (11): no nonce', claims: { ...good, nonce: undefined }, fails: ['nonce'] },
    { rule: 'OIDC Core §3.1.3.7 (9): expired', claims: { ...good, exp: nowSeconds - 1 }, fails: ['exp'] },
  ];
  for (const row of rows) {
    test(row.rule, async () => {
      assert.deepEqual(await failing(await sign(row.claims, row.otherKey ? otherKey.privateKey : latchKey.privateKey)), row.fails);
    });
  }

  test('Latch: several audiences with azp naming this client pass', async () => {
    assert.deepEqual(await failing(await sign({ ...good, aud: [CLIENT_ID, 'other-app'], azp: CLIENT_ID })), []);
  });

  test('Latch: something that is no JWT fails every check, saying why', async () => {
    const decoded = await checkIdToken('not-a-jwt', { jwks, issuer: ISSUER, clientId: CLIENT_ID, nonce: NONCE, now: NOW });
    assert.equal(decoded.checks.length, 5);
    assert.ok(decoded.checks.every((c) => !c.passed && /not a JWT/.test(inEnglish(c.detail))));
    assert.ok(decoded.checks.every((c) => /kein JWT/.test(translator('de').text(c.detail))));
  });

  test('the checks say what was compared, in the words the page shows (English, and German)', async () => {
    const decoded = await checkIdToken(await sign(good), { jwks, issuer: ISSUER, clientId: CLIENT_ID, nonce: NONCE, now: NOW });
    assert.deepEqual(decoded.checks.map((c) => inEnglish(c.detail)), [
      `ES256 signature verified with key latch-1 from ${ISSUER}/oauth2/jwks`,
      `iss is ${ISSUER}, the issuer`,
      `aud contains ${CLIENT_ID}, this app's client id`,
      'nonce is the one sent in the authorization request',
      `expires ${new Date((nowSeconds + 300) * 1000).toISOString()}, in 300 s`,
    ]);
    const wrong = await checkIdToken(await sign({ ...good, aud: [CLIENT_ID, 'other-app'] }), { jwks, issuer: ISSUER, clientId: CLIENT_ID, nonce: NONCE, now: NOW });
    const aud = wrong.checks.find((c) => c.name === 'aud')!;
    assert.equal(inEnglish(aud.detail), `aud is ${JSON.stringify([CLIENT_ID, 'other-app'])} with azp undefined, expected ${CLIENT_ID}`);
    assert.match(translator('de').text(aud.detail), /^aud ist .* mit azp undefined, erwartet wurde /);
  });
});
