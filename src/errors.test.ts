/**
 * error_description on the wire (RFC 6749 §4.1.2.1 and §5.2: error_description = 1*( %x20-21 / %x23-5B /
 * %x5D-7E )), one clause per row: every other character is percent-encoded as UTF-8.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidRequest, toErrorDescriptionCharset } from './errors.js';

const ERROR_DESCRIPTION_CHARSET = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

describe('toErrorDescriptionCharset', () => {
  const rows: { rule: string; description: string; wire: string }[] = [
    { rule: 'RFC 6749 §4.1.2.1: plain ASCII text is kept as it is', description: 'redirect_uri is required', wire: 'redirect_uri is required' },
    { rule: 'RFC 6749 §4.1.2.1: %x20-21 — space and ! are kept', description: 'no! ', wire: 'no! ' },
    { rule: 'RFC 6749 §4.1.2.1: %x22 — the double quote is not allowed, so it is encoded', description: 'say "hi"', wire: 'say %22hi%22' },
    { rule: 'RFC 6749 §4.1.2.1: %x23-5B — # $ % & \' ( ) … [ are kept', description: "#$%&'()*+,-./09:;<=>?@AZ[", wire: "#$%&'()*+,-./09:;<=>?@AZ[" },
    { rule: 'RFC 6749 §4.1.2.1: %x5C — the backslash is not allowed, so it is encoded', description: 'C:\\path', wire: 'C:%5Cpath' },
    { rule: 'RFC 6749 §4.1.2.1: %x5D-7E — ] ^ _ ` a–z { | } ~ are kept', description: ']^_`az{|}~', wire: ']^_`az{|}~' },
    { rule: 'RFC 6749 §4.1.2.1: %x7F (DEL) is not allowed, so it is encoded', description: 'a\x7fb', wire: 'a%7Fb' },
    { rule: 'RFC 6749 §4.1.2.1: control characters (%x00-1F) are not allowed: line feed, tab, NUL', description: 'a\nb\tc\0', wire: 'a%0Ab%09c%00' },
    { rule: 'RFC 6749 §4.1.2.1: a carriage return cannot split a header', description: 'x\r\nSet-Cookie: a=b', wire: 'x%0D%0ASet-Cookie: a=b' },
    { rule: 'RFC 6749 §4.1.2.1: a non-ASCII character is encoded as its UTF-8 bytes (é)', description: 'café', wire: 'caf%C3%A9' },
    { rule: 'RFC 6749 §4.1.2.1: a character beyond the BMP is encoded as its four UTF-8 bytes', description: '😀', wire: '%F0%9F%98%80' },
    { rule: 'RFC 6749 §4.1.2.1: U+00A0 (no-break space) is not %x20', description: 'a\u00a0b', wire: 'a%C2%A0b' },
    { rule: 'RFC 6749 §4.1.2.1: an empty description stays empty', description: '', wire: '' },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const wire = toErrorDescriptionCharset(row.description);
      assert.equal(wire, row.wire);
      assert.match(wire, ERROR_DESCRIPTION_CHARSET);
    });
  }

  test('RFC 6749 §4.1.2.1: any character at all comes out in the error_description set', () => {
    let every = '';
    for (let codePoint = 0; codePoint < 0x800; codePoint++) every += String.fromCodePoint(codePoint);
    every += '\u{10FFFF}\u{1F600}\uFFFD';
    assert.match(toErrorDescriptionCharset(every), ERROR_DESCRIPTION_CHARSET);
  });

  test('RFC 6749 §5.2: the JSON error carries the description in the error_description set, the error keeps the exact text', () => {
    const error = new InvalidRequest('redirect_uri "https://app.example/cb\u2192" is not registered');
    assert.deepEqual(error.toJSON(), {
      error: 'invalid_request',
      error_description: 'redirect_uri %22https://app.example/cb%E2%86%92%22 is not registered',
    });
    assert.equal(error.description, 'redirect_uri "https://app.example/cb\u2192" is not registered');
  });
});
