/**
 * The session-endings seam (src/session/session-endings.ts; docs/protocol-decisions.md "Logout"), over real HTTP
 * on SQLite and PostgreSQL with a recording listener given to buildApp as AppDeps.sessionEndings: every way a
 * person ends browser sessions tells the listener once, after the sessions are gone, with each session's sid
 * (the one its id_tokens carry) and the apps a code was issued to in it, and the reason; a sign-in again by the
 * same person ends nothing; a listener that fails does not undo the person's action.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { createUserAccount } from '../../src/accounts/user-accounts.js';
import { buildApp } from '../../src/app.js';
import { registerClient } from '../../src/clients/client-registration.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { SessionEndEvent, SessionEndings } from '../../src/session/session-endings.js';
import { openStorage, type OpenedStorage } from '../../src/storage/open-storage.js';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { authorize, exchangeCode, pkcePair, type FlowClient } from '../helpers/oauth-flow.js';
import { linkFromOutbox } from '../helpers/pages.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason } from '../helpers/postgres.js';
import type { TestServer } from '../helpers/test-server.js';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Records every event; `failNext` makes the next call throw after recording it. */
class RecordingListener implements SessionEndings {
  events: SessionEndEvent[] = [];
  failNext = false;
  ended(event: SessionEndEvent): void {
    this.events.push(event);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('listener failed');
    }
  }
}

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`every ending of a browser session tells the SessionEndings listener, on ${database}`, { skip }, () => {
    const listener = new RecordingListener();
    let dataDir: string;
    let dropSchema: (() => Promise<void>) | undefined;
    let storage: OpenedStorage;
    let app: FastifyInstance;
    let config: Config;
    let baseUrl: string;
    let apps: FlowClient[];
    let counter = 0;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'latch-session-endings-'));
      const port = await freePort();
      const databaseEnv: Record<string, string> =
        database === 'sqlite' ? { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}` } : await (async () => {
          const schema = await createTestSchema();
          dropSchema = schema.drop;
          return { LATCH_DATABASE_URL: POSTGRES_TEST_URL, LATCH_DATABASE_SCHEMA: schema.name, LATCH_SECRET: 'test-secret-shared-by-every-latch-process-0123456789' };
        })();
      baseUrl = `http://127.0.0.1:${port}`;
      config = loadConfig({ ...databaseEnv, PORT: String(port), HOST: '127.0.0.1', LATCH_ISSUER: baseUrl, LATCH_LOG_LEVEL: 'silent' });
      storage = await openStorage(config.databaseUrl, { postgresSchema: config.databaseSchema ?? null });
      app = await buildApp({ config, storage, sessionEndings: listener });
      await app.listen({ port, host: '127.0.0.1' });
      apps = [];
      for (const name of ['App A', 'App B']) {
        const { client, clientSecret } = await registerClient(storage, { name, redirectUris: ['http://127.0.0.1:9999/callback'] }, { developmentMode: false });
        apps.push({ clientId: client.clientId, clientSecret, redirectUris: client.redirectUris });
      }
    });
    beforeEach(() => {
      listener.events = [];
    });
    after(async () => {
      await app?.close();
      await storage?.close();
      await dropSchema?.();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function newPerson() {
      counter += 1;
      const password = `correct horse battery ${counter}`;
      const user = await createUserAccount(storage, { email: `ending${counter}-${Date.now()}@example.com`, name: 'Ending', avatarUrl: null, password, emailVerified: true });
      return { id: user.id, email: user.email, password };
    }

    /** Signs in through a code flow with each app in `clients`; returns the browser and the session's sid. */
    async function signInTo(person: { email: string; password: string }, clients: FlowClient[], browser = new TestBrowser()): Promise<{ browser: TestBrowser; sid: string; idToken: string }> {
      let sid = '';
      let idToken = '';
      for (const client of clients) {
        const { verifier, challenge } = pkcePair();
        const redirect = await authorize(browser, baseUrl, {
          response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256',
        }, person);
        const token = await exchangeCode(baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '', code_verifier: verifier });
        idToken = token.body.id_token;
        sid = decodeJwt(idToken).sid as string;
      }
      return { browser, sid, idToken };
    }

    const sorted = (event: SessionEndEvent) => ({
      ...event,
      sessions: event.sessions.map((s) => ({ sid: s.sid, clientIds: [...s.clientIds].sort() })).sort((a, b) => a.sid.localeCompare(b.sid)),
    });
    const expected = (userId: number, reason: string, sessions: { sid: string; clientIds: string[] }[]) =>
      sorted({ userId, reason: reason as SessionEndEvent['reason'], sessions });
    const bothApps = () => apps.map((a) => a.clientId);

    async function postWithPageToken(browser: TestBrowser, pagePath: string, action: string, form: Record<string, string> = {}) {
      const page = await browser.request(`${baseUrl}${pagePath}`);
      return browser.request(`${baseUrl}${action}`, { form: { _csrf: inputValue(page.body, '_csrf'), ...form } });
    }

    test("Latch's own Sign out: one event, reason signed_out, the session's sid and both apps", async () => {
      const person = await newPerson();
      const { browser, sid } = await signInTo(person, apps);
      assert.equal((await postWithPageToken(browser, '/', '/logout')).status, 303);
      assert.deepEqual(listener.events.map(sorted), [expected(person.id, 'signed_out', [{ sid, clientIds: bothApps() }])]);
    });

    test('the logout endpoint: reason rp_initiated_logout, only the app the session signed in to', async () => {
      const person = await newPerson();
      const { browser, sid, idToken } = await signInTo(person, [apps[0]!]);
      const response = await browser.request(`${baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: idToken })}`);
      assert.equal(response.status, 200);
      assert.deepEqual(listener.events.map(sorted), [expected(person.id, 'rp_initiated_logout', [{ sid, clientIds: [apps[0]!.clientId] }])]);
    });

    test("the account page's Sign out of another session, and Sign out everywhere (every session, this one included)", async () => {
      const person = await newPerson();
      const laptop = await signInTo(person, apps);
      const phone = await signInTo(person, [apps[1]!]);
      // A session that signed in to no app.
      const tablet = new TestBrowser();
      const loginPage = await tablet.request(`${baseUrl}/login`);
      await tablet.request(`${baseUrl}/login`, { form: { _csrf: inputValue(loginPage.body, '_csrf'), return_to: '/', email: person.email, password: person.password } });
      const tabletSid = (await storage.browserSessions.listByUser(person.id, new Date())).find((s) => s.sid !== laptop.sid && s.sid !== phone.sid)!;
      const phoneHash = (await storage.browserSessions.listByUser(person.id, new Date())).find((s) => s.sid === phone.sid)!.sessionHash;
      assert.equal((await postWithPageToken(laptop.browser, '/account', '/account/sessions/end', { session: phoneHash })).status, 303);
      assert.deepEqual(listener.events.map(sorted), [expected(person.id, 'session_ended_from_account', [{ sid: phone.sid, clientIds: [apps[1]!.clientId] }])]);

      listener.events = [];
      assert.equal((await postWithPageToken(laptop.browser, '/account', '/account/sessions/end-all')).status, 303);
      assert.deepEqual(listener.events.map(sorted), [
        expected(person.id, 'signed_out_everywhere', [
          { sid: laptop.sid, clientIds: bothApps() },
          { sid: tabletSid.sid, clientIds: [] },
        ]),
      ]);
      assert.equal((await tablet.request(`${baseUrl}/account`)).status, 303);
    });

    test('a password change ends the other sessions (password_changed), a password reset all of them (password_reset)', async () => {
      const person = await newPerson();
      const here = await signInTo(person, [apps[0]!]);
      const elsewhere = await signInTo(person, [apps[1]!]);
      const newPassword = 'another good passphrase 1';
      const changed = await postWithPageToken(here.browser, '/account', '/account/password', { current_password: person.password, new_password: newPassword });
      assert.equal(changed.status, 303);
      assert.deepEqual(listener.events.map(sorted), [expected(person.id, 'password_changed', [{ sid: elsewhere.sid, clientIds: [apps[1]!.clientId] }])]);

      listener.events = [];
      const other = await signInTo({ email: person.email, password: newPassword }, [apps[1]!]);
      const forgot = new TestBrowser();
      assert.equal((await postWithPageToken(forgot, '/forgot-password', '/forgot-password', { email: person.email })).status, 200);
      const link = await linkFromOutbox({ storage, config } as unknown as TestServer, person.email, '/reset-password');
      const reset = await postWithPageToken(forgot, link.replace(config.issuer, ''), '/reset-password', { token: new URL(link).searchParams.get('token') ?? '', password: 'yet another good passphrase' });
      assert.equal(reset.status, 303);
      assert.deepEqual(listener.events.map(sorted), [
        expected(person.id, 'password_reset', [
          { sid: here.sid, clientIds: [apps[0]!.clientId] },
          { sid: other.sid, clientIds: [apps[1]!.clientId] },
        ]),
      ]);
    });

    test('a sign-in as another person in the same browser ends the first session (signed_in_as_another_user); a sign-in again as the same person ends nothing', async () => {
      const first = await newPerson();
      const second = await newPerson();
      const { browser, sid } = await signInTo(first, [apps[0]!]);
      const signIn = async (person: { email: string; password: string }) => {
        const page = await browser.request(`${baseUrl}/login`);
        return browser.request(`${baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email: person.email, password: person.password } });
      };
      assert.equal((await signIn(first)).status, 303);
      assert.deepEqual(listener.events, [], 'the same person again: the session goes on');
      assert.equal((await signInTo(first, [apps[1]!], browser)).sid, sid, 'with the same sid');
      assert.equal((await signIn(second)).status, 303);
      assert.deepEqual(listener.events.map(sorted), [expected(first.id, 'signed_in_as_another_user', [{ sid, clientIds: bothApps() }])]);
    });

    test('the listener is told after the sessions are gone, and a listener that fails does not undo the sign-out', async () => {
      const person = await newPerson();
      const { browser } = await signInTo(person, [apps[0]!]);
      // What the listener sees when it is called: the rows are already gone (it may tell apps at once).
      let sessionsWhenTold: number | undefined;
      const record = listener.ended.bind(listener);
      listener.ended = async (event) => {
        sessionsWhenTold = (await storage.browserSessions.listByUser(person.id, new Date())).length;
        record(event);
      };
      listener.failNext = true;
      const out = await postWithPageToken(browser, '/', '/logout');
      listener.ended = record;
      assert.equal(out.status, 303);
      assert.equal(listener.events.length, 1);
      assert.equal(sessionsWhenTold, 0);
      assert.deepEqual(await storage.browserSessions.listByUser(person.id, new Date()), []);
      assert.equal((await browser.request(`${baseUrl}/account`)).status, 303);
    });

    test('nothing to end, nothing told: Sign out without a session', async () => {
      const browser = new TestBrowser();
      assert.equal((await postWithPageToken(browser, '/login', '/logout')).status, 303);
      assert.deepEqual(listener.events, []);
    });
  });
}
