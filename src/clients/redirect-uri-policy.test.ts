/**
 * What a redirect URI may be at registration (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §2.1 and §4.1), one
 * clause per row. Accepted URIs give null; refused ones a message that says what to change.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkRedirectUri, isLoopbackHost } from './redirect-uri-policy.js';

const PRODUCTION = { developmentMode: false };
const DEVELOPMENT = { developmentMode: true };

describe('checkRedirectUri', () => {
  const accepted: { rule: string; uri: string; options?: { developmentMode: boolean } }[] = [
    { rule: 'RFC 6749 §3.1.2.1: an https redirect URI is accepted', uri: 'https://app.example/callback' },
    { rule: 'RFC 6749 §3.1.2: an absolute URI MAY include a query component', uri: 'https://app.example/callback?tenant=42' },
    { rule: 'RFC 6749 §3.1.2: an https URI with a port is accepted', uri: 'https://app.example:8443/callback' },
    { rule: 'RFC 8252 §7.3: http to the loopback IP 127.0.0.1 is accepted', uri: 'http://127.0.0.1/callback' },
    { rule: 'RFC 8252 §7.3: http to the loopback IP 127.0.0.1 with a port is accepted', uri: 'http://127.0.0.1:8080/callback' },
    { rule: 'RFC 8252 §7.3: http to the IPv6 loopback [::1] is accepted', uri: 'http://[::1]:8080/callback' },
    { rule: 'RFC 8252 §7.3: http to any address of 127.0.0.0/8 is loopback', uri: 'http://127.10.20.30/callback' },
    { rule: 'RFC 8252 §8.3: http to localhost is accepted (NOT RECOMMENDED there, but loopback)', uri: 'http://localhost:3000/callback' },
    { rule: 'RFC 8252 §7.1: a private-use scheme named after a reverse domain is accepted (com.example.app:/cb)', uri: 'com.example.app:/oauth2redirect' },
    { rule: 'RFC 8252 §7.1: a private-use scheme with an authority is accepted too', uri: 'com.example.app://oauth2redirect' },
    { rule: 'Latch: http to any host is accepted in development mode', uri: 'http://app.test/callback', options: DEVELOPMENT },
    { rule: 'Latch: exactly 2000 characters is accepted', uri: `https://app.example/${'a'.repeat(2000 - 'https://app.example/'.length)}` },
  ];
  for (const row of accepted) {
    test(row.rule, () => {
      assert.equal(checkRedirectUri(row.uri, row.options ?? PRODUCTION), null);
    });
  }

  const refused: { rule: string; uri: string; options?: { developmentMode: boolean }; message: RegExp }[] = [
    { rule: 'Latch: an empty redirect URI is refused', uri: '', message: /^Redirect URI must not be empty$/ },
    { rule: 'Latch: more than 2000 characters is refused', uri: `https://app.example/${'a'.repeat(2001 - 'https://app.example/'.length)}`, message: /at most 2000 characters/ },
    { rule: 'RFC 3986 §2: a URI has no spaces', uri: 'https://app.example/my callback', message: /must not contain spaces/ },
    { rule: 'RFC 3986 §2: a URI has no line breaks (nor tabs)', uri: 'https://app.example/cb\n', message: /must not contain spaces/ },
    { rule: 'RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment component', uri: 'https://app.example/cb#top', message: /must not contain a fragment/ },
    { rule: 'RFC 6749 §3.1.2: an empty fragment is still a fragment', uri: 'https://app.example/cb#', message: /must not contain a fragment/ },
    { rule: 'RFC 9700 §4.1.3: redirect URIs are compared exactly, so no wildcards', uri: 'https://*.app.example/cb', message: /must not contain wildcards/ },
    { rule: 'RFC 6749 §3.1.2: the redirection endpoint URI MUST be an absolute URI (a path is not)', uri: '/callback', message: /is not an absolute URL/ },
    { rule: 'RFC 6749 §3.1.2: the redirection endpoint URI MUST be an absolute URI (a host without a scheme is not)', uri: 'app.example/callback', message: /is not an absolute URL/ },
    { rule: 'RFC 3986 §3.2.1: user information (user:password@) is refused', uri: 'https://user:secret@app.example/cb', message: /must not contain a user name or password/ },
    { rule: 'RFC 3986 §3.2.1: a user name alone is refused (app.example@evil.example)', uri: 'https://app.example@evil.example/cb', message: /must not contain a user name or password/ },
    { rule: 'Latch (redirect-uri-policy.ts): javascript: can never be a safe redirect target', uri: 'javascript:alert(1)', message: /scheme javascript: can never be safe/ },
    { rule: 'Latch (redirect-uri-policy.ts): javascript: in upper case is javascript:', uri: 'JavaScript://app.example/%0aalert(1)', message: /scheme javascript: can never be safe/ },
    { rule: 'Latch (redirect-uri-policy.ts): data: can never be a safe redirect target', uri: 'data:text/html,hi', message: /scheme data: can never be safe/ },
    { rule: 'Latch (redirect-uri-policy.ts): file: can never be a safe redirect target', uri: 'file:///etc/passwd', message: /scheme file: can never be safe/ },
    { rule: 'Latch (redirect-uri-policy.ts): a script-bearing scheme is refused even in development mode', uri: 'vbscript:msgbox(1)', options: DEVELOPMENT, message: /scheme vbscript: can never be safe/ },
    { rule: 'RFC 9700 §2.1 and RFC 6749 §3.1.2.1: http to a non-loopback host is refused', uri: 'http://app.example/cb', message: /uses http to a non-loopback host/ },
    { rule: 'RFC 8252 §7.3: a host that only starts like a loopback IP is not loopback', uri: 'http://127.0.0.1.evil.example/cb', message: /uses http to a non-loopback host/ },
    { rule: 'RFC 8252 §8.3: a host that only starts with localhost is not loopback', uri: 'http://localhost.evil.example/cb', message: /uses http to a non-loopback host/ },
    { rule: 'RFC 8252 §7.3: 0.0.0.0 is not the loopback interface', uri: 'http://0.0.0.0:8080/cb', message: /uses http to a non-loopback host/ },
    { rule: 'RFC 8252 §7.1: a private-use scheme that is not a reverse domain name is refused', uri: 'myapp:/callback', message: /scheme myapp: is not allowed/ },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      const message = checkRedirectUri(row.uri, row.options ?? PRODUCTION);
      assert.ok(message !== null, `${JSON.stringify(row.uri)} was accepted`);
      assert.match(message, row.message);
    });
  }

  // Strings that are not RFC 3986 URIs, which the WHATWG parser behind `new URL` would accept and correct, while
  // the raw string is what is stored, compared and written into the Location header.
  const notUris: { rule: string; uri: string }[] = [
    { rule: 'RFC 6749 §3.1.2 (RFC 3986 §2): a control character is no URI character', uri: 'https://app.example/cb\u0001' },
    { rule: 'RFC 6749 §3.1.2 (RFC 3986 §2): a non-ASCII character is no URI character', uri: 'https://app.example/cb\u2192' },
    { rule: 'RFC 6749 §3.1.2 (RFC 3986 §2): " < > \\ are no URI characters', uri: 'https://app.example/a"<b>\\c' },
    { rule: 'RFC 3986 §2.1: % starts a percent-encoding of two hex digits', uri: 'https://app.example/cb?x=%zz' },
  ];
  for (const row of notUris) {
    test(row.rule, () => {
      assert.match(checkRedirectUri(row.uri, PRODUCTION) ?? 'accepted', /characters a URI cannot have/, `${JSON.stringify(row.uri)} was accepted`);
    });
  }
});

describe('isLoopbackHost', () => {
  const rows: { rule: string; hostname: string; loopback: boolean }[] = [
    { rule: 'RFC 8252 §7.3: 127.0.0.1 is the IPv4 loopback', hostname: '127.0.0.1', loopback: true },
    { rule: 'RFC 8252 §7.3: [::1] is the IPv6 loopback (bracketed, as URL.hostname gives it)', hostname: '[::1]', loopback: true },
    { rule: 'RFC 8252 §8.3: localhost names the loopback interface', hostname: 'localhost', loopback: true },
    { rule: 'RFC 8252 §7.3: 127.255.255.254 is in 127.0.0.0/8', hostname: '127.255.255.254', loopback: true },
    { rule: 'RFC 8252 §7.3: 128.0.0.1 is not loopback', hostname: '128.0.0.1', loopback: false },
    { rule: 'RFC 8252 §7.3: a name under 127.0.0.1 is not loopback', hostname: '127.0.0.1.evil.example', loopback: false },
    { rule: 'RFC 8252 §8.3: a name under localhost is not loopback', hostname: 'localhost.evil.example', loopback: false },
    { rule: 'RFC 8252 §7.3: an unbracketed ::1 is not a URL hostname', hostname: '::1', loopback: false },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      assert.equal(isLoopbackHost(row.hostname), row.loopback);
    });
  }
});
