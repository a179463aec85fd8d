/**
 * Property-based tests over every route (reliability issue item 4), on raw sockets: hostile methods, paths,
 * headers, Content-Type and Content-Length that do not match the body, truncated and chunked bodies, random
 * bytes, clients that reset half-way. Whatever arrives: never a 5xx, never a stack trace, and a 4xx says what
 * was wrong. The routes are read from Fastify's own route tree, so a new route is fuzzed without a list to update.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue } from '../helpers/browser.js';
import {
  assertDescribedClientError,
  checkProperty,
  concretePath,
  FUZZ_RUNS,
  listRoutes,
  rawRouteRequest,
  sendRawBytes,
  type AppRoute,
  type RawSocketResponse,
} from '../helpers/fuzz.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

function assertAnswerIsSound(response: RawSocketResponse, method: string, context: string): void {
  if (response.status === null) return; // the connection was reset or closed before an answer (CONNECT, resets)
  assert.ok(response.status < 500, `${context}: never a 5xx, got ${response.status}: ${response.text.slice(0, 300)}`);
  assert.doesNotMatch(response.text, /\n\s+at .*:\d+:\d+/, `${context}: no stack trace`);
  if (method !== 'HEAD') assertDescribedClientError(response, context);
}

describe('fuzzing every route over raw sockets', () => {
  let server: TestServer;
  let routes: AppRoute[];
  let session: { cookie: string; csrf: string };

  before(async () => {
    server = await startTestServer({
      env: { LATCH_REQUEST_TIMEOUT_SECONDS: '2', LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '1000', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '100000' },
    });
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const account = await browser.request(`${server.baseUrl}/account`);
    session = { cookie: await browser.jar.getCookieString(server.baseUrl), csrf: inputValue(account.body, '_csrf') };
    routes = listRoutes(server.app);
  });
  after(async () => server.stop());

  test('the routes read from Fastify are the app’s routes, all of them', () => {
    for (const route of routes) assert.ok(server.app.hasRoute({ method: route.method as 'GET', url: route.path }), `${route.method} ${route.path} is a route`);
    const listed = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const known of ['POST /oauth2/token', 'GET /oauth2/authorize', 'POST /oauth2/authorize/decision', 'POST /oauth2/userinfo', 'POST /login', 'POST /account/avatar', 'GET /avatars/:id', 'POST /developer/apps/:clientId/settings', 'POST /reset-password']) {
      assert.ok(listed.has(known), `${known} is listed: ${[...listed].join(', ')}`);
    }
    assert.ok(routes.length >= 40, `${routes.length} routes`);
  });

  test('each route with its own method and a body framed every way: never a 5xx', async () => {
    const framings: Array<{ name: string; head: string; body: string; options?: Parameters<typeof sendRawBytes>[2] }> = [
      { name: 'form', head: 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 21', body: 'a=1&a=2&_csrf[]=x&%zz' },
      { name: 'chunked', head: 'Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked', body: '5\r\nemail\r\n3\r\n=%0\r\n0\r\n\r\n' },
      { name: 'shorter than its length', head: 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500', body: 'email=x' },
      { name: 'multipart without boundary', head: 'Content-Type: multipart/form-data\r\nContent-Length: 5', body: 'hello' },
      { name: 'JSON', head: 'Content-Type: application/json\r\nContent-Length: 2', body: '{"' },
      { name: 'reset mid-body', head: 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100', body: 'email=', options: { abortAfterMs: 10 } },
    ];
    for (const route of routes) {
      for (const framing of framings) {
        const path = concretePath(route.path, 'x'.repeat(12));
        const head = `${route.method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nCookie: ${session.cookie}\r\n${framing.head}\r\n\r\n`;
        const response = await sendRawBytes(server.baseUrl, [head, framing.body], framing.options);
        assertAnswerIsSound(response, route.method, `${route.method} ${path} (${framing.name})`);
      }
    }
  });

  test('hostile requests to any route: never a 5xx, never a stack trace, every 4xx described', async () => {
    await checkProperty(
      fc.asyncProperty(rawRouteRequest(routes, session), async (request) => {
        const response = await sendRawBytes(server.baseUrl, request.chunks, request.options);
        assertAnswerIsSound(response, request.description.split(' ')[0]!, request.description);
      }),
      { numRuns: FUZZ_RUNS },
    );
    // The server is still there and still knows the session.
    const account = await sendRawBytes(server.baseUrl, [`GET /account HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nCookie: ${session.cookie}\r\n\r\n`]);
    assert.ok(account.status === 200 || account.status === 303, `GET /account afterwards: ${account.status}`);
  });
});
