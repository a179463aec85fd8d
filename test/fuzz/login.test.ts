/**
 * Property-based tests of the sign-in page (issue 2 item 9): random queries on GET /login, random forms,
 * content types and headers on POST /login. Never a 5xx; a failed sign-in starts no session and changes
 * nothing; wherever the form says to return to, the browser is only ever sent to a path on Latch.
 */
import { percentEncodingProblem } from '../../src/http/percent-encoding.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { anyText, asRequestTarget, assertNoServerError, bodies, checkProperty, contentTypes, encodePairs, extraHeaders, FUZZ_RUNS, parameterList, rawFormText, sendRaw } from '../helpers/fuzz.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const LOGIN_FIELDS = ['email', 'password', '_csrf', 'return_to'] as const;

/** RFC 9700 §4.11: a return target must be a path on this origin (one leading slash, no scheme, no controls). */
function isLocalPath(location: string): boolean {
  return location.startsWith('/') && !location.startsWith('//') && !location.startsWith('/\\') && !/[\u0000-\u001f\u007f]/.test(location);
}

describe('fuzzing /login', () => {
  let server: TestServer;
  let user: { email: string; password: string };
  let csrf: string;
  let cookie: string;

  before(async () => {
    // Throttling would turn every answer into 429 after a few failures; its limits are tested elsewhere.
    server = await startTestServer({ env: { LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1000', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
    const browser = new TestBrowser();
    const page = await browser.request(`${server.baseUrl}/login`);
    csrf = inputValue(page.body, '_csrf');
    cookie = await browser.jar.getCookieString(server.baseUrl);
  });
  after(async () => server.stop());

  test('GET /login with any query: the sign-in page, with a return target on Latch only', async () => {
    await checkProperty(
      fc.asyncProperty(rawFormText(['return_to', 'login_hint', 'email'], fc.oneof(anyText, fc.constantFrom('//evil.example', '/\\evil', 'https://evil.example/', '/oauth2/authorize?x=1', '<script>alert(1)</script>'))), async (query) => {
        const response = await sendRaw(server.baseUrl, { method: 'GET', path: `/login?${asRequestTarget(query)}` });
        const context = `?${query.slice(0, 200)}`;
        assertNoServerError(response, context);
        if (response.status === 431) return;
        if (percentEncodingProblem(asRequestTarget(query)) !== null) {
          // A broken escape is refused rather than read as literal text (http/percent-encoding.ts).
          assert.equal(response.status, 400, context);
          assert.match(response.text, /malformed percent-encoding/, context);
          return;
        }
        if (asRequestTarget(query).includes('%00')) {
          // So is a NUL, which no parameter may hold (http/percent-encoding.ts nulCharacter).
          assert.equal(response.status, 400, context);
          assert.match(response.text, /NUL character/, context);
          return;
        }
        assert.equal(response.status, 200, context);
        assert.equal(response.headers['x-frame-options'], 'DENY', context);
        assert.ok(isLocalPath(inputValue(response.text, 'return_to')), `${context}: return_to ${inputValue(response.text, 'return_to')}`);
        assert.ok(!response.text.includes('<script>alert(1)'), `${context}: reflected values are escaped`);
      }),
    );
  });

  test('POST /login with random forms, content types and headers: refused, no session, nothing changed', async () => {
    const values = fc.oneof(
      { weight: 3, arbitrary: anyText },
      { weight: 2, arbitrary: fc.constantFrom(user.email, user.email.toUpperCase(), ` ${user.email} `, csrf, '/', '//evil.example', `${user.password} `, user.password.toUpperCase()) },
    );
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(
        fc.oneof({ weight: 3, arbitrary: parameterList(LOGIN_FIELDS, values).map((pairs) => Buffer.from(encodePairs(pairs))) }, { weight: 1, arbitrary: bodies(LOGIN_FIELDS, values) }),
        fc.option(contentTypes, { nil: undefined }),
        fc.boolean(),
        extraHeaders,
        async (body, contentType, withCookie, headers) => {
          const allHeaders: Array<[string, string]> = headers.filter(([name]) => name !== 'cookie');
          if (withCookie) allHeaders.push(['cookie', cookie]);
          allHeaders.push(['content-type', contentType ?? 'application/x-www-form-urlencoded']);
          const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/login', headers: allHeaders, body });
          const context = `body ${JSON.stringify(body.toString('latin1').slice(0, 200))} as ${contentType} ${withCookie ? 'with' : 'without'} cookies`;
          assertNoServerError(response, context);
          assert.ok(response.status >= 400 && response.status < 500, `${context}: refused, got ${response.status}`);
          const setCookies = (response.headers['set-cookie'] ?? []) as string[];
          assert.ok(!setCookies.some((c) => c.startsWith('latch_session=')), `${context}: no session cookie`);
          assert.deepEqual(await snapshotState(server), before, `${context}: nothing changed`);
        },
      ),
    );
  });

  test('a successful sign-in with any return_to sends the browser only to a path on Latch', async () => {
    await checkProperty(
      fc.asyncProperty(fc.oneof(anyText, fc.constantFrom('//evil.example', '/\\evil.example', '/%2F%2Fevil', 'https://evil.example', '/ok\r\nLocation: https://evil', '\t/x', '/./..//evil', '/日本', '/é x', '/\ud800#"+/=%/')), async (returnTo) => {
        const body = encodePairs([['_csrf', csrf], ['email', user.email], ['password', user.password], ['return_to', returnTo]]);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/login', headers: [['cookie', cookie], ['content-type', 'application/x-www-form-urlencoded']], body });
        const context = `return_to ${JSON.stringify(returnTo.slice(0, 200))}`;
        assertNoServerError(response, context);
        if (response.status === 413) return; // a return_to too long for the body limit
        if (returnTo.includes('\u0000')) {
          // A NUL is refused in any form field (http/percent-encoding.ts nulCharacter): no sign-in, no redirect at all.
          assert.equal(response.status, 400, context);
          assert.match(response.text, /NUL character/, context);
          assert.equal(response.headers.location, undefined, context);
          return;
        }
        assert.equal(response.status, 303, `${context}: ${response.text.slice(0, 200)}`);
        assert.ok(isLocalPath(String(response.headers.location)), `${context}: Location ${response.headers.location}`);
      }),
      // each run is a real argon2id verification
      { numRuns: Math.min(FUZZ_RUNS, 40) },
    );
  });
});
