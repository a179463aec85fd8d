/**
 * The audit trail (issue 16 item 1; README "Audit events"; docs/protocol-decisions.md "Audit events") over real
 * HTTP, on SQLite and PostgreSQL: every event type is produced by doing the real thing (pages, the token,
 * revocation and logout endpoints, the developer console, the command line), and stored with its user, client,
 * the client's address (here through X-Forwarded-For, LATCH_TRUST_PROXY=1), its User-Agent and the request id of
 * the response that did it. Then: no credential the test used appears in any stored event; `latch events`
 * filters, orders and prints them; the account page shows a person their own activity and nobody else's; the
 * retention cleanup deletes old events in batches.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { parse as parseHtml } from 'node-html-parser';
import { after, before, describe, test } from 'node:test';
import { AUDIT_EVENT_TYPE_NAMES } from '../../src/audit/event-types.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { hashSecret, hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import { deleteExpiredRecords } from '../../src/server.js';
import type { Database } from '../../src/storage/database.js';
import type { ListedAuditEvent, Storage } from '../../src/storage/storage.js';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.js';
import { followRedirect, linkFromOutbox, valueById } from '../helpers/pages.js';
import { enrolAuthenticator, recoveryCodesOn, signInWithPassword, submitSecondFactor } from '../helpers/two-step.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const FIREFOX_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const CHROME_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36';
const APP_BACK_END = 'photos-backend/2.1 (+https://photos.example)';
const REDIRECT_URI = 'http://127.0.0.1:9999/callback';

/** A browser with its own User-Agent, whose requests arrive through a proxy that names its address. */
class Agent extends TestBrowser {
  constructor(
    readonly userAgent: string,
    readonly address: string,
  ) {
    super();
  }

  override request(url: string, init: Parameters<TestBrowser['request']>[1] = {}): Promise<BrowserResponse> {
    return super.request(url, { ...init, headers: { 'user-agent': this.userAgent, 'x-forwarded-for': this.address, ...init.headers } });
  }
}

interface Seen {
  userId?: number | null;
  clientId?: string | null;
  address: string | null;
  userAgent: string | null;
}

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`audit events on ${database}`, { skip }, () => {
    let server: TestServer;
    /** Every password, secret, code, token, cookie and link token this test used: none may be in an event. */
    const credentials: string[] = [];
    /** What someone typed that must not be kept either (an unknown account's email). */
    const typed: string[] = [];
    const person = { email: `audit-${randomBytes(4).toString('hex')}@example.com`, password: `first password ${randomBytes(6).toString('hex')}`, id: 0 };
    const browser = new Agent(FIREFOX_ON_LINUX, '203.0.113.7');
    const app = { clientId: '', clientSecret: '', name: 'Photos' };

    before(async () => {
      server = await startTestServer({
        database,
        env: { LATCH_TRUST_PROXY: '1', LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS: '0', LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3' },
      });
      credentials.push(person.password);
    });
    after(async () => server?.stop());

    /** The event of `type` recorded by the request with this id, once the server's buffer has been written. */
    async function eventOf(type: string, requestId: string | null): Promise<ListedAuditEvent> {
      const deadline = Date.now() + 3000;
      for (;;) {
        const found = (await server.storage.auditEvents.list({ types: [type], limit: 1000 })).find((event) => event.requestId === requestId);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no ${type} event with request id ${requestId}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    async function expectEvent(type: string, response: { headers: Headers }, seen: Seen, details?: Record<string, unknown>): Promise<ListedAuditEvent> {
      const requestId = response.headers.get('x-request-id');
      assert.ok(requestId, 'every response carries its request id');
      const event = await eventOf(type, requestId);
      if (seen.userId !== undefined) assert.equal(event.userId, seen.userId, `${type}: user`);
      if (seen.clientId !== undefined) assert.equal(event.clientId, seen.clientId, `${type}: client`);
      assert.equal(event.ipAddress, seen.address, `${type}: address`);
      assert.equal(event.userAgent, seen.userAgent, `${type}: user agent`);
      assert.ok(Math.abs(event.createdAt.getTime() - Date.now()) < 10_000, `${type}: time`);
      if (details) assert.deepEqual(event.details, details, `${type}: details`);
      return event;
    }

    const fromBrowser = (agent: Agent, userId: number | null = person.id): Seen => ({ userId, address: agent.address, userAgent: agent.userAgent });

    async function rememberSessionCookie(agent: TestBrowser): Promise<void> {
      for (const cookie of await agent.jar.getCookies(server.baseUrl)) credentials.push(cookie.value);
    }

    async function post(agent: TestBrowser, pagePath: string, action: string, form: Record<string, string>): Promise<BrowserResponse> {
      const page = await agent.request(`${server.baseUrl}${pagePath}`);
      assert.equal(page.status, 200, `GET ${pagePath}: ${page.status}`);
      return agent.request(`${server.baseUrl}${action}`, { form: { _csrf: inputValue(page.body, '_csrf'), ...form } });
    }

    async function signIn(agent: TestBrowser, email: string, password: string): Promise<BrowserResponse> {
      const response = await post(agent, '/login', '/login', { return_to: '/', email, password });
      if (response.status === 303) await rememberSessionCookie(agent);
      return response;
    }

    /** A request to the token or revocation endpoint from the app's back end. */
    async function fromApp(path: string, form: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }> {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
          'user-agent': APP_BACK_END,
          'x-forwarded-for': '198.51.100.20',
        },
        body: new URLSearchParams(form).toString(),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    }
    const fromAppBackEnd = (): Seen => ({ userId: person.id, clientId: app.clientId, address: '198.51.100.20', userAgent: APP_BACK_END });

    function cli(args: string[], stdin = '') {
      return runLatchCli(args, {
        LATCH_DATABASE_URL: server.config.databaseUrl,
        LATCH_SECRET: server.config.secret,
        ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
      }, stdin);
    }

    test('sign-up, email verification, sign-out, failed sign-ins (wrong password, unknown account, throttled) and a sign-in', async () => {
      const signup = await post(browser, '/signup', '/signup', { name: 'Audit Person', email: person.email, password: person.password, return_to: '/' });
      assert.equal(signup.status, 303, pageText(signup.body).slice(0, 300));
      await rememberSessionCookie(browser);
      person.id = (await server.storage.users.findByEmail(person.email))!.id;
      await expectEvent('user.created', signup, fromBrowser(browser), { via: 'signup' });

      const link = await linkFromOutbox(server, person.email, '/verify-email');
      const token = new URL(link).searchParams.get('token')!;
      credentials.push(token);
      const confirmPage = await browser.request(link);
      const verified = await browser.request(`${server.baseUrl}/verify-email`, { form: { _csrf: inputValue(confirmPage.body, '_csrf'), token } });
      assert.equal(verified.status, 200);
      await expectEvent('user.email.verified', verified, fromBrowser(browser), undefined);

      const signedOut = await post(browser, '/account', '/logout', {});
      assert.equal(signedOut.status, 303);
      await expectEvent('user.session.signed_out', signedOut, fromBrowser(browser), { reason: 'signed_out' });

      const wrong = await signIn(browser, person.email, 'not my password at all');
      credentials.push('not my password at all');
      assert.equal(wrong.status, 401);
      await expectEvent('user.signin.failed', wrong, fromBrowser(browser), { reason: 'wrong_password' });

      // An unknown account: the event names nobody, and keeps nothing of what was typed.
      const stranger = new Agent(CHROME_ON_WINDOWS, '192.0.2.66');
      const unknownEmail = `nobody-${randomBytes(4).toString('hex')}@example.com`;
      typed.push(unknownEmail, unknownEmail.split('@')[0]!);
      const strangerPassword = `guessing ${randomBytes(4).toString('hex')}`;
      credentials.push(strangerPassword);
      const unknown = await signIn(stranger, unknownEmail, strangerPassword);
      assert.equal(unknown.status, 401);
      await expectEvent('user.signin.failed', unknown, fromBrowser(stranger, null), { reason: 'unknown_account' });
      for (let i = 0; i < 2; i++) assert.equal((await signIn(stranger, unknownEmail, strangerPassword)).status, 401);
      const throttled = await signIn(stranger, unknownEmail, strangerPassword);
      assert.equal(throttled.status, 429);
      await expectEvent('user.signin.failed', throttled, fromBrowser(stranger, null), { reason: 'throttled' });

      const signedIn = await signIn(browser, person.email, person.password);
      assert.equal(signedIn.status, 303);
      await expectEvent('user.signin.succeeded', signedIn, fromBrowser(browser), undefined);
    });

    test('the developer console: an app registered, its settings changed, its secret rotated', async () => {
      const created = await post(browser, '/developer', '/developer/apps', { name: app.name, redirect_uris: REDIRECT_URI, homepage_url: '', logo_url: '' });
      assert.equal(created.status, 303);
      const createdPage = await followRedirect(browser, server.baseUrl, created);
      app.clientId = valueById(createdPage.body, 'client_id');
      app.clientSecret = valueById(createdPage.body, 'client_secret');
      credentials.push(app.clientSecret);
      await expectEvent('client.created', created, { ...fromBrowser(browser), clientId: app.clientId }, { name: app.name, via: 'console' });

      app.name = 'Photos & Albums';
      const changed = await post(browser, `/developer/apps/${app.clientId}`, `/developer/apps/${app.clientId}/settings`, {
        name: app.name,
        redirect_uris: REDIRECT_URI,
        homepage_url: '',
        logo_url: '',
        post_logout_redirect_uris: '',
        backchannel_logout_uri: '',
      });
      assert.equal(changed.status, 303);
      await expectEvent('client.updated', changed, { ...fromBrowser(browser), clientId: app.clientId }, { changed: ['name'], via: 'console' });

      const rotated = await post(browser, `/developer/apps/${app.clientId}`, `/developer/apps/${app.clientId}/secret`, { grace: 'none' });
      assert.equal(rotated.status, 303);
      app.clientSecret = valueById((await followRedirect(browser, server.baseUrl, rotated)).body, 'client_secret');
      credentials.push(app.clientSecret);
      await expectEvent('client.secret_rotated', rotated, { ...fromBrowser(browser), clientId: app.clientId }, { grace_seconds: 0, via: 'console' });
    });

    test('the protocol: consent granted, code exchanged, refreshed, refresh-token and code reuse, tokens revoked, RP-initiated logout', async () => {
      const authorize = async () => {
        const pkce = pkcePair();
        credentials.push(pkce.verifier);
        const params = { response_type: 'code', client_id: app.clientId, redirect_uri: REDIRECT_URI, scope: 'openid profile offline_access', state: 's', code_challenge: pkce.challenge, code_challenge_method: 'S256' };
        let page = await browser.follow(authorizeUrl(server.baseUrl, params), server.baseUrl);
        let consent: BrowserResponse | undefined;
        if (page.status === 200 && page.body.includes('/oauth2/authorize/decision')) {
          consent = await browser.request(`${server.baseUrl}/oauth2/authorize/decision`, {
            form: { _csrf: inputValue(page.body, '_csrf'), authorization_request: inputValue(page.body, 'authorization_request'), decision: 'allow' },
          });
          page = consent;
        }
        const code = new URL(page.headers.get('location')!, server.baseUrl).searchParams.get('code');
        assert.ok(code, `a code: ${page.status} ${pageText(page.body).slice(0, 200)}`);
        credentials.push(code);
        return { code, verifier: pkce.verifier, consent };
      };
      const exchange = async (code: string, verifier: string) => {
        const response = await fromApp('/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        credentials.push(response.body.access_token, response.body.refresh_token, response.body.id_token);
        return response;
      };

      const first = await authorize();
      assert.ok(first.consent, 'the consent page was shown');
      await expectEvent('consent.granted', first.consent, { ...fromBrowser(browser), clientId: app.clientId }, { scope: ['openid', 'profile', 'offline_access'] });
      const exchanged = await exchange(first.code, first.verifier);
      await expectEvent('token.code_exchanged', exchanged, fromAppBackEnd(), { scope: ['openid', 'profile', 'offline_access'], refresh_token_issued: true });

      const refreshed = await fromApp('/oauth2/token', { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      credentials.push(refreshed.body.access_token, refreshed.body.refresh_token, refreshed.body.id_token);
      await expectEvent('token.refreshed', refreshed, fromAppBackEnd(), { scope: ['openid', 'profile', 'offline_access'], refresh_token_issued: true });

      // No grace (LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS=0): the rotated token again is reuse, and the grant ends.
      const reused = await fromApp('/oauth2/token', { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token });
      assert.equal(reused.status, 400);
      const reuse = await expectEvent('token.refresh_reuse_detected', reused, fromAppBackEnd());
      assert.ok((reuse.details?.tokens_revoked as number) >= 2, JSON.stringify(reuse.details));

      // A second grant (consent remembered: straight back with a code).
      const second = await authorize();
      assert.equal(second.consent, undefined);
      const tokens = await exchange(second.code, second.verifier);
      const revokedAccess = await fromApp('/oauth2/revoke', { token: tokens.body.access_token, token_type_hint: 'access_token' });
      assert.equal(revokedAccess.status, 200);
      await expectEvent('token.revoked', revokedAccess, fromAppBackEnd(), { token_type: 'access_token' });
      const revokedRefresh = await fromApp('/oauth2/revoke', { token: tokens.body.refresh_token });
      assert.equal(revokedRefresh.status, 200);
      await expectEvent('token.revoked', revokedRefresh, fromAppBackEnd(), { token_type: 'refresh_token' });
      const replayed = await fromApp('/oauth2/token', { grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT_URI, code_verifier: second.verifier });
      assert.equal(replayed.status, 400);
      await expectEvent('token.code_reuse_detected', replayed, fromAppBackEnd(), { tokens_revoked: 0 });

      // The app signs the person out (its id_token names this browser's session: no question asked).
      const logout = await browser.request(`${server.baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: tokens.body.id_token })}`);
      assert.equal(logout.status, 200, pageText(logout.body).slice(0, 300));
      await expectEvent('user.session.signed_out', logout, { ...fromBrowser(browser), clientId: app.clientId }, { reason: 'rp_initiated_logout' });
    });

    test('the account page: a session ended, password changed, access removed, password reset, sign out everywhere', async () => {
      assert.equal((await signIn(browser, person.email, person.password)).status, 303);
      const phone = new Agent(CHROME_ON_WINDOWS, '198.51.100.99');
      assert.equal((await signIn(phone, person.email, person.password)).status, 303);

      const account = await browser.request(`${server.baseUrl}/account`);
      const phoneSession = parseHtml(account.body).querySelectorAll('input[name="session"]').map((input) => input.getAttribute('value')!);
      assert.equal(phoneSession.length, 1, 'the other session has a Sign out button');
      const ended = await browser.request(`${server.baseUrl}/account/sessions/end`, { form: { _csrf: inputValue(account.body, '_csrf'), session: phoneSession[0]! } });
      assert.equal(ended.status, 303);
      await expectEvent('user.session.signed_out', ended, fromBrowser(browser), { reason: 'session_ended_from_account' });

      const newPassword = `second password ${randomBytes(6).toString('hex')}`;
      credentials.push(newPassword);
      const changed = await post(browser, '/account', '/account/password', { current_password: person.password, new_password: newPassword });
      assert.equal(changed.status, 303);
      person.password = newPassword;
      await expectEvent('user.password.changed', changed, fromBrowser(browser), undefined);

      const removed = await post(browser, '/account', '/account/apps/remove', { client_id: app.clientId });
      assert.equal(removed.status, 303);
      await expectEvent('consent.withdrawn', removed, { ...fromBrowser(browser), clientId: app.clientId }, { tokens_revoked: 0 });

      const forgetful = new Agent(CHROME_ON_WINDOWS, '198.51.100.123');
      const requested = await post(forgetful, '/forgot-password', '/forgot-password', { email: person.email });
      assert.equal(requested.status, 200);
      await expectEvent('user.password.reset_requested', requested, fromBrowser(forgetful), undefined);
      const resetLink = await linkFromOutbox(server, person.email, '/reset-password');
      const resetToken = new URL(resetLink).searchParams.get('token')!;
      credentials.push(resetToken);
      const resetPassword = `third password ${randomBytes(6).toString('hex')}`;
      credentials.push(resetPassword);
      const resetPage = await forgetful.request(resetLink);
      const reset = await forgetful.request(`${server.baseUrl}/reset-password`, { form: { _csrf: inputValue(resetPage.body, '_csrf'), token: resetToken, password: resetPassword } });
      assert.equal(reset.status, 303);
      person.password = resetPassword;
      await expectEvent('user.password.reset', reset, fromBrowser(forgetful), undefined);

      assert.equal((await signIn(browser, person.email, person.password)).status, 303);
      assert.equal((await signIn(phone, person.email, person.password)).status, 303);
      const everywhere = await post(browser, '/account', '/account/sessions/end-all', {});
      assert.equal(everywhere.status, 303);
      await expectEvent('user.session.signed_out_everywhere', everywhere, fromBrowser(browser), { sessions: 2 });
    });

    test('the developer console: an app deleted, its events kept', async () => {
      assert.equal((await signIn(browser, person.email, person.password)).status, 303);
      const deleted = await post(browser, `/developer/apps/${app.clientId}`, `/developer/apps/${app.clientId}/delete`, { confirm: 'yes' });
      assert.equal(deleted.status, 303);
      await expectEvent('client.deleted', deleted, { ...fromBrowser(browser), clientId: app.clientId }, { name: app.name, via: 'console' });
      // No foreign keys: the deleted client's history stays.
      const history = await server.storage.auditEvents.list({ clientId: app.clientId, limit: 100 });
      assert.ok(history.some((event) => event.type === 'client.created'));
      assert.ok(history.some((event) => event.type === 'token.code_exchanged'));
    });

    test('the command line: an account created, an app created, changed, its secret rotated, deleted; signing keys rotated and retired', async () => {
      const cliPassword = `cli password ${randomBytes(6).toString('hex')}`;
      credentials.push(cliPassword);
      const cliEmail = `cli-${randomBytes(4).toString('hex')}@example.com`;
      const user = await cli(['user', 'create', '--email', cliEmail, '--name', 'CLI Person', '--password-stdin', '--json'], cliPassword);
      assert.equal(user.code, 0, user.stderr);
      const created = await cli(['client', 'create', '--name', 'CLI App', '--redirect-uri', REDIRECT_URI, '--json']);
      assert.equal(created.code, 0, created.stderr);
      const { client_id: clientId, client_secret: firstSecret } = JSON.parse(created.stdout);
      credentials.push(firstSecret);
      assert.equal((await cli(['client', 'add-redirect-uri', clientId, 'http://127.0.0.1:9999/other'])).code, 0);
      const rotated = await cli(['client', 'rotate-secret', clientId, '--grace-seconds', '60', '--json']);
      assert.equal(rotated.code, 0, rotated.stderr);
      credentials.push(JSON.parse(rotated.stdout).client_secret);
      assert.equal((await cli(['client', 'delete', clientId])).code, 0);
      const keys = await cli(['keys', 'rotate', '--alg', 'ES256', '--lead-seconds', '0', '--json']);
      assert.equal(keys.code, 0, keys.stderr);
      const [rotation] = JSON.parse(keys.stdout);
      assert.equal((await cli(['keys', 'retire', rotation.replaces[0]])).code, 0);

      const events = await server.storage.auditEvents.list({ limit: 1000 });
      const fromCli = (type: string) => events.find((event) => event.type === type && event.details?.via === 'cli');
      const userId = JSON.parse(user.stdout).id;
      const expected: Array<[string, Partial<ListedAuditEvent>]> = [
        ['user.created', { userId, clientId: null, details: { via: 'cli' } }],
        ['client.created', { clientId, details: { name: 'CLI App', via: 'cli' } }],
        ['client.updated', { clientId, details: { changed: ['redirect_uris'], via: 'cli' } }],
        ['client.secret_rotated', { clientId, details: { grace_seconds: 60, via: 'cli' } }],
        ['client.deleted', { clientId, details: { name: 'CLI App', via: 'cli' } }],
        ['signing_key.rotated', { clientId: null, details: { kid: rotation.kid, alg: 'ES256', replaces: rotation.replaces, via: 'cli' } }],
        ['signing_key.retired', { clientId: null, details: { kid: rotation.replaces[0], alg: 'ES256', via: 'cli' } }],
      ];
      for (const [type, fields] of expected) {
        const event = fromCli(type);
        assert.ok(event, `${type} from the command line`);
        for (const [field, value] of Object.entries(fields)) assert.deepEqual(event[field as keyof ListedAuditEvent], value, `${type}: ${field}`);
        // Outside any request: no address, user agent or request id.
        assert.deepEqual([event.ipAddress, event.userAgent, event.requestId], [null, null, null], type);
      }
    });

    test('two-step verification: an app added, a wrong code, new recovery codes, the app removed, a passkey removed, a reset by the command line', async () => {
      const { user, password } = await server.createUser();
      credentials.push(password);
      const phone = new Agent(FIREFOX_ON_LINUX, '203.0.113.9');
      assert.equal((await signIn(phone, user.email, password)).status, 303);
      const seen = { userId: user.id, address: phone.address, userAgent: phone.userAgent };
      const { app: authenticator, recoveryCodes, page: added } = await enrolAuthenticator(server, phone);
      credentials.push(authenticator.secret, ...recoveryCodes);
      await expectEvent('user.second_factor.added', added, seen, { factor: 'totp' });

      const stranger = new Agent(FIREFOX_ON_LINUX, '203.0.113.10');
      await signInWithPassword(server, stranger, user.email, password);
      const wrongCode = await submitSecondFactor(server, stranger, '000000' === (await authenticator.freshCode()) ? '111111' : '000000');
      await expectEvent('user.signin.failed', wrongCode, { userId: user.id, address: stranger.address, userAgent: stranger.userAgent }, { reason: 'wrong_code' });

      const regenerated = await post(phone, '/account/two-step', '/account/two-step/recovery-codes', { proof: password });
      assert.equal(regenerated.status, 200);
      credentials.push(...recoveryCodesOn(regenerated.body));
      await expectEvent('user.recovery_codes.regenerated', regenerated, seen, undefined);
      const removed = await post(phone, '/account/two-step', '/account/two-step/app/remove', { proof: password });
      await expectEvent('user.second_factor.removed', removed, seen, { factor: 'totp' });

      await server.storage.passkeys.insert({ credentialId: `audit-${user.id}`, userId: user.id, publicKey: new Uint8Array([1]), counter: 0, transports: [], aaguid: 'a', backupEligible: false, backedUp: false, name: 'Old phone', createdAt: new Date(), lastUsedAt: null });
      const passkeyRemoved = await post(phone, '/account/two-step', '/account/passkeys/remove', { credential_id: `audit-${user.id}`, proof: password });
      await expectEvent('user.second_factor.removed', passkeyRemoved, seen, { factor: 'passkey', name: 'Old phone' });

      const reset = await cli(['user', 'reset-mfa', user.email]);
      assert.equal(reset.code, 0, reset.stderr);
      const event = (await server.storage.auditEvents.list({ types: ['user.second_factor.reset'], limit: 10 })).find((candidate) => candidate.userId === user.id);
      assert.deepEqual(event?.details, { authenticator_app: false, recovery_codes: 0, passkeys: 0, via: 'cli' });
    });

    test('a service’s token (client_credentials): no user, the service as the client', async () => {
      const created = await cli(['client', 'create', '--name', 'Reports Service', '--grant-type', 'client_credentials', '--scope', 'reports:read', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const service = JSON.parse(created.stdout);
      credentials.push(service.client_secret);
      const response = await fetch(`${server.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${service.client_id}:${service.client_secret}`).toString('base64')}`,
          'user-agent': 'reports-cron/1.0',
          'x-forwarded-for': '198.51.100.30',
        },
        body: 'grant_type=client_credentials',
      });
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      credentials.push(body.access_token);
      const seen = { userId: null, clientId: service.client_id, address: '198.51.100.30', userAgent: 'reports-cron/1.0' };
      await expectEvent('token.client_credentials_issued', response, seen, { scope: ['reports:read'], refresh_token_issued: false });
    });

    test('a device signed in with a code (RFC 8628): the consent on /device, the device’s token request', async () => {
      const created = await cli(['client', 'create', '--name', 'Living Room TV', '--public', '--grant-type', 'urn:ietf:params:oauth:grant-type:device_code', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const tv = JSON.parse(created.stdout);
      const fromTv = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'tv-app/2.0', 'x-forwarded-for': '198.51.100.40' };
      const started = await (
        await fetch(`${server.baseUrl}/oauth2/device_authorization`, { method: 'POST', headers: fromTv, body: new URLSearchParams({ client_id: tv.client_id, scope: 'openid' }).toString() })
      ).json();
      credentials.push(started.device_code, started.user_code);
      const { user, password } = await server.createUser();
      credentials.push(password);
      const phone = new Agent(FIREFOX_ON_LINUX, '203.0.113.8');
      assert.equal((await signIn(phone, user.email, password)).status, 303);
      const consent = await post(phone, '/device', '/device', { user_code: started.user_code });
      assert.equal(consent.status, 200);
      const approved = await phone.request(`${server.baseUrl}/device/decision`, { form: { _csrf: inputValue(consent.body, '_csrf'), user_code: started.user_code, decision: 'allow' } });
      assert.equal(approved.status, 200);
      await expectEvent('consent.granted', approved, fromBrowser(phone, user.id), { scope: ['openid'], via: 'device' });
      const response = await fetch(`${server.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: fromTv,
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.device_code, client_id: tv.client_id }).toString(),
      });
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      credentials.push(body.access_token, body.id_token);
      const seen = { userId: user.id, clientId: tv.client_id, address: '198.51.100.40', userAgent: 'tv-app/2.0' };
      await expectEvent('token.device_code_exchanged', response, seen, { scope: ['openid'], refresh_token_issued: false });
    });

    test('the command line: a webhook created and deleted (its secret and URL kept out of the events)', async () => {
      const created = await cli(['webhook', 'create', '--url', 'https://hooks.example.com/latch?token=receiver-own-token-123', '--event', 'user.signin.succeeded', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const { id, secret } = JSON.parse(created.stdout);
      credentials.push(secret, 'receiver-own-token-123');
      assert.equal((await cli(['webhook', 'delete', id])).code, 0);
      const events = await server.storage.auditEvents.list({ typePrefix: 'webhook.', limit: 1000 });
      const of = (type: string) => events.find((event) => event.type === type && event.details?.webhook_id === id);
      assert.deepEqual(of('webhook.created')?.details, { webhook_id: id, events: ['user.signin.succeeded'], via: 'cli' });
      assert.deepEqual(of('webhook.deleted')?.details, { webhook_id: id, via: 'cli' });
    });

    test('the command line: a registration token created and revoked (the token kept out of the events)', async () => {
      const created = await cli(['registration-token', 'create', '--note', 'partner', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const { id, token } = JSON.parse(created.stdout);
      credentials.push(token);
      assert.equal((await cli(['registration-token', 'revoke', id])).code, 0);
      const events = await server.storage.auditEvents.list({ typePrefix: 'registration_token.', limit: 1000 });
      const of = (type: string) => events.find((event) => event.type === type && event.details?.token_id === id);
      assert.deepEqual(of('registration_token.created')?.details, { token_id: id, expires_at: null, via: 'cli' });
      assert.deepEqual(of('registration_token.revoked')?.details, { token_id: id, via: 'cli' });
    });

    test('the command line: an API (resource server) registered and deleted', async () => {
      const identifier = 'https://audit-api.example.com/v1';
      assert.equal((await cli(['resource', 'create', '--identifier', identifier, '--scope', 'audit:read'])).code, 0);
      assert.equal((await cli(['resource', 'delete', identifier])).code, 0);
      const events = await server.storage.auditEvents.list({ typePrefix: 'resource.', limit: 1000 });
      const of = (type: string) => events.find((event) => event.type === type && event.details?.resource === identifier);
      assert.deepEqual(of('resource.created')?.details, { resource: identifier, scope: ['audit:read'], via: 'cli' });
      assert.deepEqual(of('resource.deleted')?.details, { resource: identifier, via: 'cli' });
    });

    test('the admin console: the role from the command line, then an administrator’s actions on an account, each with the administrator as actor', async () => {
      const adminPassword = `admin password ${randomBytes(6).toString('hex')}`;
      credentials.push(adminPassword);
      const adminEmail = `audit-admin-${randomBytes(4).toString('hex')}@example.com`;
      const created = await cli(['user', 'create', '--email', adminEmail, '--name', 'Audit Admin', '--email-verified', '--admin', '--password-stdin', '--json'], adminPassword);
      assert.equal(created.code, 0, created.stderr);
      const adminId = JSON.parse(created.stdout).id as number;
      const granted = (await server.storage.auditEvents.list({ types: ['user.admin.granted'], userId: adminId, limit: 1 }))[0];
      assert.deepEqual(granted?.details, { via: 'cli' });

      const administrator = new Agent(CHROME_ON_WINDOWS, '203.0.113.40');
      assert.equal((await signIn(administrator, adminEmail, adminPassword)).status, 303);
      const { user: target } = await server.createUser({ emailVerified: false });
      const seen = { userId: target.id, address: administrator.address, userAgent: administrator.userAgent };
      const page = `/admin/users/${target.id}`;
      const asAdmin = async (type: string, action: string, details: Record<string, unknown>, form: Record<string, string> = {}) => {
        const response = await post(administrator, page, `${page}/${action}`, form);
        assert.equal(response.status, 303, `${action}: ${response.status}`);
        const event = await expectEvent(type, response, seen, details);
        assert.equal(event.actorUserId, adminId, `${type}: the administrator is the actor`);
      };
      await asAdmin('user.email.verification_resent', 'resend-verification', { via: 'admin' });
      await asAdmin('user.disabled', 'disable', { sessions: 0, tokens_revoked: 0, via: 'admin' });
      await asAdmin('user.enabled', 'enable', { via: 'admin' });
      await asAdmin('user.deleted', 'delete', { sessions: 0, via: 'admin' }, { confirm_email: target.email });

      assert.equal((await cli(['admin', 'revoke', adminEmail])).code, 0);
      const revoked = (await server.storage.auditEvents.list({ types: ['user.admin.revoked'], userId: adminId, limit: 1 }))[0];
      assert.deepEqual(revoked?.details, { via: 'cli' });
    });

    test('every event type was produced above, and no event holds any password, secret, code, token, cookie or what a stranger typed', async () => {
      const db = (server.storage as unknown as { db: Kysely<Database> }).db;
      const rows = await db.selectFrom('audit_events').selectAll().execute();
      const types = new Set(rows.map((row) => row.type));
      // A type added to src/audit/event-types.ts needs a step above that produces it by doing the real thing.
      assert.deepEqual(AUDIT_EVENT_TYPE_NAMES.filter((type) => !types.has(type)), [], 'event types no step of this test produced');
      const stored = JSON.stringify(rows);
      const searched = credentials.filter((value) => typeof value === 'string' && value.length >= 8);
      assert.ok(searched.length >= 20, `searched for ${searched.length} credentials`);
      for (const credential of searched) {
        // The value, and its hashes as Latch stores them elsewhere: neither belongs in an event.
        for (const form of [credential, hashSecret(credential), hashTimeOrderedSecret(credential)]) {
          assert.ok(!stored.includes(form), `an audit event holds a credential (${credential.slice(0, 12)}…)`);
        }
      }
      for (const text of typed) assert.ok(!stored.toLowerCase().includes(text.toLowerCase()), `an audit event holds what was typed: ${text}`);
    });

    test('latch events: newest first, filtered by user, client, type, family and time, as a table or JSON', async () => {
      const all = await cli(['events', '--json', '--limit', '1000']);
      assert.equal(all.code, 0, all.stderr);
      const events = JSON.parse(all.stdout) as Array<Record<string, any>>;
      assert.ok(events.length >= 25);
      for (let i = 1; i < events.length; i++) {
        const [newer, older] = [events[i - 1]!, events[i]!];
        assert.ok(newer.time > older.time || (newer.time === older.time && newer.id > older.id), 'newest first');
      }
      assert.deepEqual(Object.keys(events[0]!).sort(), ['actor_user_id', 'client_id', 'details', 'id', 'ip_address', 'request_id', 'time', 'type', 'user_agent', 'user_email', 'user_id']);

      const mine = JSON.parse((await cli(['events', '--user', person.email, '--json', '--limit', '1000'])).stdout) as Array<Record<string, any>>;
      assert.ok(mine.length >= 15);
      assert.ok(mine.every((event) => event.user_id === person.id && event.user_email === person.email));
      assert.deepEqual(JSON.parse((await cli(['events', '--user', String(person.id), '--json', '--limit', '1000'])).stdout), mine);

      const ofApp = JSON.parse((await cli(['events', '--client', app.clientId, '--json'])).stdout) as Array<Record<string, any>>;
      assert.ok(ofApp.every((event) => event.client_id === app.clientId));
      assert.equal(ofApp[0]!.type, 'client.deleted', 'its last event');

      const failures = JSON.parse((await cli(['events', '--type', 'user.signin.failed', '--json'])).stdout) as Array<Record<string, any>>;
      assert.deepEqual([...new Set(failures.map((event) => event.details.reason))].sort(), ['throttled', 'unknown_account', 'wrong_code', 'wrong_password']);
      const tokenFamily = JSON.parse((await cli(['events', '--type', 'token.*', '--json'])).stdout) as Array<Record<string, any>>;
      assert.ok(tokenFamily.length >= 6 && tokenFamily.every((event) => event.type.startsWith('token.')));

      const future = await cli(['events', '--since', new Date(Date.now() + 3_600_000).toISOString(), '--json']);
      assert.deepEqual(JSON.parse(future.stdout), []);
      const twoRecent = JSON.parse((await cli(['events', '--since', '1h', '--limit', '2', '--json'])).stdout) as Array<Record<string, any>>;
      assert.deepEqual(twoRecent.map((event) => event.id), events.slice(0, 2).map((event) => event.id));

      const table = await cli(['events', '--user', person.email, '--type', 'user.signin.failed']);
      assert.equal(table.code, 0, table.stderr);
      const [header, ...lines] = table.stdout.trimEnd().split('\n');
      assert.match(header!, /^TIME \(UTC\)\s+TYPE\s+USER\s+CLIENT\s+ADDRESS\s+DETAILS$/);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\s+user\\.signin\\.failed\\s+${person.email.replace(/\./g, '\\.')}\\s+—\\s+203\\.0\\.113\\.7\\s+reason=wrong_password$`));

      const unknownUser = await cli(['events', '--user', 'no-such-person@example.com']);
      assert.equal(unknownUser.code, 2);
      assert.match(unknownUser.stderr, /No account has the email no-such-person@example\.com/);
      const unknownType = await cli(['events', '--type', 'login']);
      assert.equal(unknownType.code, 2);
      assert.match(unknownType.stderr, /--type must be an event type.*user\.signin\.failed/);
    });

    test('the account page shows the person their own recent activity, and nobody else’s', async () => {
      const { user: other, password: otherPassword } = await server.createUser();
      const otherBrowser = new Agent(CHROME_ON_WINDOWS, '192.0.2.200');
      assert.equal((await signIn(otherBrowser, other.email, 'wrong password for the other')).status, 401);
      assert.equal((await signIn(otherBrowser, other.email, otherPassword)).status, 303);
      assert.equal((await signIn(browser, person.email, person.password)).status, 303);

      const activityOf = async (agent: TestBrowser) => {
        const page = await agent.request(`${server.baseUrl}/account`);
        assert.equal(page.status, 200);
        const section = parseHtml(page.body).querySelector('section[aria-labelledby="activity-heading"]');
        assert.ok(section, 'the account page has a Recent activity section');
        return section.querySelectorAll('tbody tr').map((row) => row.querySelectorAll('td').map((cell) => cell.textContent.trim()));
      };

      const mine = await activityOf(browser);
      assert.deepEqual(mine[0]!.slice(1), ['Signed in', 'Firefox 140 on Linux', '203.0.113.7'], 'newest first: the sign-in just now');
      const what = mine.map((row) => row[1]);
      // The newest 20; a deleted app is named by what its deletion kept.
      assert.equal(mine.length, 20);
      for (const expected of ['Password reset', 'Password changed', 'Signed out everywhere', 'Signed out (from your account page)', 'Removed an app’s access', `App deleted: ${app.name}`]) {
        assert.ok(what.includes(expected), `"${expected}" in ${JSON.stringify(what)}`);
      }
      // Tokens the app refreshed are not the person's activity.
      assert.ok(!what.some((text) => /refreshed|exchanged/i.test(text!)));
      assert.ok(mine.every((row) => row[3] !== '192.0.2.200'), 'nothing from the other person');
      assert.match(mine.map((row) => row[0]).join(' '), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);

      const theirs = await activityOf(otherBrowser);
      assert.deepEqual(theirs.map((row) => row.slice(1)), [
        ['Signed in', 'Chrome 141 on Windows', '192.0.2.200'],
        ['Sign-in failed (wrong password)', 'Chrome 141 on Windows', '192.0.2.200'],
      ]);
    });

    test('retention: events older than LATCH_AUDIT_RETENTION_DAYS are deleted by the periodic cleanup, in batches', async () => {
      assert.equal(server.config.auditRetentionDays, 90, 'the default');
      assert.equal(loadConfig({ LATCH_DATABASE_URL: 'sqlite::memory:', LATCH_AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays, 30);
      assert.throws(() => loadConfig({ LATCH_DATABASE_URL: 'sqlite::memory:', LATCH_AUDIT_RETENTION_DAYS: '0' }), ConfigError);

      const now = new Date();
      const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
      const old = (days: number, marker: string) => ({
        createdAt: daysAgo(days), type: 'user.signin.succeeded', userId: null, actorUserId: null, clientId: `retention-${marker}`,
        ipAddress: null, userAgent: null, requestId: null, details: null,
      });
      await server.storage.auditEvents.insertMany([...Array.from({ length: 7 }, () => old(91, 'old')), old(89, 'kept')]);
      const before = (await server.storage.auditEvents.list({ limit: 10_000 })).length;

      const batches: number[] = [];
      const watched: Storage = {
        ...server.storage,
        auditEvents: {
          ...server.storage.auditEvents,
          deleteBefore: async (cutoff, limit) => {
            const deleted = await server.storage.auditEvents.deleteBefore(cutoff, limit);
            batches.push(deleted);
            return deleted;
          },
        },
      };
      await deleteExpiredRecords(watched, server.config, now, 3);
      assert.deepEqual(batches, [3, 3, 1], 'batches of at most 3 until one comes back short');
      assert.equal((await server.storage.auditEvents.list({ clientId: 'retention-old', limit: 100 })).length, 0);
      assert.equal((await server.storage.auditEvents.list({ clientId: 'retention-kept', limit: 100 })).length, 1);
      assert.equal((await server.storage.auditEvents.list({ limit: 10_000 })).length, before - 7, 'nothing recent was deleted');

      // A shorter retention reaches the 89-day-old event too.
      await deleteExpiredRecords(server.storage, { ...server.config, auditRetentionDays: 30 }, now);
      assert.equal((await server.storage.auditEvents.list({ clientId: 'retention-kept', limit: 100 })).length, 0);
    });
  });
}
