/**
 * Property-based tests of POST /oauth2/token (issue 2 item 9): generated garbage — random and duplicated
 * parameters, huge values, odd content types, binary and broken multipart bodies, random headers — always
 * gets a 4xx JSON error in the RFC 6749 §5.2 shape, never a 5xx, and changes nothing in the database. And any
 * failing variation of a valid exchange leaves the code usable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { basicAuthorization, callUserinfo, exchangeIssuedCode, issueCode, type IssuedCode } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import {
  anyText,
  assertJsonError,
  assertNoServerError,
  bodies,
  contentTypes,
  encodePairs,
  extraHeaders,
  checkProperty,
  headerValue,
  sendRaw,
} from '../helpers/fuzz.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TOKEN_PARAMETERS = ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier'] as const;

describe('fuzzing POST /oauth2/token', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: { email: string; password: string };
  let usedCode: IssuedCode;

  before(async () => {
    server = await startTestServer({ env: { LATCH_AUTHORIZATION_CODE_TTL_SECONDS: '600' } });
    client = await server.createClient({ redirectUris: ['https://app.example.com/callback', 'https://app.example.com/other'] });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
    // A used code whose token is already revoked: replaying it is a failure that changes nothing any more.
    usedCode = await issueCode(server, client, user);
    assert.equal((await exchangeIssuedCode(server, client, usedCode)).status, 200);
    assert.equal((await exchangeIssuedCode(server, client, usedCode)).status, 400);
  });
  after(async () => server.stop());

  test('garbage requests: always a 4xx RFC-shaped JSON error, never a 5xx, nothing changed', async () => {
    const interesting = () =>
      fc.oneof(
        { weight: 3, arbitrary: anyText },
        { weight: 2, arbitrary: fc.constantFrom('authorization_code', client.clientId, client.clientSecret, usedCode.code, usedCode.verifier!, usedCode.redirectUri, 'refresh_token') },
      );
    const authorization = fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: headerValue },
      { weight: 1, arbitrary: fc.constantFrom(basicAuthorization(client.clientId, client.clientSecret), basicAuthorization(client.clientId, 'wrong'), 'Basic', 'Basic =', 'Bearer x') },
      { weight: 1, arbitrary: fc.tuple(anyText, anyText).map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`) },
    );
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(bodies(TOKEN_PARAMETERS, interesting()), fc.option(contentTypes, { nil: undefined }), authorization, extraHeaders, async (body, contentType, auth, headers) => {
        const allHeaders: Array<[string, string]> = headers.filter(([name]) => name !== 'authorization');
        if (contentType !== undefined) allHeaders.push(['content-type', contentType]);
        if (auth !== undefined) allHeaders.push(['authorization', auth]);
        const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/oauth2/token', headers: allHeaders, body });
        const context = `body ${JSON.stringify(body.toString('latin1').slice(0, 200))} type ${contentType} auth ${auth}`;
        assertNoServerError(response, context);
        const error = assertJsonError(response, context);
        if (error.error === 'invalid_client') assert.equal(response.status, 401, context);
        assert.deepEqual(await snapshotState(server), before, `${context}: nothing changed`);
      }),
    );
  });

  test('other methods and paths under /oauth2/token: never a 5xx', async () => {
    await checkProperty(
      fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), fc.string({ maxLength: 30 }), async (method, suffix) => {
        const response = await sendRaw(server.baseUrl, { method, path: `/oauth2/token${encodeURI(suffix).replace(/#/g, '%23')}` });
        assertNoServerError(response, `${method} ${suffix}`);
        assert.ok(response.status >= 400 || method === 'OPTIONS', `${method}: ${response.status}`);
      }),
    );
  });

  test('any failing variation of a valid exchange leaves the code usable and the database unchanged', async () => {
    const live = await issueCode(server, client, user);
    type Mutation =
      | 'wrong verifier'
      | 'no verifier'
      | 'other registered redirect_uri'
      | 'unregistered redirect_uri'
      | 'wrong secret'
      | 'unknown client'
      | 'both auth methods'
      | 'unsupported grant_type'
      | 'no grant_type'
      | 'altered code'
      | 'duplicated parameter'
      | 'json body';
    const mutations: Mutation[] = [
      'wrong verifier',
      'no verifier',
      'other registered redirect_uri',
      'unregistered redirect_uri',
      'wrong secret',
      'unknown client',
      'both auth methods',
      'unsupported grant_type',
      'no grant_type',
      'altered code',
      'duplicated parameter',
      'json body',
    ];
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(
        fc.subarray(mutations, { minLength: 1 }),
        fc.constantFrom('basic', 'post', 'multipart'),
        fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/),
        fc.constantFrom(...TOKEN_PARAMETERS),
        fc.array(fc.tuple(fc.stringMatching(/^x_[a-z]{1,8}$/), fc.string({ maxLength: 20 })), { maxLength: 3 }),
        async (applied, style, randomVerifier, duplicated, unknownParameters) => {
          const has = (m: Mutation) => applied.includes(m);
          const pairs: Array<[string, string]> = [];
          if (!has('no grant_type')) pairs.push(['grant_type', has('unsupported grant_type') ? 'password' : 'authorization_code']);
          pairs.push(['code', has('altered code') ? `${live.code.slice(0, -1)}${live.code.endsWith('A') ? 'B' : 'A'}` : live.code]);
          if (!has('no verifier')) pairs.push(['code_verifier', has('wrong verifier') && randomVerifier !== live.verifier ? randomVerifier : has('wrong verifier') ? `${randomVerifier}x` : live.verifier!]);
          const redirectUri = has('unregistered redirect_uri') ? 'https://evil.example.net/cb' : has('other registered redirect_uri') ? 'https://app.example.com/other' : live.redirectUri;
          pairs.push(['redirect_uri', redirectUri]);
          pairs.push(...unknownParameters);
          const clientId = has('unknown client') ? 'not-a-client' : client.clientId;
          const secret = has('wrong secret') ? 'latch_cs_wrong' : client.clientSecret;
          const headers: Array<[string, string]> = [];
          if (style === 'basic' || has('both auth methods')) headers.push(['authorization', basicAuthorization(clientId, secret)]);
          if (style !== 'basic' || has('both auth methods')) pairs.push(['client_id', clientId], ['client_secret', secret]);
          if (has('duplicated parameter')) {
            const original = pairs.find(([name]) => name === duplicated);
            pairs.push([duplicated, original?.[1] ?? 'x'], [duplicated, original?.[1] ?? 'y']);
          }
          let body: Buffer;
          if (has('json body')) {
            headers.push(['content-type', 'application/json']);
            body = Buffer.from(JSON.stringify(Object.fromEntries(pairs)));
          } else if (style === 'multipart') {
            headers.push(['content-type', 'multipart/form-data; boundary=b0undary']);
            body = Buffer.from(`${pairs.map(([n, v]) => `--b0undary\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('')}--b0undary--\r\n`);
          } else {
            headers.push(['content-type', 'application/x-www-form-urlencoded']);
            body = Buffer.from(encodePairs(pairs));
          }
          const response = await sendRaw(server.baseUrl, { method: 'POST', path: '/oauth2/token', headers, body });
          const context = `${applied.join(', ')} (${style})`;
          assertNoServerError(response, context);
          assertJsonError(response, context);
          assert.deepEqual(await snapshotState(server), before, `${context}: nothing changed`);
        },
      ),
    );
    // After all of that, the code still works, once.
    const exchanged = await exchangeIssuedCode(server, client, live);
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.equal((await callUserinfo(server.baseUrl, `Bearer ${exchanged.body.access_token}`)).status, 200);
  });
});
