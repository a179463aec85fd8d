import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeFormEncoded, splitBasicCredentials, type BasicCredentials } from './basic-credentials.js';

const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

test('splitBasicCredentials: the two parts of RFC 7617 Basic credentials, still form-encoded, or what is wrong', () => {
  const cases: Array<[string, BasicCredentials]> = [
    [basic('app:s3cret'), { id: 'app', secret: 's3cret' }],
    // The scheme is case-insensitive (RFC 9110 §11.1); the secret may hold colons, the id may not (RFC 7617 §2).
    [`basic ${Buffer.from('app:a:b').toString('base64')}`, { id: 'app', secret: 'a:b' }],
    [`BASIC   ${Buffer.from('app:x').toString('base64')}  `, { id: 'app', secret: 'x' }],
    [basic('my%20app:p%2Bw+d'), { id: 'my%20app', secret: 'p%2Bw+d' }],
    [basic('app:'), { id: 'app', secret: '' }],
    [basic('app'), { problem: 'no colon' }],
    ['Basic', { problem: 'malformed' }],
    ['Basic !!!', { problem: 'malformed' }],
    ['Bearer abc', { problem: 'malformed' }],
    [`Basic ${Buffer.from('app:x').toString('base64')} extra`, { problem: 'malformed' }],
  ];
  for (const [header, expected] of cases) assert.deepEqual(splitBasicCredentials(header), expected, header);
});

test('decodeFormEncoded: percent-escapes and + decoded (RFC 6749 Appendix B), broken escapes null', () => {
  const cases: Array<[string, string | null]> = [
    ['latch_app_123', 'latch_app_123'],
    ['my%20app', 'my app'],
    ['p%2Bw+d', 'p+w d'],
    ['J%C3%BCrgen', 'Jürgen'],
    ['100%', null],
    ['%C3', null],
  ];
  for (const [value, expected] of cases) assert.equal(decodeFormEncoded(value), expected, value);
});
