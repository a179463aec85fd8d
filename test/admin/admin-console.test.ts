/**
 * The admin console (issue 16 item 3; README "Admin console") over real HTTP, on SQLite and PostgreSQL: the admin
 * role from the command line (`latch user create --admin`, `latch admin grant|revoke|list`); who may open /admin
 * (nobody signed in: the sign-in redirect; anyone but an administrator: 404); each action on an account and the
 * audit event it records with the administrator as actor; a disabled account that cannot sign in, whose sessions
 * and tokens ended; every client, the CLI's and self-registered ones included; the event log's filters; the
 * signing keys; forms refused without their CSRF token; pages never framed nor cached.
 */
import assert from 'node:assert/strict';
import { parse as parseHtml } from 'node-html-parser';
import { after, before, describe, test } from 'node:test';
import type { ListedAuditEvent } from '../../src/storage/storage.js';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { callUserinfo, exchangeIssuedCode, issueCode, postToken } from '../helpers/code-fixtures.js';
import { linkFromOutbox, signedInBrowser } from '../helpers/pages.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, signInWithPassword, submitSecondFactor } from '../helpers/two-step.js';

const ADMIN_PAGES = ['/admin', '/admin/users', '/admin/clients', '/admin/events', '/admin/keys'];

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`admin console on ${database}`, { skip }, () => {
    let server: TestServer;
    const admin = { email: `admin-${database}-${Date.now()}@example.com`, password: 'the administrator passphrase', id: 0 };
    let adminBrowser: TestBrowser;

    function cli(args: string[], stdin = '') {
      return runLatchCli(args, {
        LATCH_DATABASE_URL: server.config.databaseUrl,
        LATCH_SECRET: server.config.secret,
        ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
      }, stdin);
    }

    /** The newest event of `type` about `userId`, once the server's buffer has been written. */
    async function eventAbout(type: string, userId: number): Promise<ListedAuditEvent> {
      const deadline = Date.now() + 3000;
      for (;;) {
        const found = (await server.storage.auditEvents.list({ types: [type], userId, limit: 10 }))[0];
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no ${type} event about user ${userId}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /**
     * Whether the server sees the account as an administrator, once it can: a change by `latch admin` reaches the
     * server's cached reads as soon as its notification does (README "Several processes"), allowed the bound and 2 s.
     */
    async function serverSeesAdmin(userId: number, expected: boolean): Promise<boolean | undefined> {
      const deadline = Date.now() + server.config.cacheMaxStalenessMs + 2000;
      for (;;) {
        const isAdmin = (await server.storage.users.findById(userId))?.isAdmin;
        if (isAdmin === expected || Date.now() > deadline) return isAdmin;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /** Posts one of the account page's action forms with the CSRF token of the page it is on (post/redirect/get). */
    async function adminAction(userId: number, action: string, form: Record<string, string> = {}, browser = adminBrowser): Promise<BrowserResponse> {
      const page = await browser.request(`${server.baseUrl}/admin/users/${userId}`);
      assert.equal(page.status, 200, `GET /admin/users/${userId}: ${page.status}`);
      return browser.request(`${server.baseUrl}/admin/users/${userId}/${action}`, { form: { _csrf: inputValue(page.body, '_csrf'), ...form } });
    }

    /** A person with a browser session, an app's access token and refresh token. */
    async function personWithTokens(): Promise<{ id: number; email: string; password: string; browser: TestBrowser; accessToken: string; refreshToken: string; client: Awaited<ReturnType<TestServer['createClient']>> }> {
      const { user, password } = await server.createUser();
      const client = await server.createClient();
      const issued = await issueCode(server, client, { email: user.email, password }, { scope: 'openid offline_access' });
      const tokens = await exchangeIssuedCode(server, client, issued);
      assert.equal(tokens.status, 200, tokens.text);
      assert.equal(typeof tokens.body.refresh_token, 'string');
      assert.equal((await server.storage.browserSessions.listByUser(user.id, new Date())).length, 1, 'signed in');
      return { id: user.id, email: user.email, password, browser: issued.browser, accessToken: tokens.body.access_token, refreshToken: tokens.body.refresh_token, client };
    }

    async function signInAttempt(email: string, password: string): Promise<BrowserResponse> {
      const browser = new TestBrowser();
      const page = await browser.request(`${server.baseUrl}/login`);
      return browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email, password } });
    }

    before(async () => {
      server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'open' } });
      const created = await cli(['user', 'create', '--email', admin.email, '--name', 'Ada Admin', '--email-verified', '--admin', '--password-stdin', '--json'], admin.password);
      assert.equal(created.code, 0, created.stderr);
      const body = JSON.parse(created.stdout);
      assert.equal(body.admin, true);
      admin.id = body.id;
      adminBrowser = await signedInBrowser(server, admin.email, admin.password);
    });
    after(async () => server?.stop());

    test('latch user create --admin makes an administrator; latch admin grant, revoke and list, each change an event', async () => {
      assert.equal((await server.storage.users.findById(admin.id))?.isAdmin, true);
      assert.equal((await eventAbout('user.admin.granted', admin.id)).details?.via, 'cli');

      const { user } = await server.createUser({ name: 'Grace Granted' });
      assert.equal(user.isAdmin, false, 'an account is not an administrator by default');
      const granted = await cli(['admin', 'grant', user.email.toUpperCase()]);
      assert.equal(granted.code, 0, granted.stderr);
      assert.match(granted.stdout, /is now an administrator/);
      assert.equal(await serverSeesAdmin(user.id, true), true);
      assert.deepEqual((await eventAbout('user.admin.granted', user.id)).details, { via: 'cli' });

      const listed = await cli(['admin', 'list', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        JSON.parse(listed.stdout).map((entry: { email: string }) => entry.email).sort(),
        [admin.email, user.email].sort(),
      );

      const revoked = await cli(['admin', 'revoke', user.email]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(await serverSeesAdmin(user.id, false), false);
      assert.deepEqual((await eventAbout('user.admin.revoked', user.id)).details, { via: 'cli' });

      const unknown = await cli(['admin', 'grant', 'nobody@example.com']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /No account has the email nobody@example.com/);
    });

    test('nobody signed in is sent to sign in and back; a signed-in person who is not an administrator gets 404; admin pages are never framed or cached', async () => {
      const { user, password } = await server.createUser();
      const person = await signedInBrowser(server, user.email, password);
      const anonymous = new TestBrowser();
      for (const path of [...ADMIN_PAGES, `/admin/users/${admin.id}`]) {
        const away = await anonymous.request(`${server.baseUrl}${path}`);
        assert.equal(away.status, 303, path);
        assert.equal(away.headers.get('location'), `/login?return_to=${encodeURIComponent(path)}`, path);

        const refused = await person.request(`${server.baseUrl}${path}`);
        assert.equal(refused.status, 404, path);
        assert.ok(!refused.body.includes(admin.email), 'nothing of the console is shown');

        const shown = await adminBrowser.request(`${server.baseUrl}${path}`);
        assert.equal(shown.status, path === '/admin' ? 303 : 200, path);
        assert.match(shown.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
        assert.equal(shown.headers.get('x-frame-options'), 'DENY', path);
        if (shown.status === 200) assert.equal(shown.headers.get('cache-control'), 'no-store', path);
      }
      assert.equal((await adminBrowser.request(`${server.baseUrl}/admin`)).headers.get('location'), '/admin/users');

      // The header links to the console for administrators only, on every page.
      const adminLink = (html: string) => parseHtml(html).querySelectorAll('header a').some((link) => link.getAttribute('href') === '/admin');
      for (const path of ['/', '/developer']) {
        assert.ok(adminLink((await adminBrowser.request(`${server.baseUrl}${path}`)).body), `Admin link for the administrator on ${path}`);
        assert.ok(!adminLink((await person.request(`${server.baseUrl}${path}`)).body), `no Admin link for anyone else on ${path}`);
      }
      const current = parseHtml((await adminBrowser.request(`${server.baseUrl}/admin/keys`)).body);
      assert.equal(current.querySelector('header a[href="/admin"]')?.getAttribute('aria-current'), 'page');
      assert.equal(current.querySelector('nav.admin-nav a[href="/admin/keys"]')?.getAttribute('aria-current'), 'page');

      // A valid form of the person's own (CSRF token included) posted at an admin action changes nothing.
      const target = await server.createUser();
      const ownPage = await person.request(`${server.baseUrl}/developer`);
      const attempt = await person.request(`${server.baseUrl}/admin/users/${target.user.id}/disable`, { form: { _csrf: inputValue(ownPage.body, '_csrf') } });
      assert.equal(attempt.status, 404);
      assert.equal((await server.storage.users.findById(target.user.id))?.disabledAt, null);

      // The role is read on every request: revoked, the console is gone at once.
      const helper = await server.createUser();
      await server.storage.users.update(helper.user.id, { isAdmin: true }, new Date());
      const helperBrowser = await signedInBrowser(server, helper.user.email, helper.password);
      assert.equal((await helperBrowser.request(`${server.baseUrl}/admin/users`)).status, 200);
      await server.storage.users.update(helper.user.id, { isAdmin: false }, new Date());
      assert.equal((await helperBrowser.request(`${server.baseUrl}/admin/users`)).status, 404);
    });

    test('users: search by email or name, case-insensitively, a typed wildcard meaning itself; unknown or malformed ids are 404', async () => {
      const zoe = await server.createUser({ email: `zoe.search_${database}@example.com`, name: 'Zoë Quartermaine' });
      const other = await server.createUser({ email: `zoexsearchy-${database}@example.com`, name: 'Someone Else' });
      const byName = await adminBrowser.request(`${server.baseUrl}/admin/users?q=${encodeURIComponent('QUARTERMAINE')}`);
      assert.equal(byName.status, 200);
      assert.ok(byName.body.includes(zoe.user.email));
      assert.ok(!byName.body.includes(other.user.email));
      const byEmail = await adminBrowser.request(`${server.baseUrl}/admin/users?q=${encodeURIComponent(`search_${database}`)}`);
      assert.ok(byEmail.body.includes(zoe.user.email));
      assert.ok(!byEmail.body.includes(other.user.email), '"_" is not a wildcard');
      const none = await adminBrowser.request(`${server.baseUrl}/admin/users?q=${encodeURIComponent('%')}`);
      assert.match(pageText(none.body), /No account matches/);
      // The escape character itself is a character to find, too.
      const slashed = await server.createUser({ name: `Back\\slash ${database}` });
      const bySlash = await adminBrowser.request(`${server.baseUrl}/admin/users?q=${encodeURIComponent(`k\\s`)}`);
      assert.ok(bySlash.body.includes(slashed.user.email));
      assert.ok(!bySlash.body.includes(zoe.user.email));
      const all = await adminBrowser.request(`${server.baseUrl}/admin/users`);
      assert.ok(all.body.includes(zoe.user.email) && all.body.includes(admin.email));
      assert.match(pageText(all.body), /Administrator/);

      const page = await adminBrowser.request(`${server.baseUrl}/admin/users/${zoe.user.id}`);
      assert.equal(page.status, 200);
      assert.match(pageText(page.body), /Zoë Quartermaine/);
      for (const id of ['999999999', 'abc', '0', '1e3']) assert.equal((await adminBrowser.request(`${server.baseUrl}/admin/users/${id}`)).status, 404, id);
    });

    test('disable: the account cannot sign in, its sessions end and its tokens are revoked; enable lets it in again; both are events with the administrator as actor', async () => {
      const person = await personWithTokens();
      const disabled = await adminAction(person.id, 'disable');
      assert.equal(disabled.status, 303);
      assert.equal(disabled.headers.get('location'), `/admin/users/${person.id}?notice=disabled`);
      const shown = await adminBrowser.request(`${server.baseUrl}${disabled.headers.get('location')}`);
      assert.match(pageText(shown.body), /The account is disabled/);
      assert.match(pageText(shown.body), /Disabled/);

      assert.equal((await person.browser.request(`${server.baseUrl}/account`)).status, 303, 'the session ended');
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${person.accessToken}`)).status, 401, 'the access token was revoked');
      const refresh = await postToken(server.baseUrl, {
        form: { grant_type: 'refresh_token', refresh_token: person.refreshToken, client_id: person.client.clientId, client_secret: person.client.clientSecret },
      });
      assert.equal(refresh.status, 400);
      assert.equal(refresh.body.error, 'invalid_grant');

      const event = await eventAbout('user.disabled', person.id);
      assert.equal(event.actorUserId, admin.id);
      assert.deepEqual(event.details, { sessions: 1, tokens_revoked: 2, via: 'admin' });
      assert.ok(event.requestId && event.ipAddress, 'recorded with the request');

      const refusedSignIn = await signInAttempt(person.email, person.password);
      assert.equal(refusedSignIn.status, 403);
      assert.match(pageText(refusedSignIn.body), /disabled by an administrator/);
      assert.equal(parseHtml(refusedSignIn.body).querySelector('h1')?.textContent.trim(), 'This account is disabled');
      assert.deepEqual((await eventAbout('user.signin.failed', person.id)).details, { reason: 'account_disabled' });
      const wrongPassword = await signInAttempt(person.email, 'not the password at all');
      assert.equal(wrongPassword.status, 401, 'without the password, a disabled account looks like any other');

      const enabled = await adminAction(person.id, 'enable');
      assert.equal(enabled.status, 303);
      assert.equal(enabled.headers.get('location'), `/admin/users/${person.id}?notice=enabled`);
      assert.equal((await eventAbout('user.enabled', person.id)).actorUserId, admin.id);
      assert.equal((await signInAttempt(person.email, person.password)).status, 303, 'signs in again');
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${person.accessToken}`)).status, 401, 'revoked tokens stay revoked');

      const self = await adminAction(admin.id, 'disable');
      assert.equal(self.status, 400);
      assert.match(pageText(self.body), /cannot disable your own account/);
      assert.equal((await server.storage.users.findById(admin.id))?.disabledAt, null);
    });

    test('an account disabled between its password and its second factor is refused at the second step, and the refusal is an event', async () => {
      const { user, password } = await server.createUser();
      const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
      const browser = new TestBrowser();
      const first = await signInWithPassword(server, browser, user.email, password);
      assert.equal(first.headers.get('location'), '/login/two-step');
      assert.equal((await adminAction(user.id, 'disable')).status, 303);
      const second = await submitSecondFactor(server, browser, await app.freshCode());
      assert.equal(second.status, 403);
      assert.equal(parseHtml(second.body).querySelector('h1')?.textContent.trim(), 'This account is disabled');
      assert.deepEqual((await eventAbout('user.signin.failed', user.id)).details, { reason: 'account_disabled' });
      assert.equal((await server.storage.browserSessions.listByUser(user.id, new Date())).length, 0);
    });

    test('sign out everywhere ends every session and token, and the person can sign in again', async () => {
      const person = await personWithTokens();
      const second = await signedInBrowser(server, person.email, person.password);
      assert.equal((await server.storage.browserSessions.listByUser(person.id, new Date())).length, 2);
      const response = await adminAction(person.id, 'sign-out-everywhere');
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `/admin/users/${person.id}?notice=signed-out`);
      for (const browser of [person.browser, second]) assert.equal((await browser.request(`${server.baseUrl}/account`)).status, 303);
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${person.accessToken}`)).status, 401);
      const event = await eventAbout('user.session.signed_out_everywhere', person.id);
      assert.equal(event.actorUserId, admin.id);
      assert.deepEqual(event.details, { sessions: 2, tokens_revoked: 2, via: 'admin' });
      assert.equal((await signInAttempt(person.email, person.password)).status, 303);
    });

    test('resend verification mails a new confirmation link, which works; refused once the address is confirmed', async () => {
      const { user } = await server.createUser({ emailVerified: false });
      const response = await adminAction(user.id, 'resend-verification');
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `/admin/users/${user.id}?notice=verification-sent`);
      const link = await linkFromOutbox(server, user.email, '/verify-email');
      const confirmBrowser = new TestBrowser();
      const confirmPage = await confirmBrowser.request(link.replace(server.config.issuer, server.baseUrl));
      assert.equal(confirmPage.status, 200);
      const confirmed = await confirmBrowser.request(`${server.baseUrl}/verify-email`, { form: { _csrf: inputValue(confirmPage.body, '_csrf'), token: new URL(link).searchParams.get('token') ?? '' } });
      assert.equal(confirmed.status, 200);
      assert.equal((await server.storage.users.findById(user.id))?.emailVerified, true);
      const event = await eventAbout('user.email.verification_resent', user.id);
      assert.equal(event.actorUserId, admin.id);
      assert.deepEqual(event.details, { via: 'admin' });

      const again = await adminAction(user.id, 'resend-verification');
      assert.equal(again.status, 400);
      assert.match(pageText(again.body), /confirmed already/);
    });

    test('reset second factors removes the authenticator app and recovery codes, as latch user reset-mfa does', async () => {
      const { user, password } = await server.createUser();
      const browser = await signedInBrowser(server, user.email, password);
      await enrolAuthenticator(server, browser);
      assert.ok(await server.storage.secondFactors.findTotp(user.id));
      const page = await adminBrowser.request(`${server.baseUrl}/admin/users/${user.id}`);
      assert.match(pageText(page.body), /an authenticator app, 10 recovery codes left/);
      const response = await adminAction(user.id, 'reset-second-factors');
      assert.equal(response.status, 303);
      assert.equal(response.headers.get('location'), `/admin/users/${user.id}?notice=factors-reset`);
      assert.equal(await server.storage.secondFactors.findTotp(user.id), null);
      assert.equal((await server.storage.secondFactors.listRecoveryCodes(user.id)).length, 0);
      const event = await eventAbout('user.second_factor.reset', user.id);
      assert.equal(event.actorUserId, admin.id);
      assert.deepEqual(event.details, { authenticator_app: true, recovery_codes: 10, passkeys: 0, via: 'admin' });
      assert.equal((await signInAttempt(user.email, password)).status, 303, 'the password alone signs in now');
    });

    test('delete asks for the account’s email, then deletes it with its sessions and tokens; the event keeps whom it was', async () => {
      const person = await personWithTokens();
      const unconfirmed = await adminAction(person.id, 'delete', { confirm_email: 'someone-else@example.com' });
      assert.equal(unconfirmed.status, 400);
      assert.equal(parseHtml(unconfirmed.body).querySelector('#confirm_email-error')?.textContent.trim(), `Type ${person.email} to confirm that you want to delete this account`);
      assert.ok(await server.storage.users.findById(person.id));

      const deleted = await adminAction(person.id, 'delete', { confirm_email: person.email.toUpperCase() });
      assert.equal(deleted.status, 303);
      assert.equal(deleted.headers.get('location'), '/admin/users?notice=deleted');
      assert.equal(await server.storage.users.findById(person.id), null);
      assert.equal((await person.browser.request(`${server.baseUrl}/account`)).status, 303);
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${person.accessToken}`)).status, 401);
      const event = await eventAbout('user.deleted', person.id);
      assert.equal(event.actorUserId, admin.id);
      assert.deepEqual(event.details, { sessions: 1, via: 'admin' });
      assert.equal(event.userEmail, null, 'the trail keeps no copy of the erased address');
      assert.equal((await adminBrowser.request(`${server.baseUrl}/admin/users/${person.id}`)).status, 404);
      assert.equal((await signInAttempt(person.email, person.password)).status, 401);

      const self = await adminAction(admin.id, 'delete', { confirm_email: admin.email });
      assert.equal(self.status, 400);
      assert.ok(await server.storage.users.findById(admin.id));
    });

    test('every admin form is refused without its CSRF token, or with another browser’s, and changes nothing', async () => {
      const { user } = await server.createUser({ emailVerified: false });
      const otherAdminPage = await (await signedInBrowser(server, admin.email, admin.password)).request(`${server.baseUrl}/admin/users/${user.id}`);
      const foreignToken = inputValue(otherAdminPage.body, '_csrf');
      for (const action of ['disable', 'sign-out-everywhere', 'resend-verification', 'reset-second-factors', 'delete']) {
        for (const form of [{}, { _csrf: foreignToken }, { _csrf: 'made-up' }] as Record<string, string>[]) {
          const response = await adminBrowser.request(`${server.baseUrl}/admin/users/${user.id}/${action}`, { form: { ...form, confirm_email: user.email } });
          assert.equal(response.status, 403, `${action} ${JSON.stringify(form)}`);
        }
      }
      const after = await server.storage.users.findById(user.id);
      assert.ok(after, 'not deleted');
      assert.equal(after.disabledAt, null);
      const events = await server.storage.auditEvents.list({ userId: user.id, limit: 10 });
      assert.deepEqual(events.filter((event) => event.actorUserId !== null), []);
    });

    test('clients: every client, the command line’s, the developer console’s and a self-registered one (marked), each with its page', async () => {
      const fromCli = await server.createClient({ name: 'Made With The CLI' });
      const { user: owner, password } = await server.createUser();
      const console = await signedInBrowser(server, owner.email, password);
      const consolePage = await console.request(`${server.baseUrl}/developer`);
      const registered = await console.request(`${server.baseUrl}/developer/apps`, {
        form: { _csrf: inputValue(consolePage.body, '_csrf'), name: 'Made In The Console', redirect_uris: 'https://console-app.example.com/callback', app_type: 'web' },
      });
      assert.ok(registered.status < 400, registered.body.slice(0, 300));
      const consoleClient = (await server.storage.clients.listByOwner(owner.id))[0]!;
      const dynamic = await fetch(`${server.baseUrl}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Registered Itself', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none' }),
      });
      assert.equal(dynamic.status, 201);
      const dynamicId = (await dynamic.json()).client_id as string;

      const list = await adminBrowser.request(`${server.baseUrl}/admin/clients`);
      assert.equal(list.status, 200);
      const rows = parseHtml(list.body).querySelectorAll('tbody tr').map((row) => row.textContent.replace(/\s+/g, ' '));
      const rowOf = (id: string) => rows.find((row) => row.includes(id)) ?? '';
      assert.match(rowOf(fromCli.clientId), /Made With The CLI.*Command line/);
      assert.match(rowOf(consoleClient.clientId), new RegExp(`Made In The Console.*Developer console ${owner.email.replace(/[.+]/g, '\\$&')}`));
      assert.match(rowOf(dynamicId), /Registered Itself.*Registered itself.*Public/);

      const page = await adminBrowser.request(`${server.baseUrl}/admin/clients/${dynamicId}`);
      assert.equal(page.status, 200);
      assert.match(pageText(page.body), /The app itself, at \/oauth2\/register/);
      assert.match(pageText(page.body), /http:\/\/127\.0\.0\.1:33418\/callback/);
      const cliPage = await adminBrowser.request(`${server.baseUrl}/admin/clients/${fromCli.clientId}`);
      assert.match(pageText(cliPage.body), /An operator, with latch client create/);
      assert.ok(!cliPage.body.includes(fromCli.clientSecret), 'no secret on the page');
      assert.equal((await adminBrowser.request(`${server.baseUrl}/admin/clients/no-such-client`)).status, 404);
    });

    test('events: the audit trail filtered by user (email or id), client, type, family and time; a bad filter is 400 with the reason next to its field', async () => {
      const { user, password } = await server.createUser();
      await signedInBrowser(server, user.email, password);
      await eventAbout('user.signin.succeeded', user.id);
      const rowsOf = (html: string) => parseHtml(html).querySelectorAll('tbody tr').map((row) => row.textContent.replace(/\s+/g, ' '));

      const byEmail = await adminBrowser.request(`${server.baseUrl}/admin/events?user=${encodeURIComponent(user.email)}`);
      assert.equal(byEmail.status, 200);
      const rows = rowsOf(byEmail.body);
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((row) => row.includes(user.email)), 'only this user’s events');
      assert.ok(rows.some((row) => row.includes('user.signin.succeeded')));
      const byId = rowsOf((await adminBrowser.request(`${server.baseUrl}/admin/events?user=${user.id}&type=user.signin.succeeded`)).body);
      assert.equal(byId.length, 1);

      const family = rowsOf((await adminBrowser.request(`${server.baseUrl}/admin/events?type=${encodeURIComponent('user.admin.*')}`)).body);
      assert.ok(family.length >= 1 && family.every((row) => /user\.admin\.(granted|revoked)/.test(row)));
      const future = await adminBrowser.request(`${server.baseUrl}/admin/events?since=2999-01-01`);
      assert.match(pageText(future.body), /No events/);
      const recent = rowsOf((await adminBrowser.request(`${server.baseUrl}/admin/events?since=30m&user=${user.id}`)).body);
      assert.ok(recent.length >= 1);

      // The administrator's own actions show whom they acted on and who acted.
      const target = await server.createUser();
      await adminAction(target.user.id, 'sign-out-everywhere');
      await eventAbout('user.session.signed_out_everywhere', target.user.id);
      const actions = rowsOf((await adminBrowser.request(`${server.baseUrl}/admin/events?user=${target.user.id}&type=user.session.signed_out_everywhere`)).body);
      assert.equal(actions.length, 1);
      assert.ok(actions[0]!.includes(target.user.email) && actions[0]!.includes(admin.email) && actions[0]!.includes('via=admin'));

      const bad = await adminBrowser.request(`${server.baseUrl}/admin/events?type=nonsense&since=yesterday&user=nobody%40example.com`);
      assert.equal(bad.status, 400);
      const html = parseHtml(bad.body);
      assert.match(html.querySelector('#type-error')?.textContent ?? '', /^Type must be an event type or a family/);
      assert.match(html.querySelector('#since-error')?.textContent ?? '', /^Since must be an ISO 8601 time/);
      assert.match(html.querySelector('#user-error')?.textContent ?? '', /No account has this email/);
      assert.equal(html.querySelector('#since')?.getAttribute('value'), 'yesterday', 'what was typed is kept');
      assert.equal(html.querySelectorAll('tbody tr').length, 0);
      assert.match(pageText(bad.body), /Correct the filters above/);
    });

    test('events: 100 a page, newest first, and the next page continues exactly after the last one shown (ties in a second broken by id)', async () => {
      const { user } = await server.createUser();
      // 150 events in 15 seconds: ten share each second, so that the page boundary falls inside one.
      const base = Date.now() - 3600_000;
      await server.storage.auditEvents.insertMany(
        Array.from({ length: 150 }, (_, i) => ({
          createdAt: new Date(base + Math.floor(i / 10) * 1000),
          type: 'user.enabled',
          userId: user.id,
          actorUserId: admin.id,
          clientId: null,
          ipAddress: null,
          userAgent: null,
          requestId: `paged-${i}`,
          details: { via: 'admin' },
        })),
      );
      const requestIds = (html: string) => [...html.matchAll(/request (paged-\d+)/g)].map((match) => match[1]!);
      const first = await adminBrowser.request(`${server.baseUrl}/admin/events?user=${user.id}`);
      const firstIds = requestIds(first.body);
      assert.equal(firstIds.length, 100);
      assert.equal(firstIds[0], 'paged-149', 'newest first');
      const older = parseHtml(first.body).querySelectorAll('a').find((link) => link.textContent.trim() === 'Older events')?.getAttribute('href');
      assert.ok(older, 'a link to the older events');
      assert.match(older, new RegExp(`user=${user.id}`), 'with the same filters');
      const second = await adminBrowser.request(`${server.baseUrl}${older.replace(/&amp;/g, '&')}`);
      assert.equal(second.status, 200);
      const secondIds = requestIds(second.body);
      assert.equal(secondIds.length, 50);
      assert.deepEqual(new Set([...firstIds, ...secondIds]).size, 150, 'every event once');
      assert.ok(!parseHtml(second.body).querySelectorAll('a').some((link) => link.textContent.trim() === 'Older events'), 'no further page');
      assert.ok(parseHtml(second.body).querySelectorAll('a').some((link) => link.textContent.trim() === 'Back to the newest events'));
      assert.equal((await adminBrowser.request(`${server.baseUrl}/admin/events?older_than=garbage`)).status, 400);
    });

    test('signing keys: every key with its state', async () => {
      const keys = await server.storage.signingKeys.listAll();
      assert.ok(keys.length >= 1);
      const page = await adminBrowser.request(`${server.baseUrl}/admin/keys`);
      assert.equal(page.status, 200);
      const rows = parseHtml(page.body).querySelectorAll('tbody tr').map((row) => row.textContent.replace(/\s+/g, ' '));
      assert.equal(rows.length, keys.length);
      for (const key of keys) assert.match(rows.find((row) => row.includes(key.kid)) ?? '', new RegExp(`${key.alg}.*active`));
    });
  });
}
