/**
 * Several simultaneous exchanges of one code (docs/protocol-decisions.md "Authorization code": one atomic
 * conditional update, so two racing exchanges cannot both win, also across processes). Exactly one wins; the
 * others get invalid_grant, and because a replay of a used code revokes what it issued (RFC 6749 §4.1.2), the
 * winner's token is revoked as well.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuthorization, callUserinfo, issueCode, postToken, type RawResponse, type TestUser } from '../helpers/code-fixtures.js';
import { findRows } from '../helpers/database-snapshot.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const RACERS = 8;

function exchange(server: TestServer, client: { clientId: string; clientSecret: string }, code: string, verifier: string, style: number): Promise<RawResponse> {
  const form = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:9999/callback' };
  if (style % 3 === 0) return postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form });
  if (style % 3 === 1) return postToken(server.baseUrl, { form: { ...form, client_id: client.clientId, client_secret: client.clientSecret } });
  const multipart = new FormData();
  for (const [key, value] of Object.entries({ ...form, client_id: client.clientId, client_secret: client.clientSecret })) multipart.append(key, value);
  return postToken(server.baseUrl, { body: multipart });
}

function assertOneWinner(results: RawResponse[]): RawResponse {
  const winners = results.filter((r) => r.status === 200);
  assert.equal(winners.length, 1, `exactly one exchange wins: ${results.map((r) => r.status).join(' ')}`);
  for (const loser of results.filter((r) => r.status !== 200)) {
    assert.equal(loser.status, 400, loser.text);
    assert.equal(loser.body.error, 'invalid_grant');
  }
  return winners[0]!;
}

describe('racing exchanges of one code', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: TestUser;

  before(async () => {
    server = await startTestServer();
    client = await server.createClient();
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  for (let round = 1; round <= 3; round++) {
    test(`${RACERS} simultaneous exchanges, round ${round}: exactly one wins, and the replays revoke its token`, async () => {
      const issued = await issueCode(server, client, user);
      const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => exchange(server, client, issued.code, issued.verifier!, i + round)));
      const winner = assertOneWinner(results);
      const tokens = await findRows(server, 'access_tokens', { client_id: client.clientId, revoked_at: null });
      assert.equal(tokens.length, 0, 'no unrevoked token is left');
      const info = await callUserinfo(server.baseUrl, `Bearer ${winner.body.access_token}`);
      assert.equal(info.status, 401, 'the winner’s token was revoked by the losing replays');
    });
  }

  test('one code, two Latch instances on the same database: still exactly one winner', async () => {
    const second = await startTestServer(
      server.config.databaseSchema ? { postgresSchema: server.config.databaseSchema, database: 'postgres' } : { dataDir: server.dataDir },
    );
    try {
      const issued = await issueCode(server, client, user);
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => exchange(i % 2 === 0 ? server : second, client, issued.code, issued.verifier!, i)),
      );
      assertOneWinner(results);
    } finally {
      // The second instance shares the first one's data: stop it without removing anything.
      await second.stop({ keepData: true });
    }
  });
});
