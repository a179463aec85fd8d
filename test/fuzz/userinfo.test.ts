/**
 * Property-based tests of /oauth2/userinfo (issue 2 item 9): random Authorization headers (schemes, case, spacing,
 * the real token altered, Basic, garbage bytes), methods, query strings and bodies. The answer is 200 exactly when
 * the header carries the real token in one of the accepted forms (docs/protocol-decisions.md "Userinfo"),
 * otherwise a 4xx with a Bearer challenge; never a 5xx; nothing changes.
 */
import { percentEncodingProblem } from '../../src/http/percent-encoding.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { obtainAccessToken } from '../helpers/code-fixtures.js';
import { snapshotState } from '../helpers/database-snapshot.js';
import { anyText, asRequestTarget, assertJsonError, assertNoServerError, bodies, checkProperty, contentTypes, extraHeaders, headerValue, sendRaw } from '../helpers/fuzz.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('fuzzing /oauth2/userinfo', () => {
  let server: TestServer;
  let token: string;
  let userId: number;

  before(async () => {
    server = await startTestServer();
    const client = await server.createClient();
    const { user, password } = await server.createUser();
    userId = user.id;
    token = await obtainAccessToken(server, client, { email: user.email, password });
  });
  after(async () => server.stop());

  /** The accepted forms, stated independently of the implementation: "Bearer" in any case + spaces or tabs + token, or the bare token. */
  function carriesRealToken(header: string | undefined): boolean {
    if (header === undefined) return false;
    const value = header.trim();
    if (value === token) return true;
    const match = /^bearer[ \t]+(.+)$/i.exec(value);
    return match?.[1]?.trim() === token;
  }

  test('random Authorization headers, methods, queries and bodies', async () => {
    const authorization = fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: headerValue },
      {
        weight: 3,
        arbitrary: fc
          .tuple(
            fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR', 'Basic', 'Token', 'MAC', 'DPoP', 'Bearer:', '', 'Bearerx'),
            fc.constantFrom(' ', '  ', '\t', '', ' \t '),
            fc.oneof(
              fc.constant(token),
              fc.constant(token.toUpperCase()),
              fc.constant(token.slice(0, -1)),
              fc.constant(`${token}=`),
              fc.constant(`${token} ${token}`),
              fc.constant(Buffer.from(`${token}:`).toString('base64')),
              fc.string({ maxLength: 60 }),
            ),
            fc.constantFrom('', ' ', '\t'),
          )
          .map(([scheme, gap, value, tail]) => `${scheme}${gap}${value}${tail}`),
      },
    );
    const before = await snapshotState(server);
    await checkProperty(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST'),
        authorization,
        fc.option(fc.string({ maxLength: 80 }), { nil: undefined }),
        fc.option(fc.tuple(bodies(['access_token', 'token'], fc.oneof(fc.constant(token), anyText)), contentTypes), { nil: undefined }),
        extraHeaders,
        async (method, auth, query, body, headers) => {
          const allHeaders: Array<[string, string]> = headers.filter(([name]) => name !== 'authorization');
          if (auth !== undefined) allHeaders.push(['authorization', auth]);
          if (body && method === 'POST') allHeaders.push(['content-type', body[1]]);
          const path = query === undefined ? '/oauth2/userinfo' : `/oauth2/userinfo?${asRequestTarget(query)}`;
          const response = await sendRaw(server.baseUrl, { method, path, headers: allHeaders, body: method === 'POST' ? body?.[0] : undefined });
          const context = `${method} ${path.slice(0, 100)} authorization ${JSON.stringify(auth)} body ${body ? JSON.stringify(body[0].toString('latin1').slice(0, 100)) : '-'} ${body?.[1]}`;
          assertNoServerError(response, context);
          const sentBody = method === 'POST' && body !== undefined; // a declared content type, even with no bytes
          // A broken escape in the query is refused before anything else (http/percent-encoding.ts).
          // So is a NUL, which no parameter may hold (http/percent-encoding.ts nulCharacter).
          const malformedQuery = query !== undefined && (percentEncodingProblem(asRequestTarget(query)) !== null || asRequestTarget(query).includes('%00'));
          if (response.status === 200) {
            assert.ok(carriesRealToken(auth), `${context}: 200 only for the real token in an accepted form`);
            assert.equal(JSON.parse(response.text).sub, String(userId), context);
          } else {
            const error = assertJsonError(response, context);
            if (response.status === 401) {
              assert.equal(error.error, 'invalid_token', context);
              assert.match(String(response.headers['www-authenticate']), /^Bearer realm="latch"/, context);
            } else {
              // A body Latch cannot parse is refused before the token is looked at.
              assert.ok(sentBody || malformedQuery, `${context}: ${response.status} without a body or a malformed query`);
              assert.equal(error.error, 'invalid_request', context);
            }
            if (!sentBody && !malformedQuery) assert.ok(!carriesRealToken(auth), `${context}: the real token in an accepted form must be served`);
          }
          assert.deepEqual(await snapshotState(server), before, 'nothing changed');
        },
      ),
    );
  });
});
