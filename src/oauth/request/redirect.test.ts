/**
 * The redirect back to the client (RFC 6749 §4.1.2, §4.1.2.1, §3.1.2; RFC 9207 §2), one clause per row: the
 * registered query is kept as it is, the response parameters are added in application/x-www-form-urlencoded form
 * (RFC 6749 Appendix B), `state` comes back exactly as sent, and parameters without a value are left out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildRedirectUrl } from './redirect.js';

const ISSUER = 'https://id.example.com';

const rows: { rule: string; redirectUri: string; params: Record<string, string | undefined>; location: string }[] = [
  {
    rule: 'RFC 6749 §4.1.2: code and state are added to the query of the redirect URI',
    redirectUri: 'https://app.example/cb',
    params: { code: 'abc', state: 'xyz' },
    location: 'https://app.example/cb?code=abc&state=xyz',
  },
  {
    rule: 'RFC 6749 §3.1.2: the registered query component MUST be retained when adding parameters',
    redirectUri: 'https://app.example/cb?tenant=42',
    params: { code: 'abc' },
    location: 'https://app.example/cb?tenant=42&code=abc',
  },
  {
    rule: 'RFC 6749 §3.1.2: the registered query is kept byte for byte (its encoding is not redone)',
    redirectUri: 'https://app.example/cb?next=%2Fhome&flag&a=b+c',
    params: { code: 'abc' },
    location: 'https://app.example/cb?next=%2Fhome&flag&a=b+c&code=abc',
  },
  {
    rule: 'RFC 6749 §3.1.2: a redirect URI ending in ? gets the parameters with no extra separator',
    redirectUri: 'https://app.example/cb?',
    params: { code: 'abc' },
    location: 'https://app.example/cb?code=abc',
  },
  {
    rule: 'RFC 6749 §3.1.2: a redirect URI whose query ends in & gets the parameters with no extra separator',
    redirectUri: 'https://app.example/cb?tenant=42&',
    params: { code: 'abc' },
    location: 'https://app.example/cb?tenant=42&code=abc',
  },
  {
    rule: 'RFC 6749 §4.1.2: state is REQUIRED in the response only if it was in the request (undefined is left out)',
    redirectUri: 'https://app.example/cb',
    params: { code: 'abc', state: undefined, iss: ISSUER },
    location: 'https://app.example/cb?code=abc&iss=https%3A%2F%2Fid.example.com',
  },
  {
    rule: 'RFC 9207 §2: iss is added, form-encoded',
    redirectUri: 'https://app.example/cb',
    params: { code: 'abc', state: 'xyz', iss: 'http://localhost:3000' },
    location: 'https://app.example/cb?code=abc&state=xyz&iss=http%3A%2F%2Flocalhost%3A3000',
  },
  {
    rule: 'RFC 6749 §4.1.2.1: an error response carries error, error_description, state and iss',
    redirectUri: 'https://app.example/cb',
    params: { error: 'access_denied', error_description: 'The user denied access', state: 'xyz', iss: ISSUER },
    location: 'https://app.example/cb?error=access_denied&error_description=The+user+denied+access&state=xyz&iss=https%3A%2F%2Fid.example.com',
  },
  {
    rule: 'RFC 8252 §7.1: a private-use scheme redirect gets a query as well',
    redirectUri: 'com.example.app:/oauth2redirect',
    params: { code: 'abc' },
    location: 'com.example.app:/oauth2redirect?code=abc',
  },
  {
    rule: 'RFC 8252 §7.3: a loopback redirect keeps the port the client sent',
    redirectUri: 'http://127.0.0.1:49152/cb',
    params: { code: 'abc' },
    location: 'http://127.0.0.1:49152/cb?code=abc',
  },
];

describe('buildRedirectUrl', () => {
  for (const row of rows) {
    test(row.rule, () => {
      assert.equal(buildRedirectUrl(row.redirectUri, row.params), row.location);
    });
  }

  const states: { rule: string; state: string }[] = [
    { rule: 'RFC 6749 §4.1.2: state comes back exactly as sent — reserved characters (& = + ? # /)', state: 'a&b=c+d?e#f/g' },
    { rule: 'RFC 6749 §4.1.2: state comes back exactly as sent — spaces and percent signs', state: ' 100% sure %20 ' },
    { rule: 'RFC 6749 §4.1.2: state comes back exactly as sent — non-ASCII, as UTF-8', state: 'café ✓ 😀' },
    { rule: 'RFC 6749 §4.1.2: state comes back exactly as sent — a JSON value', state: '{"return":"/p?x=1","n":[1,2]}' },
  ];
  for (const row of states) {
    test(row.rule, () => {
      const location = buildRedirectUrl('https://app.example/cb?tenant=42', { code: 'abc', state: row.state, iss: ISSUER });
      // Only URI characters on the wire: no space, no raw non-ASCII (RFC 3986 §2).
      assert.match(location, /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/);
      const query = new URL(location).searchParams;
      assert.deepEqual([...query.keys()], ['tenant', 'code', 'state', 'iss']);
      assert.equal(query.get('state'), row.state);
      assert.equal(query.get('iss'), ISSUER);
    });
  }
});
