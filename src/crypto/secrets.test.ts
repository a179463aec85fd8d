import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateIdentifier, generateSecret, generateTimeOrderedIdentifier, generateTimeOrderedSecret, hashSecret, hashTimeOrderedSecret, SECRET_PREFIX } from './secrets.js';

const BASE64URL_256_BITS = /^[A-Za-z0-9_-]{43}$/;
/** A fixed instant: 2030-06-01T12:00:00.123Z. */
const NOW_MS = Date.UTC(2030, 5, 1, 12, 0, 0, 123);

/** The parts of a time-ordered secret: its time digits and its random part. */
function partsOf(secret: string, prefix: string): { time: string; random: string } {
  assert.ok(secret.startsWith(prefix), secret);
  return { time: secret.slice(prefix.length, prefix.length + 11), random: secret.slice(prefix.length + 11) };
}

describe('time-ordered secrets', () => {
  test('carry the prefix, the creation time in 11 hex digits and 256 bits in base64url', () => {
    for (const prefix of [SECRET_PREFIX.accessToken, SECRET_PREFIX.authorizationCode]) {
      const secret = generateTimeOrderedSecret(prefix, NOW_MS);
      assert.equal(secret.length, prefix.length + 11 + 43);
      const { time, random } = partsOf(secret, prefix);
      assert.match(time, /^[0-9a-f]{11}$/);
      assert.equal(parseInt(time, 16), NOW_MS);
      assert.match(random, BASE64URL_256_BITS);
      const bytes = Buffer.from(random, 'base64url');
      assert.equal(bytes.length, 32);
      assert.equal(bytes.toString('base64url'), random);
      // Only RFC 3986 unreserved characters: safe in a URL and a form without escaping.
      assert.equal(encodeURIComponent(secret), secret);
    }
  });

  test('take the current time by default, whole milliseconds', () => {
    const before = Date.now();
    const secret = generateTimeOrderedSecret(SECRET_PREFIX.accessToken);
    const after = Date.now();
    const time = parseInt(partsOf(secret, SECRET_PREFIX.accessToken).time, 16);
    assert.ok(before <= time && time <= after, `${before} <= ${time} <= ${after}`);
    assert.equal(parseInt(partsOf(generateTimeOrderedSecret(SECRET_PREFIX.accessToken, NOW_MS + 0.9), SECRET_PREFIX.accessToken).time, 16), NOW_MS);
  });

  test('every one of the 256 random bits varies, and no two secrets of one millisecond are alike', () => {
    const secrets = Array.from({ length: 512 }, () => generateTimeOrderedSecret(SECRET_PREFIX.accessToken, NOW_MS));
    assert.equal(new Set(secrets).size, secrets.length);
    assert.equal(new Set(secrets.map(hashTimeOrderedSecret)).size, secrets.length);
    const ones = new Array<number>(256).fill(0);
    for (const secret of secrets) {
      const bytes = Buffer.from(partsOf(secret, SECRET_PREFIX.accessToken).random, 'base64url');
      for (let bit = 0; bit < 256; bit++) ones[bit]! += (bytes[bit >> 3]! >> (bit & 7)) & 1;
    }
    // A bit that is always 0 or always 1 in 512 draws is not random (chance 2^-511 each).
    const stuck = ones.flatMap((count, bit) => (count === 0 || count === secrets.length ? [bit] : []));
    assert.deepEqual(stuck, []);
  });

  test('are stored as their time digits, a dot and the SHA-256 of the whole secret', () => {
    const secret = generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode, NOW_MS);
    assert.equal(hashTimeOrderedSecret(secret), `${NOW_MS.toString(16).padStart(11, '0')}.${hashSecret(secret)}`);
    // The time digits are not the secret: the hash covers all of it, so a secret with another random part has another key.
    const other = generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode, NOW_MS);
    assert.notEqual(hashTimeOrderedSecret(other), hashTimeOrderedSecret(secret));
  });

  test('their stored keys sort by creation time, across every width of the time in hex', () => {
    const times = [0, 1, 15, 16, 255, 256, 0xfff_ffff_fff, 0xffff_ffff, 0x1_0000_0000, NOW_MS - 1, NOW_MS, NOW_MS + 1, Date.UTC(2100, 0, 1), 16 ** 11 - 1];
    const keys = times.map((time) => ({ time, key: hashTimeOrderedSecret(generateTimeOrderedSecret(SECRET_PREFIX.accessToken, time)) }));
    // As an index compares them: by code unit (byte order for these ASCII keys), as SQLite's BINARY and PostgreSQL's "C" collation do.
    const byKey = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    assert.deepEqual(
      byKey.map((k) => k.time),
      [...times].sort((a, b) => a - b),
    );
  });
});

describe('secrets without time digits', () => {
  test('hash as hashSecret: client secrets, session ids and tokens issued before time digits', () => {
    for (const prefix of Object.values(SECRET_PREFIX)) {
      for (let i = 0; i < 200; i++) {
        const secret = generateSecret(prefix);
        assert.equal(secret.length, prefix.length + 43);
        assert.match(secret.slice(prefix.length), BASE64URL_256_BITS);
        assert.equal(hashTimeOrderedSecret(secret), hashSecret(secret));
      }
    }
  });

  test('a prefix followed by no hex digits is not time-ordered', () => {
    for (const secret of [
      `${SECRET_PREFIX.clientSecret}Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg`,
      `${SECRET_PREFIX.accessToken}_-ABCDEFGHIJabcdefghijklmnopqrstuvwxyz01234`,
      `${SECRET_PREFIX.authorizationCode}0123456789G${'a'.repeat(43)}`,
      SECRET_PREFIX.accessToken,
      '',
    ]) {
      assert.equal(hashTimeOrderedSecret(secret), hashSecret(secret), secret);
    }
  });

  test('a token issued before time digits whose random part starts with 11 hex digits still hashes as hashSecret', () => {
    // One old secret in 4^11 (about 4 million) looks like this: its stored key is its plain hash, and must be found by it.
    const secret = `${SECRET_PREFIX.accessToken}0123456789aBCDEFGHIJKLMNOPQRSTUVWXYZ_-abcde`;
    assert.equal(secret.length, SECRET_PREFIX.accessToken.length + 43);
    assert.equal(hashTimeOrderedSecret(secret), hashSecret(secret));
  });
});

describe('identifiers', () => {
  test('are base64url of the requested bytes and never start with - or _ (the CLI would take them for options)', () => {
    // Without the rule, one in 32 starts with either: 2,000 of them all passing would happen once in ~10^27.
    const identifiers = Array.from({ length: 2000 }, () => generateIdentifier(16));
    for (const identifier of identifiers) {
      assert.equal(Buffer.from(identifier, 'base64url').length, 16);
      assert.match(identifier, /^[A-Za-z0-9][A-Za-z0-9_-]{21}$/);
    }
    assert.equal(new Set(identifiers).size, identifiers.length);
  });

  test('time-ordered identifiers (grant ids) start with the time, so that later ones sort after earlier ones, and are unique', () => {
    const earlier = Array.from({ length: 500 }, () => generateTimeOrderedIdentifier(NOW_MS));
    const later = generateTimeOrderedIdentifier(NOW_MS + 1);
    for (const identifier of earlier) {
      assert.match(identifier, /^[0-9a-f]{11}[A-Za-z0-9_-]{22}$/);
      assert.equal(parseInt(identifier.slice(0, 11), 16), NOW_MS);
      assert.ok(identifier < later, `${identifier} sorts before ${later}`);
    }
    assert.equal(new Set(earlier).size, earlier.length);
  });
});
