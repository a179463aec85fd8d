/**
 * Failure records for client developers (issue 2 item 8): every failed authorization or token request of a
 * known client is recorded against it (time, endpoint, error code, exact reason, request id; never a secret
 * or a code), and a redirect_uri mismatch names the first differing part. The public page names no
 * registered URI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pageText } from '../helpers/browser.js';
import { basicAuthorization, exchangeIssuedCode, issueCode, postToken, type TestUser } from '../helpers/code-fixtures.js';
import { countRows } from '../helpers/database-snapshot.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import type { ClientEvent } from '../../src/storage/storage.js';

const REGISTERED = ['https://app.example.com/callback', 'https://app.example.com/cb?tenant=a'];

describe('client failure records', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: TestUser;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient({ name: 'Events App', redirectUris: REGISTERED });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  async function latestEvent(clientId = client.clientId): Promise<ClientEvent> {
    const [event] = await server.storage.clientEvents.listRecent(clientId, 1);
    assert.ok(event, 'an event was recorded');
    return event;
  }

  async function getAuthorize(params: Record<string, string>): Promise<Response> {
    return fetch(authorizeUrl(server.baseUrl, params), { redirect: 'manual' });
  }

  describe('redirect_uri mismatch at /authorize names the first differing part', () => {
    const cases: Array<[string, string, string]> = [
      ['scheme', 'http://app.example.com/callback', REGISTERED[0]!],
      ['host', 'https://api.example.com/callback', REGISTERED[0]!],
      ['port', 'https://app.example.com:8443/callback', REGISTERED[0]!],
      ['path', 'https://app.example.com/callbak', REGISTERED[0]!],
      ['trailing slash', 'https://app.example.com/callback/', REGISTERED[0]!],
      ['query', 'https://app.example.com/cb?tenant=b', REGISTERED[1]!],
    ];
    for (const [part, sent, closest] of cases) {
      test(`${part}: ${sent}`, async () => {
        const response = await getAuthorize({ response_type: 'code', client_id: client.clientId, redirect_uri: sent, state: 's' });
        assert.equal(response.status, 400);
        // The page names the URI that was sent (which may contain a registered one): take it out, then look.
        const page = pageText(await response.text()).replaceAll(sent, '');
        for (const uri of REGISTERED) assert.ok(!page.includes(uri), `the public page must not name ${uri}`);

        const event = await latestEvent();
        assert.equal(event.endpoint, 'authorize');
        assert.equal(event.error, 'invalid_request');
        assert.equal(event.requestId, response.headers.get('x-request-id'));
        assert.ok(event.description.includes(sent), 'the reason names the URI that was sent');
        assert.ok(Math.abs(event.createdAt.getTime() - Date.now()) < 60_000);
        assert.deepEqual(event.details, {
          redirectUriMismatch: { received: sent, registered: REGISTERED, closest, differingPart: part },
        });
      });
    }
  });

  test('an authorization error sent to the redirect_uri is recorded too', async () => {
    const response = await getAuthorize({ response_type: 'code', client_id: client.clientId, redirect_uri: REGISTERED[0]!, scope: 'admin', state: 's' });
    assert.equal(response.status, 302);
    const event = await latestEvent();
    assert.equal(event.endpoint, 'authorize');
    assert.equal(event.error, 'invalid_scope');
    assert.match(event.description, /admin/);
    assert.equal(event.requestId, response.headers.get('x-request-id'));
  });

  test('a request naming an unknown client records nothing (there is no client to record it against)', async () => {
    const before = await countRows(server, 'client_events');
    await getAuthorize({ response_type: 'code', client_id: 'unknown-client', redirect_uri: REGISTERED[0]! });
    await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'x', client_id: 'unknown-client', client_secret: 'y' } });
    assert.equal(await countRows(server, 'client_events'), before);
  });

  test('a wrong client secret at /token is recorded, without the secret', async () => {
    const wrongSecret = 'latch_cs_this-is-the-wrong-secret';
    const response = await postToken(server.baseUrl, {
      headers: { authorization: basicAuthorization(client.clientId, wrongSecret) },
      form: { grant_type: 'authorization_code', code: 'latch_ac_some-code' },
    });
    assert.equal(response.status, 401);
    const event = await latestEvent();
    assert.equal(event.endpoint, 'token');
    assert.equal(event.error, 'invalid_client');
    assert.equal(event.requestId, response.body.request_id);
    assert.ok(!JSON.stringify(event).includes(wrongSecret));
    assert.ok(!JSON.stringify(event).includes('latch_ac_some-code'));
  });

  test('an invalid_grant at /token is recorded with the reason, without the code or the verifier', async () => {
    const issued = await issueCode(server, client, user);
    const response = await exchangeIssuedCode(server, client, { ...issued, verifier: 'W'.repeat(43) });
    assert.equal(response.status, 400);
    const event = await latestEvent();
    assert.equal(event.endpoint, 'token');
    assert.equal(event.error, 'invalid_grant');
    assert.match(event.description, /code_verifier does not match/);
    assert.equal(event.requestId, response.body.request_id);
    const recorded = JSON.stringify(event);
    assert.ok(!recorded.includes(issued.code), 'the code is not recorded');
    assert.ok(!recorded.includes(issued.verifier!), 'the verifier is not recorded');
    assert.ok(!recorded.includes(client.clientSecret), 'the secret is not recorded');
  });

  test('a redirect_uri mismatch at /token is recorded', async () => {
    const issued = await issueCode(server, client, user);
    const response = await exchangeIssuedCode(server, client, { ...issued, redirectUri: REGISTERED[1]! });
    assert.equal(response.status, 400);
    const event = await latestEvent();
    assert.equal(event.error, 'invalid_grant');
    assert.match(event.description, /redirect_uri/);
  });

  test('a malformed token request of an authenticated client is recorded', async () => {
    const body = new URLSearchParams({ grant_type: 'authorization_code', code: 'a', client_id: client.clientId, client_secret: client.clientSecret });
    body.append('code', 'b');
    const response = await postToken(server.baseUrl, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    assert.equal(response.status, 400);
    const event = await latestEvent();
    assert.equal(event.error, 'invalid_request');
    assert.match(event.description, /code was sent more than once/);
    assert.equal(event.requestId, response.body.request_id);
  });

  test('an unsupported grant_type of an authenticated client is recorded', async () => {
    const response = await postToken(server.baseUrl, { form: { grant_type: 'password', client_id: client.clientId, client_secret: client.clientSecret } });
    assert.equal(response.status, 400);
    assert.equal((await latestEvent()).error, 'unsupported_grant_type');
  });

  test('records belong to their client only', async () => {
    const other = await server.createClient({ name: 'Quiet App', redirectUris: REGISTERED });
    await getAuthorize({ response_type: 'code', client_id: client.clientId, redirect_uri: 'https://elsewhere.example.com/' });
    assert.deepEqual(await server.storage.clientEvents.listRecent(other.clientId, 10), []);
  });

  test('the public error page shows the request id that the record carries', async () => {
    const response = await getAuthorize({ response_type: 'code', client_id: client.clientId, redirect_uri: 'https://nope.example.com/' });
    const event = await latestEvent();
    assert.ok(pageText(await response.text()).includes(event.requestId));
  });
});
