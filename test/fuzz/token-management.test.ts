/**
 * Property-based tests of POST /oauth2/revoke (RFC 7009) and POST /oauth2/introspect (RFC 7662), which read bodies and
 * client authentication as the token endpoint does (test/fuzz/token.test.ts): garbage bodies, content types, Basic
 * headers (bad Base64, no colon, percent-encoded, empty parts, non-ASCII, spaces and tabs), both methods at once,
 * duplicated and oversized parameters, unknown hints. Every answer is 200 (revocation: empty; introspection: the
 * caller's own token or exactly {"active":false}) or a 4xx JSON error in the RFC 6749 §5.2 shape; never a 5xx. And
 * no failed or foreign request revokes anything: a live token stays active throughout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { basicAuthorization, obtainAccessToken } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { anyText, assertJsonError, assertNoServerError, bodies, checkProperty, contentTypes, encodePairs, extraHeaders, FUZZ_RUNS, headerValue, sendRaw } from '../helpers/fuzz.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;

describe('fuzzing POST /oauth2/revoke and POST /oauth2/introspect', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let other: Awaited<ReturnType<TestServer['createClient']>>;
  let token: string;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient();
    other = await server.createClient();
    const { user, password } = await server.createUser();
    token = await obtainAccessToken(server, client, { email: user.email, password });
  });
  after(async () => server.stop());

  async function introspect(): Promise<Record<string, unknown>> {
    const response = await sendRaw(server.baseUrl, {
      method: 'POST',
      path: '/oauth2/introspect',
      headers: [['content-type', 'application/x-www-form-urlencoded'], ['authorization', basicAuthorization(client.clientId, client.clientSecret)]],
      body: encodePairs([['token', token]]),
    });
    assert.equal(response.status, 200, response.text);
    return JSON.parse(response.text) as Record<string, unknown>;
  }

  test('garbage to either endpoint: 200 or an RFC-shaped 4xx, never a 5xx; the live token stays active and nothing changes', async () => {
    const values = fc.oneof(
      { weight: 3, arbitrary: anyText },
      { weight: 2, arbitrary: fc.constantFrom(token, `${token}x`, client.clientId, client.clientSecret, other.clientId, other.clientSecret, 'access_token', 'refresh_token', 'x'.repeat(5000)) },
    );
    // Basic headers as clients and attackers write them.
    const basicHeaders = fc.oneof(
      fc.constantFrom(
        'Basic',
        'Basic ',
        'Basic !!!!',
        'Basic ====',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from(':').toString('base64')}`,
        `Basic ${Buffer.from(`${client.clientId}:`).toString('base64')}`,
        `Basic ${Buffer.from('%zz:%').toString('base64')}`,
        `Basic ${Buffer.from('é€:ü').toString('base64')}`,
        'Bearer x',
      ),
      fc.tuple(anyText, anyText).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`),
      headerValue,
    );
    const authorization = fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: basicHeaders },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          basicAuthorization(other.clientId, other.clientSecret),
          basicAuthorization(client.clientId, 'latch_cs_wrong'),
          basicAuthorization(client.clientId, client.clientSecret).replace('Basic ', 'Basic \t  '),
        ),
      },
    );
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(fc.constantFrom('/oauth2/revoke', '/oauth2/introspect'), bodies(PARAMETERS, values), fc.option(contentTypes, { nil: undefined }), authorization, extraHeaders, async (path, body, contentType, auth, headers) => {
        const allHeaders: Array<[string, string]> = headers.filter(([name]) => name !== 'authorization');
        if (contentType !== undefined) allHeaders.push(['content-type', contentType]);
        if (auth !== undefined) allHeaders.push(['authorization', auth]);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path, headers: allHeaders, body });
        const context = `${path} body ${JSON.stringify(body.toString('latin1').slice(0, 200))} type ${contentType} auth ${auth?.slice(0, 100)}`;
        assertNoServerError(response, context);
        if (response.status === 200) {
          if (path === '/oauth2/revoke') assert.equal(response.text, '', context);
          else assert.equal(typeof (JSON.parse(response.text) as { active?: unknown }).active, 'boolean', context);
        } else {
          const error = assertJsonError(response, context);
          if (error.error === 'invalid_client') assert.equal(response.status, 401, context);
        }
        assert.equal((await introspect()).active, true, `${context}: the client's live token is still active`);
      }),
      { numRuns: Math.min(FUZZ_RUNS, 100) },
    );
    assert.deepEqual(await snapshotState(server), before, 'nothing changed');
  });

  test('the same revocation, failing one way or another (another client, both methods, a duplicate, a wrong secret), revokes nothing', async () => {
    type Mutation = 'other client' | 'both methods' | 'duplicated token' | 'duplicated hint' | 'wrong secret' | 'json body' | 'unknown hint';
    const mutations: Mutation[] = ['other client', 'both methods', 'duplicated token', 'duplicated hint', 'wrong secret', 'json body', 'unknown hint'];
    await checkProperty(
      fc.asyncProperty(fc.subarray(mutations, { minLength: 1 }), fc.constantFrom('basic', 'post'), async (applied, style) => {
        const has = (m: Mutation) => applied.includes(m);
        const owner = has('other client') ? other : client;
        const secret = has('wrong secret') ? 'latch_cs_wrong' : owner.clientSecret;
        const pairs: Array<[string, string]> = [['token', token]];
        if (has('duplicated token')) pairs.push(['token', token]);
        if (has('unknown hint') || has('duplicated hint')) pairs.push(['token_type_hint', has('unknown hint') ? 'id_token' : 'access_token']);
        if (has('duplicated hint')) pairs.push(['token_type_hint', 'refresh_token']);
        const headers: Array<[string, string]> = [];
        if (style === 'basic' || has('both methods')) headers.push(['authorization', basicAuthorization(owner.clientId, secret)]);
        if (style === 'post' || has('both methods')) pairs.push(['client_id', owner.clientId], ['client_secret', secret]);
        headers.push(['content-type', has('json body') ? 'application/json' : 'application/x-www-form-urlencoded']);
        const body = has('json body') ? JSON.stringify(Object.fromEntries(pairs)) : encodePairs(pairs);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/oauth2/revoke', headers, body });
        const context = `${applied.join(', ')} (${style})`;
        assertNoServerError(response, context);
        // Only another client's well-formed revocation (and an unknown hint) is answered 200, without effect (RFC 7009 §2.2).
        if (response.status !== 200) assertJsonError(response, context);
        const onlyHarmless = applied.every((m) => m === 'other client' || m === 'unknown hint');
        if (!onlyHarmless) assert.notEqual(response.status, 200, `${context}: refused`);
        if (applied.includes('other client')) assert.equal((await introspect()).active, true, `${context}: the token is still active`);
        else if (response.status !== 200) assert.equal((await introspect()).active, true, `${context}: the token is still active`);
        else {
          // A revocation that succeeded (unknown hint alone): the token is gone; nothing further to test with it.
          assert.equal((await introspect()).active, false, context);
          token = await obtainAccessToken(server, client, await freshUser());
        }
      }),
      { numRuns: Math.min(FUZZ_RUNS, 60) },
    );
  });

  async function freshUser() {
    const { user, password } = await server.createUser();
    return { email: user.email, password };
  }
});
