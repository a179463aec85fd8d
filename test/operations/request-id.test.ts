/**
 * Every error response carries a request id, and the same id is in the log line about it (issue 2 item 8).
 * Nothing secret is logged (docs/protocol-decisions.md "Secrets at rest").
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pageText, TestBrowser } from '../helpers/browser.js';
import { basicAuthorization, callUserinfo, exchangeIssuedCode, issueCode, postToken, readResponse } from '../helpers/code-fixtures.js';
import { sendRaw } from '../helpers/fuzz.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;

  before(async () => {
    server = await startTestServer({ captureLog: true });
    client = await server.createClient({ redirectUris: ['https://app.example.com/callback'] });
  });
  after(async () => server.stop());

  /** The log lines of one request, found by its id. */
  async function logLinesOf(requestId: string): Promise<Array<Record<string, any>>> {
    // pino writes synchronously to our stream; give the response's own log line a moment anyway.
    await new Promise((resolve) => setImmediate(resolve));
    return server.logLines().filter((line) => line.reqId === requestId);
  }

  async function assertLoggedFailure(requestId: string | null, error: string): Promise<void> {
    assert.match(requestId ?? '', UUID);
    const lines = await logLinesOf(requestId!);
    assert.ok(
      lines.some((line) => line.error === error && typeof line.reason === 'string'),
      `a log line with reqId ${requestId} names ${error}: ${JSON.stringify(lines)}`,
    );
  }

  test('token endpoint error: request_id in the body, X-Request-Id header, and the log line', async () => {
    const response = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'latch_ac_nope', client_id: client.clientId, client_secret: client.clientSecret } });
    assert.equal(response.status, 400);
    assert.equal(response.body.request_id, response.headers.get('x-request-id'));
    await assertLoggedFailure(response.body.request_id, 'invalid_grant');
  });

  test('invalid_client: the request id too', async () => {
    const response = await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, 'wrong') }, form: { grant_type: 'authorization_code', code: 'x' } });
    assert.equal(response.status, 401);
    await assertLoggedFailure(response.body.request_id, 'invalid_client');
  });

  test('a body the token endpoint cannot parse still gets a request id', async () => {
    const response = await postToken(server.baseUrl, { headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_request');
    await assertLoggedFailure(response.body.request_id, 'invalid_request');
  });

  test('userinfo error: request id in the body, the header and the log line', async () => {
    const response = await callUserinfo(server.baseUrl, 'Bearer nope');
    assert.equal(response.status, 401);
    assert.equal(response.body.request_id, response.headers.get('x-request-id'));
    await assertLoggedFailure(response.body.request_id, 'invalid_token');
  });

  test('authorize error page shows the request id, which is in the log line', async () => {
    const response = await fetch(authorizeUrl(server.baseUrl, { client_id: 'nope', redirect_uri: 'https://x.example/' }), { redirect: 'manual' });
    const requestId = response.headers.get('x-request-id');
    assert.ok(pageText(await response.text()).includes(requestId!));
    await assertLoggedFailure(requestId, 'invalid_request');
  });

  test('authorize error redirect carries the request id header, which is in the log line', async () => {
    const response = await fetch(
      authorizeUrl(server.baseUrl, { response_type: 'token', client_id: client.clientId, redirect_uri: 'https://app.example.com/callback' }),
      { redirect: 'manual' },
    );
    assert.equal(response.status, 302);
    await assertLoggedFailure(response.headers.get('x-request-id'), 'unsupported_response_type');
  });

  test('unknown endpoints answer 404 with a request id', async () => {
    const api = await readResponse(await fetch(`${server.baseUrl}/oauth2/nothing`));
    assert.equal(api.status, 404);
    assert.equal(api.body.request_id, api.headers.get('x-request-id'));
    const page = await fetch(`${server.baseUrl}/nothing`);
    assert.equal(page.status, 404);
    assert.ok(pageText(await page.text()).includes(page.headers.get('x-request-id')!));
  });

  test('a request Node itself rejects (headers too large, broken request line) still gets an RFC-shaped error with a request id', async () => {
    const tooLarge = await sendRaw(server.baseUrl, { method: 'GET', path: '/oauth2/userinfo', headers: [['x-padding', 'x'.repeat(20_000)]] });
    assert.equal(tooLarge.status, 431);
    const body = JSON.parse(tooLarge.text);
    assert.equal(body.error, 'invalid_request');
    assert.equal(body.request_id, tooLarge.headers['x-request-id']);
    await assertLoggedFailure(body.request_id, 'invalid_request');

    const broken = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1', () => socket.end('GET /oauth2/userinfo HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(broken, /^HTTP\/1\.1 400 /);
    assert.match(broken, /"error":"invalid_request"/);
    assert.match(broken, /X-Request-Id: [0-9a-f-]{36}/);
  });

  test('each request gets its own id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await callUserinfo(server.baseUrl)).body.request_id);
    assert.equal(ids.size, 5);
  });

  test('a request id sent by the caller is not trusted', async () => {
    const response = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { 'request-id': 'forged', 'x-request-id': 'forged' } });
    assert.match(response.headers.get('x-request-id') ?? '', UUID);
  });

  test('nothing secret is logged: no code, token, secret, password, cookie or state', async () => {
    const { user, password } = await server.createUser({ password: 'a very secret password 42' });
    const browser = new TestBrowser();
    const issued = await issueCode(server, client, { email: user.email, password }, { browser, state: 'secret-state-value' });
    const token = await exchangeIssuedCode(server, client, issued);
    assert.equal(token.status, 200);
    await callUserinfo(server.baseUrl, `Bearer ${token.body.access_token}`);
    await exchangeIssuedCode(server, client, issued); // a replay, logged as a failure
    await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, 'latch_cs_wrong-secret') }, form: { grant_type: 'authorization_code', code: issued.code } });
    const cookies = (await browser.jar.getCookies(server.baseUrl)).map((cookie) => cookie.value);
    const log = server.logLines().map((line) => JSON.stringify(line)).join('\n');
    for (const secret of [issued.code, issued.verifier!, token.body.access_token, client.clientSecret, 'latch_cs_wrong-secret', password, 'secret-state-value', ...cookies]) {
      assert.ok(!log.includes(secret), `the log must not contain ${secret.slice(0, 12)}…`);
    }
    assert.ok(log.includes('token failed'), 'the failures were logged');
  });
});
