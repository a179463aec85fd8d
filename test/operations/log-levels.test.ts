/**
 * The log tells operators what is theirs to fix (reliability issue item 5): a client's mistake, or a client
 * that went away, is one line at info or below without a stack trace; error level is for Latch's own faults.
 * A fixed battery of bad requests of every kind, then random ones over every route (test/helpers/fuzz.ts),
 * against a real server whose log lines are captured.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { inputValue } from '../helpers/browser.js';
import { checkProperty, FUZZ_RUNS, listRoutes, rawRouteRequest, sendRaw, sendRawBytes, type AppRoute } from '../helpers/fuzz.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** What a request of the battery got: its status (null when the client went away first) and request id. */
interface Outcome {
  name: string;
  status: number | null;
  requestId: string | undefined;
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function multipart(boundary: string, parts: Array<{ name: string; filename?: string; value: string | Buffer }>, closing = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename === undefined ? '' : 'Content-Type: image/png\r\n'}\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (closing) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

describe('log levels', () => {
  let server: TestServer;
  let port: string;
  let cookie: string;
  let csrf: string;
  let routes: AppRoute[];
  const outcomes: Outcome[] = [];

  before(async () => {
    server = await startTestServer({ captureLog: true, env: { LATCH_REQUEST_TIMEOUT_SECONDS: '1' } });
    port = new URL(server.baseUrl).port;
    const { user, password } = await server.createUser();
    const browser = await signedInBrowser(server, user.email, password);
    const account = await browser.request(`${server.baseUrl}/account`);
    csrf = inputValue(account.body, '_csrf');
    cookie = await browser.jar.getCookieString(server.baseUrl);
    routes = listRoutes(server.app);
  });
  after(async () => server.stop());

  /** A well-formed HTTP request through Node's client. */
  async function send(name: string, method: string, path: string, headers: Array<[string, string]> = [], body?: Buffer | string): Promise<void> {
    const response = await sendRaw(server.baseUrl, { method, path, headers, body });
    outcomes.push({ name, status: response.status, requestId: response.headers['x-request-id'] as string | undefined });
  }

  /** Bytes on a socket, as they are: for what Node's client refuses to send. */
  async function sendBytes(name: string, chunks: Array<Buffer | string>, options: Parameters<typeof sendRawBytes>[2] = {}): Promise<void> {
    const response = await sendRawBytes(server.baseUrl, chunks, options);
    outcomes.push({ name, status: response.status, requestId: response.headers['x-request-id'] });
  }

  const signedIn = (type: string): Array<[string, string]> => [['cookie', cookie], ['content-type', type]];

  test('a battery of bad requests of every kind: no error-level line, no stack trace, one line per 4xx', async () => {
    // Wrong paths, methods and URLs.
    await send('unknown page', 'GET', '/nothing');
    await send('unknown API path', 'GET', '/oauth2/nothing');
    await send('unknown method', 'PROPFIND', '/login');
    await send('broken percent-encoding in the path', 'GET', '/oauth2/%zz');
    await send('overlong UTF-8 in the path', 'GET', '/account/%c0%af');
    await send('wrong method on the token endpoint', 'GET', '/oauth2/token');
    // Bodies the parsers refuse, on a route and on no route.
    await send('JSON to no route', 'POST', '/nothing', [['content-type', 'application/json']], '{"a":');
    await send('unknown type to no route', 'POST', '/nothing', [['content-type', 'text/x-weird']], 'x');
    await send('JSON to a page', 'POST', '/login', [['content-type', 'application/json']], '{"email":');
    await send('empty JSON to a page', 'POST', '/login', [['content-type', 'application/json']], '');
    await send('XML to a page', 'POST', '/login', [['content-type', 'application/xml']], '<a/>');
    await send('a form too large for a page', 'POST', '/login', [['content-type', 'application/x-www-form-urlencoded']], `email=${'x'.repeat(100_000)}`);
    await send('JSON to the token endpoint', 'POST', '/oauth2/token', [['content-type', 'application/json']], '{"grant_type":');
    await send('a form too large for the token endpoint', 'POST', '/oauth2/token', [['content-type', 'application/x-www-form-urlencoded']], `code=${'x'.repeat(100_000)}`);
    // CSRF failures.
    await send('sign-in without CSRF token', 'POST', '/login', [['content-type', 'application/x-www-form-urlencoded']], 'email=a&password=b');
    await send('account form without CSRF token', 'POST', '/account/profile', signedIn('application/x-www-form-urlencoded'), 'name=x');
    await send('account form with a wrong CSRF token', 'POST', '/account/profile', signedIn('application/x-www-form-urlencoded'), `_csrf=${csrf}x&name=x`);
    // Multipart, to the token endpoint and to the avatar upload of a signed-in user with a valid CSRF token.
    for (const [path, fields] of [
      ['/oauth2/token', [{ name: 'grant_type', value: 'authorization_code' }]],
      ['/account/avatar', [{ name: '_csrf', value: csrf }]],
    ] as const) {
      const headers = (type: string) => (path === '/account/avatar' ? signedIn(type) : [['content-type', type] as [string, string]]);
      await send(`${path}: multipart without a boundary`, 'POST', path, headers('multipart/form-data'), 'hello');
      await send(`${path}: multipart with an empty boundary`, 'POST', path, headers('multipart/form-data; boundary='), 'hello');
      await send(`${path}: multipart with a boundary too long`, 'POST', path, headers(`multipart/form-data; boundary=${'b'.repeat(300)}`), 'hello');
      await send(`${path}: multipart garbage`, 'POST', path, headers('multipart/form-data; boundary=xyz'), 'garbage, not a part');
      await send(`${path}: multipart cut short`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields, { name: 'avatar', filename: 'a.png', value: PNG }]).subarray(0, 150));
      await send(`${path}: multipart without closing boundary`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields], false));
      await send(`${path}: multipart with too many parts`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields, ...Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, value: 'x' }))]));
      await send(`${path}: multipart with two files`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields, { name: 'avatar', filename: 'a.png', value: PNG }, { name: 'avatar', filename: 'b.png', value: PNG }]));
      await send(`${path}: multipart with a __proto__ field`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields, { name: '__proto__', value: 'x' }]));
      await send(`${path}: multipart with a field too large`, 'POST', path, headers('multipart/form-data; boundary=xyz'), multipart('xyz', [...fields, { name: 'x', value: 'x'.repeat(20_000) }]));
    }
    await send('avatar upload that is not an image', 'POST', '/account/avatar', signedIn('multipart/form-data; boundary=xyz'), multipart('xyz', [{ name: '_csrf', value: csrf }, { name: 'avatar', filename: 'a.png', value: 'not an image' }]));
    // Protocol errors.
    await send('userinfo with a bad token', 'GET', '/oauth2/userinfo', [['authorization', 'Bearer nope']]);
    await send('authorize for an unknown client', 'GET', '/oauth2/authorize?client_id=nope&redirect_uri=https%3A%2F%2Fx.example%2F');
    await send('token with an unknown code', 'POST', '/oauth2/token', [['content-type', 'application/x-www-form-urlencoded']], 'grant_type=authorization_code&code=x&client_id=nope&client_secret=x');
    // What Node's HTTP parser refuses.
    await sendBytes('a request line that is not HTTP', ['GARBAGE\r\n\r\n']);
    await sendBytes('an HTTP/1.1 request without a Host header', ['GET /login HTTP/1.1\r\nConnection: close\r\n\r\n']);
    await sendBytes('headers too large', [`GET /login HTTP/1.1\r\nHost: x\r\nX-Padding: ${'x'.repeat(20_000)}\r\n\r\n`]);
    await sendBytes('a header line without a colon', ['GET /login HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n']);
    await sendBytes('a Content-Length that is not a number', ['POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']);
    await sendBytes('Content-Length and chunked together', ['POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n']);
    await sendBytes('a broken chunk size', ['POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n']);
    await sendBytes('a chunked body that stops', ['POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nema'], { endAfterWrite: false, waitMs: 3000 });
    await sendBytes('a body shorter than its Content-Length, then silence', [`POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncode=x`], { endAfterWrite: false, waitMs: 3000 });
    await sendBytes('a body shorter than its Content-Length, then the end', [`POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=x`]);
    // Clients that go away.
    await sendBytes('a client that resets mid-headers', ['POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: appl'], { abortAfterMs: 50 });
    await sendBytes('a client that resets mid-form', ['POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=x'], { abortAfterMs: 50 });
    await sendBytes('a client that resets mid-token-request', ['POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: 1000\r\n\r\n--xyz\r\nContent-Disposition: form-data; name="code"\r\n\r\nab'], { abortAfterMs: 50 });
    const upload = multipart('xyz', [{ name: '_csrf', value: csrf }, { name: 'avatar', filename: 'a.png', value: Buffer.concat([PNG, Buffer.alloc(200_000)]) }]);
    const uploadHead = `POST /account/avatar HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${cookie}\r\nContent-Type: multipart/form-data; boundary=xyz\r\nContent-Length: ${upload.length}\r\n\r\n`;
    await sendBytes('a client that resets mid-upload', [uploadHead, upload.subarray(0, 60_000)], { abortAfterMs: 50 });
    await sendBytes('a client that closes mid-upload', [uploadHead, upload.subarray(0, 60_000)]);

    await assertLogTellsOperators();
  });

  test('random bad requests over every route: no error-level line, no stack trace, one line per 4xx', async () => {
    await checkProperty(
      fc.asyncProperty(rawRouteRequest(routes, { cookie, csrf }), async (request) => {
        const response = await sendRawBytes(server.baseUrl, request.chunks, request.options);
        outcomes.push({ name: request.description, status: response.status, requestId: response.headers['x-request-id'] });
      }),
      { numRuns: Math.min(FUZZ_RUNS, 40) },
    );
    await assertLogTellsOperators();
  });

  async function assertLogTellsOperators(): Promise<void> {
    // Aborted requests end after their client has gone: give their log lines a moment.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = server.logLines();
    const problems: string[] = [];
    for (const line of lines) {
      const text = JSON.stringify(line);
      if (line.level >= 50) problems.push(`error-level line: ${text.slice(0, 600)}`);
      if (/\\n\s+at /.test(text)) problems.push(`stack trace: ${text.slice(0, 600)}`);
    }
    for (const outcome of outcomes) {
      if (outcome.status === null || outcome.status < 400 || outcome.status >= 500) continue;
      // Audit events (a failed sign-in) are records of what happened to an account, not about the request.
      const own = lines.filter((line) => line.reqId === outcome.requestId && line.event === undefined);
      if (!outcome.requestId || own.length !== 1) {
        problems.push(`${outcome.name}: ${outcome.status} with request id ${outcome.requestId} has ${own.length} log lines: ${JSON.stringify(own).slice(0, 800)}`);
      }
    }
    const serverErrors = outcomes.filter((outcome) => outcome.status !== null && outcome.status >= 500);
    for (const outcome of serverErrors) problems.push(`${outcome.name}: answered ${outcome.status}`);
    assert.deepEqual(problems, [], problems.join('\n'));
  }
});
