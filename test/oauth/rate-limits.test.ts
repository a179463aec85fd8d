/**
 * Limits on every door (issue 16 item 6; docs/protocol-decisions.md "Rate limits"): the token endpoint per
 * authenticated client and, separately, its failed client authentications per client id and address; the
 * authorization endpoint and the pages per address; open registration per address. Each answers 429 with
 * Retry-After in its surface's shape, counts in latch_throttled_requests_total, and is shared through Redis when
 * configured. The defaults never limit a burst like the benchmark's. Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { basicAuthorization, postToken, readResponse, type RawResponse } from '../helpers/code-fixtures.js';
import { REDIS_TEST_URL, redisUnavailableReason } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Long windows, and no test starting within seconds of a window's end: a count must not reset mid-test. */
const WINDOW_SECONDS = 3600;

async function awayFromWindowEdge(): Promise<void> {
  const left = WINDOW_SECONDS * 1000 - (Date.now() % (WINDOW_SECONDS * 1000));
  if (left < 30_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** A token request whose client authenticates and whose grant fails (invalid_grant): it counts, and costs nothing. */
function tokenRequest(server: TestServer, client: { clientId: string; clientSecret: string }, options: { secret?: string; from?: string } = {}) {
  return postToken(server.baseUrl, {
    headers: { authorization: basicAuthorization(client.clientId, options.secret ?? client.clientSecret), ...(options.from && { 'x-forwarded-for': options.from }) },
    form: { grant_type: 'authorization_code', code: 'no-such-code' },
  });
}

function assertJsonTooMany(response: RawResponse, pattern: RegExp): void {
  assert.equal(response.status, 429, response.text);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${response.headers.get('retry-after')}`);
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.body.error, 'temporarily_unavailable');
  assert.match(response.body.error_description, pattern);
  assert.ok(response.body.request_id);
}

async function assertPageTooMany(response: Response): Promise<void> {
  assert.equal(response.status, 429);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS);
  assert.match(response.headers.get('content-type') ?? '', /text\/html/);
  assert.equal(response.headers.get('location'), null, 'never redirected');
  assert.ok(response.headers.get('content-security-policy'), 'the documents\' headers');
  assert.match(await response.text(), /Too many requests came from your network just now\. Wait \d+ seconds?, then try again\./);
}

async function throttledCount(server: TestServer, route: string): Promise<number> {
  const text = await (await fetch(server.metricsUrl!)).text();
  const line = text.split('\n').find((l) => l.startsWith('latch_throttled_requests_total{') && l.includes(`route="${route}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`rate limits (${database})`, () => {
    let server: TestServer;
    before(async () => {
      await awayFromWindowEdge();
      server = await startTestServer({
        database,
        env: {
          // Addresses from X-Forwarded-For, so that one test process can be several addresses.
          LATCH_TRUST_PROXY: '1',
          LATCH_METRICS_PORT: '0',
          LATCH_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
          LATCH_RATE_LIMIT_TOKEN: '4',
          LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES: '3',
          LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES_PER_ADDRESS: '10',
          LATCH_RATE_LIMIT_AUTHORIZE: '3',
          LATCH_RATE_LIMIT_PAGES: '3',
          LATCH_RATE_LIMIT_REGISTRATION: '2',
          LATCH_RATE_LIMIT_REGISTRATION_REQUESTS: '8',
          LATCH_REGISTRATION: 'open',
        },
      });
    });
    after(async () => server.stop());

    test('the token endpoint: per authenticated client; then 429 temporarily_unavailable with Retry-After, counted in the metrics; another client is not affected', async () => {
      const busy = await server.createClient({ name: 'Busy' });
      const other = await server.createClient({ name: 'Other' });
      for (let i = 0; i < 4; i++) {
        const response = await tokenRequest(server, busy, { from: `198.51.100.${i}` });
        assert.equal(response.body.error, 'invalid_grant', `request ${i + 1}: within the limit, from any address`);
      }
      const refused = await tokenRequest(server, busy, { from: '198.51.100.9' });
      assertJsonTooMany(refused, /Too many requests from this client: at most 4 in 3600 seconds/);
      // Revocation and introspection share the client's allowance (the same client authentication).
      const revoke = readResponse(
        await fetch(`${server.baseUrl}/oauth2/revoke`, {
          method: 'POST',
          headers: { authorization: basicAuthorization(busy.clientId, busy.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
          body: 'token=anything',
        }),
      );
      assertJsonTooMany(await revoke, /Too many requests from this client/);
      assert.equal((await tokenRequest(server, other)).body.error, 'invalid_grant');
      assert.equal(await throttledCount(server, '/oauth2/token'), 1);
      assert.equal(await throttledCount(server, '/oauth2/revoke'), 1);
    });

    test('failed client authentications: per client id and address, then 429 even with the right secret; nobody can spend another client\'s allowance', async () => {
      const victim = await server.createClient({ name: 'Victim' });
      const attacker = '203.0.113.7';
      for (let i = 0; i < 3; i++) {
        const response = await tokenRequest(server, victim, { secret: 'wrong-secret', from: attacker });
        assert.equal(response.status, 401);
        assert.match(response.headers.get('www-authenticate') ?? '', /^Basic/);
      }
      assertJsonTooMany(await tokenRequest(server, victim, { secret: 'wrong-secret', from: attacker }), /Too many failed client authentications for this client from this address: at most 3/);
      assertJsonTooMany(await tokenRequest(server, victim, { from: attacker }), /failed client authentications/);
      // The client itself, from its own address, is untouched: failures counted neither against it nor its address.
      const own = await tokenRequest(server, victim, { from: '192.0.2.10' });
      assert.equal(own.body.error, 'invalid_grant');
      // Failures in the body (client_secret_post) count under the same key.
      const post = await postToken(server.baseUrl, {
        headers: { 'x-forwarded-for': attacker },
        form: { grant_type: 'authorization_code', code: 'x', client_id: victim.clientId, client_secret: 'wrong' },
      });
      assertJsonTooMany(post, /failed client authentications/);
      // And in a multipart/form-data body (read before the route, once).
      const multipart = new FormData();
      for (const [name, value] of Object.entries({ grant_type: 'authorization_code', code: 'x', client_id: victim.clientId, client_secret: victim.clientSecret })) multipart.append(name, value);
      assertJsonTooMany(await readResponse(await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'x-forwarded-for': attacker }, body: multipart })), /failed client authentications/);
      const fromElsewhere = new FormData();
      for (const [name, value] of Object.entries({ grant_type: 'authorization_code', code: 'x', client_id: victim.clientId, client_secret: victim.clientSecret })) fromElsewhere.append(name, value);
      const elsewhere = await readResponse(await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'x-forwarded-for': '192.0.2.11' }, body: fromElsewhere }));
      assert.equal(elsewhere.body.error, 'invalid_grant', 'the route still reads the multipart body after the check');
      // An unknown client id is limited as well.
      const unknown = { clientId: 'no-such-client', clientSecret: 'x' };
      for (let i = 0; i < 3; i++) assert.equal((await tokenRequest(server, unknown, { from: attacker })).status, 401);
      assert.equal((await tokenRequest(server, unknown, { from: attacker })).status, 429);
    });

    test('failed client authentications per address, whatever the client id: ever new client ids gain nothing', async () => {
      const sprayer = '203.0.113.99';
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await tokenRequest(server, { clientId: `made-up-${i}`, clientSecret: 'x' }, { from: sprayer })).status);
      assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
      const known = await server.createClient({ name: 'Known' });
      assertJsonTooMany(await tokenRequest(server, known, { from: sprayer }), /Too many failed client authentications from this address: at most 10 in 3600 seconds, whatever the client id/);
      assert.equal((await tokenRequest(server, known, { from: '192.0.2.12' })).body.error, 'invalid_grant', 'from another address');
    });

    test('the authorization endpoint: per address; a 429 error page with Retry-After, never a redirect', async () => {
      const client = await server.createClient({ name: 'Authorize' });
      const url = `${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent(client.redirectUris[0]!)}`;
      const from = { 'x-forwarded-for': '198.51.100.50' };
      for (let i = 0; i < 3; i++) assert.notEqual((await fetch(url, { headers: from, redirect: 'manual' })).status, 429);
      await assertPageTooMany(await fetch(url, { headers: from, redirect: 'manual' }));
      assert.notEqual((await fetch(url, { headers: { 'x-forwarded-for': '198.51.100.51' }, redirect: 'manual' })).status, 429, 'another address');
      assert.equal(await throttledCount(server, '/oauth2/authorize'), 1);
    });

    test('the pages: per address; a 429 page for a person', async () => {
      const from = { 'x-forwarded-for': '198.51.100.60' };
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${server.baseUrl}/login`, { headers: from })).status, 200);
      await assertPageTooMany(await fetch(`${server.baseUrl}/signup`, { headers: from }));
      const post = await fetch(`${server.baseUrl}/login`, { method: 'POST', headers: { ...from, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%40b.c&password=x' });
      await assertPageTooMany(post);
      assert.equal((await fetch(`${server.baseUrl}/login`, { headers: { 'x-forwarded-for': '198.51.100.61' } })).status, 200);
    });

    test('open registration: LATCH_RATE_LIMIT_REGISTRATION valid registrations per address and hour, then 429 in the JSON shape', async () => {
      const register = (from: string) =>
        fetch(`${server.baseUrl}/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
          body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
        });
      assert.equal((await register('198.51.100.70')).status, 201);
      assert.equal((await register('198.51.100.70')).status, 201);
      const refused = await readResponse(await register('198.51.100.70'));
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '3600');
      assert.equal(refused.body.error, 'temporarily_unavailable');
      assert.match(refused.body.error_description, /at most 2 an hour/);
      assert.ok(refused.body.request_id);
      assert.equal((await register('198.51.100.71')).status, 201, 'another address');
      assert.equal(await throttledCount(server, '/oauth2/register'), 1);
    });

    test('the registration API: every request per address (wrong tokens and bad metadata included), then 429 in the JSON shape', async () => {
      const from = { 'x-forwarded-for': '198.51.100.80' };
      const statuses = [];
      for (let i = 0; i < 8; i++) {
        const manage = await fetch(`${server.baseUrl}/oauth2/register/some-client`, { headers: { ...from, authorization: 'Bearer wrong' } });
        statuses.push(manage.status);
      }
      assert.deepEqual(statuses, Array(8).fill(401));
      const refused = await readResponse(await fetch(`${server.baseUrl}/oauth2/register`, { method: 'POST', headers: { ...from, 'content-type': 'application/json' }, body: '{}' }));
      assertJsonTooMany(refused, /Too many requests from this address: at most 8 in 3600 seconds/);
    });
  });
}

describe('rate limits with the defaults', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer()));
  after(async () => server.stop());

  test('a benchmark-like burst from one address (2,000 token requests, 32 at a time) is never limited', async () => {
    const client = await server.createClient();
    let next = 0;
    const statuses = new Set<number>();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next++ < 2000) statuses.add((await tokenRequest(server, client)).status);
      }),
    );
    assert.deepEqual([...statuses], [400]);
  });
});

describe('rate limits shared through Redis', async () => {
  const unavailable = await redisUnavailableReason();
  let one: TestServer;
  let two: TestServer;
  before(async () => {
    if (unavailable) return;
    await awayFromWindowEdge();
    const env = {
      LATCH_REDIS_URL: REDIS_TEST_URL,
      LATCH_REDIS_KEY_PREFIX: `latch-test-${randomBytes(6).toString('hex')}:`,
      LATCH_RATE_LIMIT_PAGES: '4',
      LATCH_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    };
    [one, two] = await Promise.all([startTestServer({ env }), startTestServer({ env })]);
  });
  after(async () => Promise.all([one?.stop(), two?.stop()]));

  test('two processes on one Redis allow the limit together', { skip: unavailable ?? false }, async () => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 600)); // past a sync (every 250 ms) of each
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${one.baseUrl}/login`)).status, 200);
    await settle();
    assert.equal((await fetch(`${two.baseUrl}/login`)).status, 200, 'the fourth, on the other process');
    await settle();
    assert.equal((await fetch(`${two.baseUrl}/login`)).status, 429, 'the other process knows of the first three');
  });
});
