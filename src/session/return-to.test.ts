import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeReturnTo } from './return-to.js';

test('safeReturnTo: a path on this origin, as a valid Location header; anything else the fallback', () => {
  const cases: Array<[unknown, string]> = [
    ['/', '/'],
    ['/authorize?client_id=a&state=x%20y#frag', '/authorize?client_id=a&state=x%20y#frag'],
    ['/%2F%2Fevil', '/%2F%2Fevil'],
    // Not a path on this origin: the fallback.
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example', '/'],
    ['evil', '/'],
    ['\t/x', '/'],
    ['/ok\r\nLocation: https://evil', '/'],
    ['/x\u007f', '/'],
    [undefined, '/'],
    [['/a'], '/'],
    ['/' + 'a'.repeat(8192), '/'],
    // Non-ASCII text and spaces percent-encoded as UTF-8; a lone surrogate as U+FFFD (the fuzzer's counterexample).
    ['/é', '/%C3%A9'],
    ['/日本?q=語#片', '/%E6%97%A5%E6%9C%AC?q=%E8%AA%9E#%E7%89%87'],
    ['/a b', '/a%20b'],
    ['/\ud800#"+/=%/', '/%EF%BF%BD#"+/=%/'],
    ['/😀', '/%F0%9F%98%80'],
  ];
  for (const [raw, expected] of cases) assert.equal(safeReturnTo(raw), expected, JSON.stringify(raw));
});

test('safeReturnTo: every result is one Node accepts as a header value and starts with a single slash', () => {
  for (const raw of ['/é', '/\ud800', '/\udc00x', '/ \u00a0\u2028', '/日本']) {
    const result = safeReturnTo(raw);
    assert.match(result, /^\/(?![/\\])[\x21-\x7e]*$/, JSON.stringify(raw));
  }
});
