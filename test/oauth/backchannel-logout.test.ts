/**
 * OIDC Back-Channel Logout 1.0 delivery over real HTTP (issue 14 item 5; docs/protocol-decisions.md
 * "Back-channel logout"), on SQLite and on PostgreSQL: a real Latch and a local app endpoint
 * (test/helpers/backchannel-receiver.ts). Latch runs with LATCH_OUTBOUND_ALLOW_PRIVATE=1 so that it may reach
 * the endpoint on 127.0.0.1, except where the refusal of private addresses is the point.
 *
 * - A person signs in to apps through the code flow and signs out at Latch: every app of that session with a
 *   backchannel_logout_uri receives a logout token (§2.5) that verifies against Latch's JWKS, with the
 *   id_token's sub and sid (§2.4), before the person's sign-out has answered; other apps are not called.
 *   "Sign out everywhere" on the account page tells each app once per ended session, with that session's sid.
 * - An app that fails (HTTP 500) is tried again with a fresh token (new jti) on the retry schedule until it
 *   accepts; each failed attempt is in the app's failure log, never the token itself.
 * - After the last attempt Latch gives up, and says so in the failure log the developer console shows.
 * - The queue survives a restart of Latch.
 * - Without LATCH_OUTBOUND_ALLOW_PRIVATE, an endpoint on a private address is never called, and the refusal
 *   is recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { Kysely } from 'kysely';
import { registerClient } from '../../src/clients/client-registration.js';
import type { ClientEvent } from '../../src/storage/storage.js';
import { BackchannelReceiver, expectValidLogoutRequest } from '../helpers/backchannel-receiver.js';
import { inputValue, pageText, TestBrowser } from '../helpers/browser.js';
import { ConformanceRp } from '../helpers/conformance-rp.js';
import { submitForm } from '../helpers/pages.js';
import { postgresUnavailableReason, runAdminSql } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const ALLOW_PRIVATE = { LATCH_OUTBOUND_ALLOW_PRIVATE: '1' };
const postgresUnavailable = await postgresUnavailableReason();

/** Rows still queued (the table has no repository read: nothing but the queue's own worker lists it). */
async function queuedDeliveries(server: TestServer): Promise<number> {
  const db = (server.storage as unknown as { db: Kysely<any> }).db;
  const row = await db.selectFrom('backchannel_logout_deliveries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A client owned by `ownerUserId` (so that its developer console page exists), with a back-channel URI when given. */
async function createApp(server: TestServer, name: string, backchannelLogoutUri: string | null, ownerUserId: number | null = null) {
  const redirectUris = ['http://127.0.0.1:9999/callback'];
  const { client, clientSecret } = await registerClient(server.storage, { name, redirectUris, ownerUserId }, { developmentMode: false });
  if (backchannelLogoutUri) await server.storage.clients.update(client.clientId, { backchannelLogoutUri }, new Date());
  return { clientId: client.clientId, clientSecret, redirectUris };
}

/** Latch's own "Sign out" (POST /logout with the home page's CSRF token); the response's arrival time. */
async function signOutAtLatch(server: TestServer, browser: TestBrowser): Promise<number> {
  const home = await browser.request(`${server.baseUrl}/`);
  const response = await browser.request(`${server.baseUrl}/logout`, { form: { _csrf: inputValue(home.body, '_csrf') } });
  assert.equal(response.status, 303, 'signed out');
  return Date.now();
}

async function failureLog(server: TestServer, clientId: string): Promise<ClientEvent[]> {
  return (await server.storage.clientEvents.listRecent(clientId, 20)).reverse();
}

const seconds = (start: number, s: number) => new Date(start + s * 1000);

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`back-channel logout on ${database}`, { skip: database === 'postgres' ? (postgresUnavailable ?? undefined) : undefined }, () => {
    let server: TestServer;
    let receiver: BackchannelReceiver;
    const keptSchemas: string[] = [];

    before(async () => {
      receiver = await BackchannelReceiver.start();
      server = await startTestServer({ database, env: ALLOW_PRIVATE });
    });
    after(async () => {
      await server?.stop();
      await receiver?.stop();
      for (const schema of keptSchemas) await runAdminSql(`drop schema if exists ${schema} cascade`);
    });

    /** A fresh person signed in through the code flow to each app, in one browser; the id_token claims per app. */
    async function signInToApps(
      apps: Array<{ clientId: string; clientSecret: string; redirectUris: string[]; idTokenAlg?: string }>,
      account?: { user: { email: string }; password: string },
    ) {
      const { user, password } = account ?? (await server.createUser());
      const browser = new TestBrowser();
      const claims = [];
      for (const app of apps) {
        const rp = new ConformanceRp(server, app, { email: user.email, password });
        (rp as { browser: TestBrowser }).browser = browser;
        claims.push((await rp.fullFlow()).claims);
      }
      return { user, password, browser, claims };
    }

    test('signing out at Latch: each app of the session with a back-channel URI gets a valid logout token, before the sign-out answers', async () => {
      receiver.received.length = 0;
      const appA = await createApp(server, 'App A', `${receiver.url}/a/backchannel_logout`);
      const appB = await createApp(server, 'App B', `${receiver.url}/b/backchannel_logout`);
      const quiet = await createApp(server, 'No back channel', null);
      const { browser, claims } = await signInToApps([appA, appB, quiet]);
      assert.equal(claims[0]!.sid, claims[1]!.sid, 'one session, one sid');
      // Another person's session with App A is not concerned.
      await signInToApps([appA]);

      const answeredAt = await signOutAtLatch(server, browser);
      assert.equal(receiver.received.length, 2, 'both apps were told before the sign-out answered (they answer at once)');
      assert.ok(receiver.received.every((request) => request.receivedAt <= answeredAt));
      const byPath = new Map(receiver.received.map((request) => [request.path, request]));
      await expectValidLogoutRequest(server, byPath.get('/a/backchannel_logout')!, { clientId: appA.clientId, idToken: claims[0]! });
      await expectValidLogoutRequest(server, byPath.get('/b/backchannel_logout')!, { clientId: appB.clientId, idToken: claims[1]! });
      assert.equal(await queuedDeliveries(server), 0, 'nothing left in the queue');
      assert.deepEqual(await failureLog(server, appA.clientId), []);
    });

    test('"Sign out everywhere" on the account page: each app hears once per session, with that session\'s sid', async () => {
      receiver.received.length = 0;
      const appA = await createApp(server, 'Everywhere A', `${receiver.url}/everywhere/a`);
      const appB = await createApp(server, 'Everywhere B', `${receiver.url}/everywhere/b`);
      const first = await signInToApps([appA, appB]);
      const second = await signInToApps([appA], first);
      assert.notEqual(first.claims[0]!.sid, second.claims[0]!.sid, 'two browsers, two sessions, two sids');

      const out = await submitForm(first.browser, server.baseUrl, '/account', '/account/sessions/end-all', {});
      assert.equal(out.status, 303);
      const received = await receiver.waitFor(3);
      assert.equal(received.length, 3, 'A in both sessions, B in the first');
      const expectations = [
        { path: '/everywhere/a', clientId: appA.clientId, idToken: first.claims[0]! },
        { path: '/everywhere/b', clientId: appB.clientId, idToken: first.claims[1]! },
        { path: '/everywhere/a', clientId: appA.clientId, idToken: second.claims[0]! },
      ];
      for (const { path, clientId, idToken } of expectations) {
        const request = received.find((r) => r.path === path && decodeJwt(r.form.logout_token!).sid === idToken.sid);
        assert.ok(request, `a logout token at ${path} naming the sid ${String(idToken.sid)}`);
        await expectValidLogoutRequest(server, request, { clientId, idToken });
      }
    });

    test('an app on ES256 gets its logout token signed with ES256', async () => {
      receiver.received.length = 0;
      const app = await createApp(server, 'ES256 App', `${receiver.url}/es256`);
      await server.storage.clients.update(app.clientId, { idTokenSignedResponseAlg: 'ES256' }, new Date());
      const { browser, claims } = await signInToApps([{ ...app, idTokenAlg: 'ES256' }]);
      await signOutAtLatch(server, browser);
      const [request] = await receiver.waitFor(1);
      await expectValidLogoutRequest(server, request!, { clientId: app.clientId, alg: 'ES256', idToken: claims[0]! });
    });

    test('an app answering 500 is tried again with a fresh token until it accepts; each failure is in its failure log, never the token', async () => {
      receiver.received.length = 0;
      receiver.statuses.push(500, 503);
      const app = await createApp(server, 'Flaky App', `${receiver.url}/flaky`);
      const { browser, claims } = await signInToApps([app]);
      const start = await signOutAtLatch(server, browser);
      await receiver.waitFor(1);

      let log = await failureLog(server, app.clientId);
      assert.equal(log.length, 1);
      assert.equal(log[0]!.endpoint, 'backchannel_logout');
      assert.equal(log[0]!.error, 'backchannel_logout_failed');
      assert.match(log[0]!.description, new RegExp(`POSTed to ${receiver.url}/flaky .*answered HTTP 500.*Attempt 1 of 4; the next in 30 s`));
      assert.equal((log[0]!.details?.backchannelLogout as { status?: number }).status, 500);

      // Not before its time; then the second attempt (503), and the third (200) two minutes later.
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 10)), 0, 'the retry waits 30 s');
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 31)), 1);
      await receiver.waitFor(2);
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 100)), 0, 'the next retry waits 2 minutes');
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 31 + 121)), 1);
      await receiver.waitFor(3);

      log = await failureLog(server, app.clientId);
      assert.deepEqual(log.map((event) => event.error), ['backchannel_logout_failed', 'backchannel_logout_failed']);
      assert.match(log[1]!.description, /answered HTTP 503.*Attempt 2 of 4; the next in 2 min/);
      assert.equal(await queuedDeliveries(server), 0, 'delivered: out of the queue');
      const tokens = [];
      for (const request of receiver.received) tokens.push(await expectValidLogoutRequest(server, request, { clientId: app.clientId, idToken: claims[0]! }));
      assert.equal(new Set(tokens.map((token) => token.jti)).size, 3, 'a fresh jti per attempt');
      const recorded = JSON.stringify(await server.storage.clientEvents.listRecent(app.clientId, 20));
      for (const request of receiver.received) assert.ok(!recorded.includes(request.form.logout_token!), 'no logout token in the failure log');
    });

    test('after the fourth failed attempt Latch gives up, and the developer console says so', async () => {
      receiver.received.length = 0;
      receiver.statuses.push(500, 500, 500, 500);
      const { user: owner, password: ownerPassword } = await server.createUser();
      const app = await createApp(server, 'Broken App', `${receiver.url}/broken`, owner.id);
      const { browser } = await signInToApps([app]);
      const start = await signOutAtLatch(server, browser);
      await receiver.waitFor(1);
      for (const [at, count] of [[31, 2], [31 + 121, 3], [31 + 121 + 601, 4]] as const) {
        assert.equal(await server.backchannelLogout.deliverDue(seconds(start, at)), 1);
        await receiver.waitFor(count);
      }
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 86400)), 0, 'no fifth attempt');
      assert.equal(receiver.received.length, 4);
      assert.equal(await queuedDeliveries(server), 0, 'given up: out of the queue');

      const log = await failureLog(server, app.clientId);
      assert.deepEqual(log.map((event) => event.error), ['backchannel_logout_failed', 'backchannel_logout_failed', 'backchannel_logout_failed', 'backchannel_logout_abandoned']);
      assert.match(log[3]!.description, /answered HTTP 500.*That was the last of 4 attempts\. The app was not told of this logout\./);

      // The developer sees it on the app's page of the developer console.
      const developer = new TestBrowser();
      const loginPage = await developer.request(`${server.baseUrl}/login`);
      await developer.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(loginPage.body, '_csrf'), return_to: '/', email: owner.email, password: ownerPassword } });
      const page = await developer.request(`${server.baseUrl}/developer/apps/${app.clientId}`);
      assert.equal(page.status, 200);
      const text = pageText(page.body);
      assert.match(text, /backchannel_logout_abandoned at backchannel_logout/);
      assert.match(text, /That was the last of 4 attempts/);
    });

    test('a delivery waiting for its retry survives a restart of Latch', async () => {
      receiver.received.length = 0;
      receiver.statuses.push(500);
      const app = await createApp(server, 'Restart App', `${receiver.url}/restart`);
      const { browser, claims } = await signInToApps([app]);
      const start = await signOutAtLatch(server, browser);
      await receiver.waitFor(1);
      assert.equal(await queuedDeliveries(server), 1);

      const schema = server.config.databaseSchema;
      await server.stop({ keepData: true });
      // A schema given to the test server is kept when it stops: dropped in after().
      if (schema) keptSchemas.push(schema);
      server = await startTestServer({ database, env: ALLOW_PRIVATE, dataDir: server.dataDir, ...(schema && { postgresSchema: schema }) });
      assert.equal(await server.backchannelLogout.deliverDue(seconds(start, 31)), 1, 'the restarted Latch picks the delivery up');
      const [, retried] = await receiver.waitFor(2);
      await expectValidLogoutRequest(server, retried!, { clientId: app.clientId, idToken: claims[0]! });
      assert.equal(await queuedDeliveries(server), 0);
    });

    describe('without LATCH_OUTBOUND_ALLOW_PRIVATE', () => {
      let guarded: TestServer;
      before(async () => {
        guarded = await startTestServer({ database });
      });
      after(async () => guarded?.stop());

      test('an app endpoint on a private address is never called; the refusal is recorded and not retried', async () => {
        receiver.received.length = 0;
        const app = await createApp(guarded, 'Private App', `${receiver.url}/private`);
        const { user, password } = await guarded.createUser();
        const rp = new ConformanceRp(guarded, app, { email: user.email, password });
        await rp.fullFlow();
        await signOutAtLatch(guarded, rp.browser);
        assert.equal(await guarded.backchannelLogout.deliverDue(new Date(Date.now() + 86400_000)), 0, 'nothing left to retry');
        assert.equal(receiver.received.length, 0, 'the endpoint on 127.0.0.1 was never called');
        assert.equal(await queuedDeliveries(guarded), 0);
        const log = await failureLog(guarded, app.clientId);
        assert.equal(log.length, 1);
        assert.equal(log[0]!.error, 'backchannel_logout_abandoned');
        assert.match(log[0]!.description, /refused to connect to 127\.0\.0\.1: a loopback address is not on the public internet.*Not retried/);
        assert.match(log[0]!.description, /LATCH_OUTBOUND_ALLOW_PRIVATE=1/);
      });
    });
  });
}
