/**
 * Matching a sent redirect_uri against the registered ones (RFC 6749 §3.1.2.3, RFC 9700 §4.1.3, RFC 8252 §7.3;
 * README "Protocol decisions": exact string comparison, except that a registered loopback IP URI matches any
 * port), and naming the part in which a rejected URI differs, one clause per row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareRedirectUri, describeRedirectUriMismatch, firstDifferingPart, isRegisteredRedirectUri, type RedirectUriNote, type RedirectUriPart } from './redirect-uri-match.js';

const MATCHER_ROWS: { rule: string; registered: string[]; sent: string; matches: boolean }[] = [
    { rule: 'RFC 9700 §4.1.3: the same string matches', registered: ['https://app.example/cb'], sent: 'https://app.example/cb', matches: true },
    { rule: 'RFC 6749 §3.1.2.3: any one of several registered URIs matches', registered: ['https://a.example/cb', 'https://app.example/cb'], sent: 'https://app.example/cb', matches: true },
    { rule: 'RFC 9700 §4.1.3: no registered URI, no match', registered: [], sent: 'https://app.example/cb', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — another path does not match', registered: ['https://app.example/cb'], sent: 'https://app.example/cb/evil', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — a trailing slash does not match', registered: ['https://app.example/cb'], sent: 'https://app.example/cb/', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — an added query does not match', registered: ['https://app.example/cb'], sent: 'https://app.example/cb?x=1', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — a query in another order does not match', registered: ['https://app.example/cb?a=1&b=2'], sent: 'https://app.example/cb?b=2&a=1', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — case differences do not match, even in the host', registered: ['https://app.example/cb'], sent: 'https://APP.example/cb', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — the default port written out does not match', registered: ['https://app.example/cb'], sent: 'https://app.example:443/cb', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — percent-encoding is not undone', registered: ['https://app.example/a b'], sent: 'https://app.example/a%20b', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — a subdomain does not match', registered: ['https://app.example/cb'], sent: 'https://evil.app.example/cb', matches: false },
    { rule: 'RFC 9700 §4.1.3: exact — a prefix of a registered URI does not match', registered: ['https://app.example/cb'], sent: 'https://app.example/c', matches: false },
    { rule: 'RFC 9700 §4.1.3: an https URI on another port does not match (only loopback IPs are port-free)', registered: ['https://app.example/cb'], sent: 'https://app.example:8443/cb', matches: false },
    { rule: 'RFC 8252 §7.3: a loopback redirect matches any port (127.0.0.1, registered without one)', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:49152/cb', matches: true },
    { rule: 'RFC 8252 §7.3: a loopback redirect matches any port ([::1], registered without one)', registered: ['http://[::1]/cb'], sent: 'http://[::1]:49152/cb', matches: true },
    { rule: 'RFC 8252 §7.3: a loopback redirect matches any port (registered with another port)', registered: ['http://127.0.0.1:3000/cb'], sent: 'http://127.0.0.1:49152/cb', matches: true },
    { rule: 'RFC 8252 §7.3: a loopback redirect matches without a port when registered with one', registered: ['http://127.0.0.1:3000/cb'], sent: 'http://127.0.0.1/cb', matches: true },
    { rule: 'RFC 8252 §7.3: a loopback redirect matches any port with no path at all', registered: ['http://127.0.0.1'], sent: 'http://127.0.0.1:8080', matches: true },
    { rule: 'RFC 8252 §7.3: a loopback redirect keeps its query compared exactly, across ports', registered: ['http://127.0.0.1/cb?x=1'], sent: 'http://127.0.0.1:8080/cb?x=1', matches: true },
    { rule: 'RFC 8252 §7.3: only the port is free — another path on a loopback IP does not match', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:8080/other', matches: false },
    { rule: 'RFC 8252 §7.3: only the port is free — another query on a loopback IP does not match', registered: ['http://127.0.0.1/cb?x=1'], sent: 'http://127.0.0.1:8080/cb?x=2', matches: false },
    { rule: 'RFC 8252 §7.3: only the port is free — 127.0.0.1 and [::1] are different hosts', registered: ['http://127.0.0.1/cb'], sent: 'http://[::1]:8080/cb', matches: false },
    { rule: 'RFC 8252 §7.3: only the port is free — https to a loopback IP is not the http one', registered: ['http://127.0.0.1/cb'], sent: 'https://127.0.0.1:8080/cb', matches: false },
    { rule: 'RFC 8252 §7.3: the port-free rule is for loopback IP literals; localhost matches exactly (README)', registered: ['http://localhost/cb'], sent: 'http://localhost:49152/cb', matches: false },
    { rule: 'RFC 8252 §7.3: the port-free rule is for 127.0.0.1 itself, not for other 127/8 addresses (README)', registered: ['http://127.0.0.2/cb'], sent: 'http://127.0.0.2:8080/cb', matches: false },
    { rule: 'RFC 8252 §7.3: a port followed by user info is no loopback authority (127.0.0.1:8080@evil.example)', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:8080@evil.example/cb', matches: false },
    { rule: 'RFC 8252 §7.3: a loopback IP followed by more host is no loopback authority', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1.evil.example:8080/cb', matches: false },
    { rule: 'RFC 8252 §7.3: port 0 is no port a redirect can reach', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:0/cb', matches: false },
    { rule: 'RFC 8252 §7.3: a port above 65535 is no port a redirect can reach', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:65536/cb', matches: false },
    { rule: 'RFC 8252 §7.3: port 65535 is a port', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:65535/cb', matches: true },
    { rule: 'RFC 8252 §7.3: an empty port is not a port (compared exactly)', registered: ['http://127.0.0.1/cb'], sent: 'http://127.0.0.1:/cb', matches: false },
];

describe('isRegisteredRedirectUri', () => {
  for (const row of MATCHER_ROWS) {
    test(row.rule, () => {
      assert.equal(isRegisteredRedirectUri(row.registered, row.sent), row.matches);
    });
  }
});

describe('compareRedirectUri mirrors every rule of the matcher', () => {
  const rows: { rule: string; received: string; registered: string; part: RedirectUriPart | null; sent?: string | null; registeredPart?: string | null; note?: RedirectUriNote | null }[] = [
    { rule: 'Latch: another scheme is named first', received: 'http://app.example/cb', registered: 'https://app.example/cb', part: 'scheme', sent: 'http', registeredPart: 'https' },
    { rule: 'Latch: another host', received: 'https://evil.example/cb', registered: 'https://app.example/cb', part: 'host', sent: 'evil.example', registeredPart: 'app.example' },
    { rule: 'Latch: another port', received: 'https://app.example:8443/cb', registered: 'https://app.example/cb', part: 'port', sent: '8443', registeredPart: null },
    { rule: 'Latch: another path', received: 'https://app.example/callback', registered: 'https://app.example/cb', part: 'path', sent: '/callback', registeredPart: '/cb' },
    { rule: 'Latch: a path differing only in a trailing slash', received: 'https://app.example/cb/', registered: 'https://app.example/cb', part: 'trailing slash', sent: '/cb/', registeredPart: '/cb' },
    { rule: 'Latch: another query', received: 'https://app.example/cb?x=2', registered: 'https://app.example/cb?x=1', part: 'query', sent: 'x=2', registeredPart: 'x=1' },
    { rule: 'RFC 9700 §4.1.3: an added query', received: 'https://app.example/cb?x=1', registered: 'https://app.example/cb', part: 'query', sent: 'x=1', registeredPart: null },
    { rule: 'RFC 9700 §4.1.3: a query in another order is another query', received: 'https://app.example/cb?b=2&a=1', registered: 'https://app.example/cb?a=1&b=2', part: 'query' },
    { rule: 'RFC 9700 §4.1.3: exact, so the case of the host counts', received: 'https://APP.example/cb', registered: 'https://app.example/cb', part: 'host', note: 'letter case' },
    { rule: 'RFC 9700 §4.1.3: exact, so the case of the scheme counts', received: 'HTTPS://app.example/cb', registered: 'https://app.example/cb', part: 'scheme', note: 'letter case' },
    { rule: 'RFC 9700 §4.1.3: exact, so the default port written out counts', received: 'https://app.example:443/cb', registered: 'https://app.example/cb', part: 'port', sent: '443', registeredPart: null, note: 'default port' },
    { rule: 'RFC 9700 §4.1.3: exact, so percent-encoding is not undone', received: 'https://app.example/a%20b', registered: 'https://app.example/a b', part: 'path', note: 'percent-encoding' },
    { rule: 'RFC 8252 §7.3: a loopback URL on another port and another path differs in the path (ports match any port)', received: 'http://127.0.0.1:8080/other', registered: 'http://127.0.0.1:3000/cb', part: 'path', sent: '/other', registeredPart: '/cb', note: 'loopback port ignored' },
    { rule: 'RFC 8252 §7.3: [::1] on another port with a trailing slash differs in the trailing slash', received: 'http://[::1]:5000/cb/', registered: 'http://[::1]/cb', part: 'trailing slash', note: 'loopback port ignored' },
    { rule: 'RFC 8252 §7.3: a loopback URL on another port with another query differs in the query', received: 'http://127.0.0.1:8080/cb?x=2', registered: 'http://127.0.0.1/cb?x=1', part: 'query', note: 'loopback port ignored' },
    { rule: 'RFC 8252 §7.3: a loopback URL on another port and nothing else matches: no difference', received: 'http://127.0.0.1:8080/cb', registered: 'http://127.0.0.1:3000/cb', part: null },
    { rule: 'RFC 8252 §7.3: 127.0.0.1 and [::1] are different hosts', received: 'http://[::1]:8080/cb', registered: 'http://127.0.0.1/cb', part: 'host' },
    { rule: 'RFC 8252 §7.3: https to a loopback IP is another scheme', received: 'https://127.0.0.1:8080/cb', registered: 'http://127.0.0.1/cb', part: 'scheme' },
    { rule: 'RFC 8252 §7.3: localhost is compared with its port', received: 'http://localhost:5173/cb', registered: 'http://localhost:3000/cb', part: 'port', sent: '5173', registeredPart: '3000', note: 'port exception not for this host' },
    { rule: 'RFC 8252 §7.3: another 127/8 address is compared with its port', received: 'http://127.0.0.2:8080/cb', registered: 'http://127.0.0.2/cb', part: 'port', note: 'port exception not for this host' },
    { rule: 'RFC 8252 §7.3: port 0 is no loopback port, so it is compared', received: 'http://127.0.0.1:0/cb', registered: 'http://127.0.0.1/cb', part: 'port', sent: '0', note: null },
    { rule: 'RFC 8252 §7.3: user info before a loopback address makes another host', received: 'http://127.0.0.1:8080@evil.example/cb', registered: 'http://127.0.0.1/cb', part: 'host', sent: 'evil.example' },
    { rule: 'RFC 6749 §3.1.2: a fragment is a difference', received: 'https://app.example/cb#x', registered: 'https://app.example/cb', part: 'fragment', sent: 'x', registeredPart: null },
    { rule: 'RFC 8252 §7.1: a private-use scheme with another path', received: 'com.example.app:/other', registered: 'com.example.app:/cb', part: 'path' },
    { rule: 'Latch: a received value that is no URL differs as a whole', received: 'not a url', registered: 'https://app.example/cb', part: 'whole URI' },
    { rule: 'RFC 9700 §4.1.3: the same string: no difference', received: 'https://app.example/cb', registered: 'https://app.example/cb', part: null },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const difference = compareRedirectUri(row.received, row.registered);
      assert.equal(difference?.part ?? null, row.part);
      assert.equal(firstDifferingPart(row.received, row.registered), row.part);
      // The comparison agrees with the matcher: no difference exactly when the URI is accepted.
      assert.equal(difference === null, isRegisteredRedirectUri([row.registered], row.received));
      if (row.sent !== undefined) assert.equal(difference?.sent, row.sent);
      if (row.registeredPart !== undefined) assert.equal(difference?.registered, row.registeredPart);
      if (row.note !== undefined) assert.equal(difference?.note, row.note);
    });
  }

  test('every row of the matcher table gets a difference exactly when the matcher refuses', () => {
    for (const row of MATCHER_ROWS) {
      for (const uri of row.registered) {
        if (row.registered.length !== 1) continue;
        assert.equal(compareRedirectUri(row.sent, uri) === null, row.matches, row.rule);
      }
    }
  });
});

describe('describeRedirectUriMismatch', () => {
  test('Latch: the closest registered URI is the one differing in the latest part (query beats host)', () => {
    const registered = ['https://other.example/cb', 'https://app.example/cb?x=1', 'https://app.example/callback'];
    assert.deepEqual(describeRedirectUriMismatch('https://app.example/cb?x=2', registered), {
      received: 'https://app.example/cb?x=2',
      registered,
      closest: 'https://app.example/cb?x=1',
      differingPart: 'query',
    });
  });

  test('Latch: with no registered URI there is no closest one', () => {
    assert.deepEqual(describeRedirectUriMismatch('https://app.example/cb', []), {
      received: 'https://app.example/cb',
      registered: [],
      closest: null,
      differingPart: null,
    });
  });
});
