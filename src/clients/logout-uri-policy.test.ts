/**
 * What a client's logout URIs may be at registration (OIDC RP-Initiated Logout 1.0 §3.1, OIDC Back-Channel
 * Logout 1.0 §2.2), one clause per row. Accepted URIs give null; refused ones a message that says what to change.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkBackchannelLogoutUri, checkPostLogoutRedirectUri, checkPostLogoutRedirectUris, MAX_POST_LOGOUT_REDIRECT_URIS } from './logout-uri-policy.js';

const PRODUCTION = { developmentMode: false };
const DEVELOPMENT = { developmentMode: true };

describe('checkPostLogoutRedirectUri', () => {
  const rows: { rule: string; uri: string; options?: { developmentMode: boolean }; message: RegExp | null }[] = [
    { rule: 'RPIL §3.1: an https URI is accepted', uri: 'https://app.example/signed-out', message: null },
    { rule: 'RPIL §3.1: a query is part of the registered value', uri: 'https://app.example/bye?from=latch', message: null },
    { rule: 'RFC 8252 §7.3 (as for redirect URIs): http to a loopback address is accepted', uri: 'http://127.0.0.1:8080/bye', message: null },
    { rule: 'RFC 8252 §7.1 (as for redirect URIs): a native app private-use scheme is accepted', uri: 'com.example.app:/bye', message: null },
    { rule: 'Latch: http to any host in development mode', uri: 'http://app.test/bye', options: DEVELOPMENT, message: null },
    { rule: 'RFC 6749 §3.1.2 (as for redirect URIs): no fragment', uri: 'https://app.example/bye#x', message: /^Post-logout redirect URI .* must not contain a fragment/ },
    { rule: 'Latch: exact comparison, so no wildcards', uri: 'https://*.app.example/bye', message: /^Post-logout redirect URI .* must not contain wildcards/ },
    { rule: 'RFC 9700 §2.1: http to another host is refused', uri: 'http://app.example/bye', message: /^Post-logout redirect URI .* uses http to a non-loopback host/ },
    { rule: 'Latch: a script scheme can never be a redirect target', uri: 'javascript:alert(1)', message: /^Post-logout redirect URI scheme javascript: can never be safe/ },
    { rule: 'Latch: an empty URI is refused', uri: '', message: /^Post-logout redirect URI must not be empty$/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = checkPostLogoutRedirectUri(row.uri, row.options ?? PRODUCTION);
      if (row.message === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.message);
    });
  }

  test('Latch: a list may be empty, loses repeats, and holds at most the maximum', () => {
    assert.deepEqual(checkPostLogoutRedirectUris([], PRODUCTION), { problems: [], uris: [] });
    assert.deepEqual(checkPostLogoutRedirectUris(['https://a.example/x', 'https://a.example/x'], PRODUCTION).uris, ['https://a.example/x']);
    const many = Array.from({ length: MAX_POST_LOGOUT_REDIRECT_URIS + 1 }, (_, i) => `https://a.example/${i}`);
    assert.match(checkPostLogoutRedirectUris(many, PRODUCTION).problems.join(), /At most 20 post-logout redirect URIs/);
  });
});

describe('checkBackchannelLogoutUri', () => {
  const rows: { rule: string; uri: string; options?: { developmentMode: boolean }; message: RegExp | null }[] = [
    { rule: 'BCL §2.2: an https URL is accepted', uri: 'https://app.example/backchannel-logout', message: null },
    { rule: 'BCL §2.2: it MAY contain port, path and query components', uri: 'https://app.example:8443/logout?tenant=1', message: null },
    { rule: 'Latch: http to localhost in development mode', uri: 'http://localhost:3000/logout', options: DEVELOPMENT, message: null },
    { rule: 'Latch: http to 127.0.0.1 in development mode', uri: 'http://127.0.0.1:3000/logout', options: DEVELOPMENT, message: null },
    { rule: 'Latch: http to [::1] in development mode', uri: 'http://[::1]:3000/logout', options: DEVELOPMENT, message: null },
    { rule: 'BCL §2.2: it MUST NOT include a fragment component', uri: 'https://app.example/logout#x', message: /must not contain a fragment/ },
    { rule: 'Latch: http to loopback outside development mode is refused', uri: 'http://127.0.0.1:3000/logout', message: /uses http; use https:\/\/ .*LATCH_DEV_MODE=1/ },
    { rule: 'Latch: http to another host is refused, in development mode too', uri: 'http://app.test/logout', options: DEVELOPMENT, message: /must start with https:\/\// },
    { rule: 'Latch: a native app scheme cannot receive a server-to-server call', uri: 'com.example.app:/logout', message: /must start with https:\/\// },
    { rule: 'BCL §2.2: an absolute URL (a path is not)', uri: '/logout', message: /^Back-channel logout URI \/logout is not an absolute URL/ },
    { rule: 'RFC 3986 §3.2.1: no user name or password', uri: 'https://u:p@app.example/logout', message: /must not contain a user name or password/ },
    { rule: 'Latch: an empty URL is refused', uri: '', message: /^Back-channel logout URI must not be empty$/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = checkBackchannelLogoutUri(row.uri, row.options ?? PRODUCTION);
      if (row.message === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.message);
    });
  }
});
