/**
 * The device authorization grant (issue 18 item 6; RFC 8628; docs/protocol-decisions.md "Device authorization
 * grant"), over real HTTP on SQLite and PostgreSQL: the device authorization endpoint, the /device page walked by
 * a signed-in browser (code, consent, allow or deny), and the token endpoint's polling answers
 * (authorization_pending, slow_down, access_denied, expired_token), single redemption, the wrong client, bad
 * input; then oauth4webapi driving the device side, and `latch client create --grant-type …device_code`.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import * as oauth from 'oauth4webapi';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import type { Database } from '../../src/storage/database.js';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { basicAuthorization, callUserinfo, postToken, readResponse, type RawResponse } from '../helpers/code-fixtures.js';
import { signedInBrowser } from '../helpers/pages.js';
import { enrolAuthenticator, submitSecondFactor } from '../helpers/two-step.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
/** The interval the server is started with (LATCH_DEVICE_POLL_INTERVAL_SECONDS), small so that the tests wait little. */
const INTERVAL = 1;
const WAIT_MS = INTERVAL * 1000 + 150;

interface DeviceClient {
  clientId: string;
  clientSecret: string | null;
}

function decodeJwtPayload(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`device authorization grant (${database})`, () => {
    let server: TestServer;
    let db: Kysely<Database>;
    /** A command-line tool: public, device_code + refresh_token, registered with the CLI. */
    let cliTool: DeviceClient;
    /** A TV app with a secret: confidential, device_code only. */
    let tvApp: DeviceClient;
    /** A web app, not registered for the device grant. */
    let webApp: DeviceClient;
    let person: { email: string; password: string };
    let browser: TestBrowser;

    const credentials = (client: DeviceClient): { headers?: Record<string, string>; form: Record<string, string> } =>
      client.clientSecret === null ? { form: { client_id: client.clientId } } : { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form: {} };

    async function requestDeviceAuthorization(client: DeviceClient, form: Record<string, string> = {}): Promise<RawResponse> {
      const auth = credentials(client);
      return readResponse(
        await fetch(`${server.baseUrl}/oauth2/device_authorization`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth.headers },
          body: new URLSearchParams({ ...auth.form, ...form }).toString(),
        }),
      );
    }

    async function startDevice(client: DeviceClient, scope = 'openid profile'): Promise<{ device_code: string; user_code: string; interval: number }> {
      const response = await requestDeviceAuthorization(client, { scope });
      assert.equal(response.status, 200, response.text);
      return response.body;
    }

    function poll(client: DeviceClient, deviceCode: string): Promise<RawResponse> {
      const auth = credentials(client);
      return postToken(server.baseUrl, { headers: auth.headers ?? {}, form: { grant_type: DEVICE_GRANT, device_code: deviceCode, ...auth.form } });
    }

    async function enterCode(as: TestBrowser, userCode: string): Promise<BrowserResponse> {
      const page = await as.request(`${server.baseUrl}/device`);
      assert.equal(page.status, 200, page.body.slice(0, 300));
      return as.request(`${server.baseUrl}/device`, { form: { _csrf: inputValue(page.body, '_csrf'), user_code: userCode } });
    }

    function decide(as: TestBrowser, consentPage: BrowserResponse, decision: 'allow' | 'deny'): Promise<BrowserResponse> {
      return as.request(`${server.baseUrl}/device/decision`, {
        form: { _csrf: inputValue(consentPage.body, '_csrf'), user_code: inputValue(consentPage.body, 'user_code'), decision },
      });
    }

    async function approve(userCode: string, as = browser): Promise<void> {
      const consent = await enterCode(as, userCode);
      assert.equal(consent.status, 200, pageText(consent.body).slice(0, 400));
      const done = await decide(as, consent, 'allow');
      assert.equal(done.status, 200);
      assert.match(pageText(done.body), /Device connected/);
    }

    async function expire(deviceCode: string): Promise<void> {
      await db
        .updateTable('device_authorizations')
        .set({ expires_at: Math.floor(Date.now() / 1000) - 1 })
        .where('device_code_hash', '=', hashTimeOrderedSecret(deviceCode))
        .execute();
    }

    before(async () => {
      server = await startTestServer({ database, env: { LATCH_DEVICE_POLL_INTERVAL_SECONDS: String(INTERVAL) } });
      db = (server.storage as unknown as { db: Kysely<Database> }).db;
      const created = await runLatchCli(
        ['client', 'create', '--name', 'Latch CLI Tool', '--public', '--grant-type', DEVICE_GRANT, '--grant-type', 'refresh_token', '--json'],
        {
          LATCH_DATABASE_URL: server.config.databaseUrl,
          LATCH_SECRET: server.config.secret,
          ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
        },
      );
      assert.equal(created.code, 0, created.stderr);
      const shown = JSON.parse(created.stdout);
      assert.deepEqual(shown.grant_types, [DEVICE_GRANT, 'refresh_token']);
      assert.equal(shown.token_endpoint_auth_method, 'none');
      assert.ok(!('client_secret' in shown), 'a public client gets no secret');
      cliTool = { clientId: shown.client_id, clientSecret: null };
      const tv = await registerClientOfAnyKind(server.storage, { name: 'Living Room TV', redirectUris: [], grantTypes: [DEVICE_GRANT] }, { developmentMode: false });
      tvApp = { clientId: tv.client.clientId, clientSecret: tv.clientSecret };
      const web = await server.createClient({ name: 'Web App' });
      webApp = { clientId: web.clientId, clientSecret: web.clientSecret };
      const { user, password } = await server.createUser();
      person = { email: user.email, password };
      browser = await signedInBrowser(server, person.email, password);
    });
    after(async () => server.stop());

    test('discovery lists the device authorization endpoint and the grant type', async () => {
      const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
      assert.equal(metadata.device_authorization_endpoint, `${server.config.issuer}/oauth2/device_authorization`);
      assert.ok(metadata.grant_types_supported.includes(DEVICE_GRANT));
    });

    test('the whole flow: codes issued (hashes stored), pending, sign-in from the link, consent, allow, tokens once', async () => {
      const response = await requestDeviceAuthorization(cliTool, { scope: 'openid profile offline_access' });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const started = response.body;
      assert.match(started.device_code, /^latch_dc_/);
      assert.match(started.user_code, USER_CODE);
      assert.equal(started.verification_uri, `${server.config.issuer}/device`);
      assert.equal(started.verification_uri_complete, `${server.config.issuer}/device?user_code=${started.user_code}`);
      assert.equal(started.expires_in, 600);
      assert.equal(started.interval, INTERVAL);
      const rows = await db.selectFrom('device_authorizations').selectAll().where('client_id', '=', cliTool.clientId).execute();
      const row = rows.find((candidate) => candidate.device_code_hash === hashTimeOrderedSecret(started.device_code));
      assert.ok(row, 'stored under the hash of the device code');
      const stored = JSON.stringify(rows);
      for (const secret of [started.device_code, started.user_code, started.user_code.replace('-', '')]) assert.ok(!stored.includes(secret), 'no plain code stored');

      const pending = await poll(cliTool, started.device_code);
      assert.equal(pending.status, 400);
      assert.equal(pending.body.error, 'authorization_pending');
      assert.equal(pending.headers.get('cache-control'), 'no-store');

      // The person opens the link on a phone where they are not signed in yet.
      const phone = new TestBrowser();
      const toSignIn = await phone.request(started.verification_uri_complete);
      assert.equal(toSignIn.status, 302);
      const loginUrl = new URL(toSignIn.headers.get('location')!, server.baseUrl);
      assert.equal(loginUrl.pathname, '/login');
      assert.equal(loginUrl.searchParams.get('return_to'), `/device?user_code=${started.user_code}`);
      const loginPage = await phone.request(loginUrl.href);
      const signedIn = await phone.follow(`${server.baseUrl}/login`, server.baseUrl, {
        form: { _csrf: inputValue(loginPage.body, '_csrf'), return_to: inputValue(loginPage.body, 'return_to'), email: person.email, password: person.password },
      });
      assert.equal(signedIn.status, 200);
      assert.equal(inputValue(signedIn.body, 'user_code'), started.user_code, 'back on /device with the code filled in');
      assert.match(pageText(signedIn.body), /Check that this is the code your device shows/);

      const consent = await phone.request(`${server.baseUrl}/device`, { form: { _csrf: inputValue(signedIn.body, '_csrf'), user_code: started.user_code } });
      assert.equal(consent.status, 200);
      const text = pageText(consent.body);
      assert.match(text, /Latch CLI Tool/);
      assert.match(text, new RegExp(`shows the code ${started.user_code}`));
      assert.match(text, /Access while you are away/, 'offline_access is asked for');
      assert.match(consent.body, /action="\/device\/decision"/);
      const done = await decide(phone, consent, 'allow');
      assert.equal(done.status, 200);
      assert.match(pageText(done.body), /Device connected/);

      await sleep(WAIT_MS);
      const tokens = await poll(cliTool, started.device_code);
      assert.equal(tokens.status, 200, tokens.text);
      assert.equal(tokens.body.token_type, 'Bearer');
      assert.equal(tokens.body.scope, 'openid profile offline_access');
      assert.match(tokens.body.access_token, /^latch_at_/);
      assert.match(tokens.body.refresh_token, /^latch_rt_/);
      const claims = decodeJwtPayload(tokens.body.id_token);
      assert.equal(claims.iss, server.config.issuer);
      assert.equal(claims.aud, cliTool.clientId);
      assert.ok(!('nonce' in claims), 'no nonce in this grant');
      const userinfo = await callUserinfo(server.baseUrl, `Bearer ${tokens.body.access_token}`);
      assert.equal(userinfo.status, 200);
      assert.equal(userinfo.body.email, person.email);
      assert.equal(userinfo.body.sub, claims.sub);

      // Redeemed once: presented again, it is refused, and what it gave is revoked (a code used twice).
      await sleep(WAIT_MS);
      const again = await poll(cliTool, started.device_code);
      assert.equal(again.status, 400);
      assert.equal(again.body.error, 'invalid_grant');
      assert.match(again.body.error_description, /already been used/);
      assert.equal((await callUserinfo(server.baseUrl, `Bearer ${tokens.body.access_token}`)).status, 401);
      // The code is spent on the page too.
      const reused = await enterCode(browser, started.user_code);
      assert.equal(reused.status, 400);
      assert.match(pageText(reused.body), /used already/);
    });

    test('a confidential client, without offline_access: an access token and an id_token, no refresh token', async () => {
      const started = await startDevice(tvApp, 'openid email');
      await approve(started.user_code.toLowerCase().replace('-', ' '));
      const tokens = await poll(tvApp, started.device_code);
      assert.equal(tokens.status, 200, tokens.text);
      assert.equal(tokens.body.scope, 'openid email');
      assert.ok(tokens.body.id_token);
      assert.ok(!('refresh_token' in tokens.body));
    });

    test('resource (RFC 8707): the API the device named is on the consent page, and its token is a JWT for it; another API is invalid_target', async () => {
      const notes = 'https://notes.device.example/';
      const photos = 'https://photos.device.example/';
      for (const [identifier, name, scope] of [[notes, 'Notes API', 'notes:read'], [photos, 'Photos API', 'photos:read']] as const) {
        assert.equal(await server.storage.resourceServers.insert({ identifier, name, scope: [scope], createdAt: new Date() }), true);
      }
      // At the device authorization request, as at the authorization endpoint: registered APIs only, and their scopes only with them.
      const unknown = await requestDeviceAuthorization(cliTool, { scope: 'openid', resource: 'https://unknown.device.example/' });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error, 'invalid_target');
      const scopeWithoutApi = await requestDeviceAuthorization(cliTool, { scope: 'notes:read' });
      assert.equal(scopeWithoutApi.status, 400, scopeWithoutApi.text);
      assert.equal(scopeWithoutApi.body.error, 'invalid_scope');

      const started = await requestDeviceAuthorization(cliTool, { scope: 'openid notes:read offline_access', resource: notes });
      assert.equal(started.status, 200, started.text);
      const deviceCode = started.body.device_code as string;
      const pollFor = (resource: string) => postToken(server.baseUrl, { form: { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: cliTool.clientId, resource } });
      assert.equal((await pollFor(notes)).body.error, 'authorization_pending');
      await sleep(WAIT_MS);

      const consent = await enterCode(browser, started.body.user_code as string);
      assert.equal(consent.status, 200, consent.body.slice(0, 300));
      assert.match(pageText(consent.body), /Notes API/);
      assert.equal((await decide(browser, consent, 'allow')).status, 200);

      const otherApi = await pollFor(photos);
      assert.equal(otherApi.status, 400, otherApi.text);
      assert.equal(otherApi.body.error, 'invalid_target');
      assert.match(otherApi.body.error_description as string, /not named in the authorization request/);

      const tokens = await pollFor(notes);
      assert.equal(tokens.status, 200, tokens.text);
      const payload = decodeJwtPayload(tokens.body.access_token as string);
      assert.equal(payload.aud, notes);
      assert.equal(payload.scope, 'notes:read');
      assert.equal(payload.client_id, cliTool.clientId);
      // The refresh token keeps the grant's APIs (RFC 8707 §2.2): a refresh for the API gives a JWT for it again.
      const refreshed = await postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: cliTool.clientId, resource: notes } });
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(decodeJwtPayload(refreshed.body.access_token as string).aud, notes);
    });

    test('slow_down: a poll sooner than the interval raises it by 5 seconds for every later poll', async () => {
      const started = await startDevice(cliTool);
      assert.equal((await poll(cliTool, started.device_code)).body.error, 'authorization_pending');
      await sleep(WAIT_MS);
      assert.equal((await poll(cliTool, started.device_code)).body.error, 'authorization_pending', 'a poll after the interval is in time');
      const fast = await poll(cliTool, started.device_code);
      assert.equal(fast.status, 400);
      assert.equal(fast.body.error, 'slow_down');
      assert.match(fast.body.error_description, new RegExp(`wait ${INTERVAL + 5} seconds`));
      const faster = await poll(cliTool, started.device_code);
      assert.equal(faster.body.error, 'slow_down');
      assert.match(faster.body.error_description, new RegExp(`wait ${INTERVAL + 10} seconds`));
      // The old interval is no longer enough.
      await sleep(WAIT_MS);
      assert.equal((await poll(cliTool, started.device_code)).body.error, 'slow_down');
      const stored = await server.storage.deviceAuthorizations.findByDeviceCodeHash(hashTimeOrderedSecret(started.device_code));
      assert.equal(stored?.intervalSeconds, INTERVAL + 15);
      // Once approved, the device gets its tokens whatever its pace.
      await approve(started.user_code);
      assert.equal((await poll(cliTool, started.device_code)).status, 200);
    });

    test('denied: access_denied, and the code cannot be used again', async () => {
      const started = await startDevice(cliTool);
      const consent = await enterCode(browser, started.user_code);
      const denied = await decide(browser, consent, 'deny');
      assert.equal(denied.status, 200);
      assert.match(pageText(denied.body), /Request denied/);
      const answer = await poll(cliTool, started.device_code);
      assert.equal(answer.status, 400);
      assert.equal(answer.body.error, 'access_denied');
      // A second decision changes nothing.
      const late = await decide(browser, consent, 'allow');
      assert.equal(late.status, 400);
      assert.equal((await poll(cliTool, started.device_code)).body.error, 'access_denied');
    });

    test('expired: expired_token, pending or approved; the page says the code expired', async () => {
      const pending = await startDevice(cliTool);
      await expire(pending.device_code);
      const answer = await poll(cliTool, pending.device_code);
      assert.equal(answer.status, 400);
      assert.equal(answer.body.error, 'expired_token');
      const page = await enterCode(browser, pending.user_code);
      assert.equal(page.status, 400);
      assert.match(pageText(page.body), /expired/);

      const approved = await startDevice(cliTool);
      await approve(approved.user_code);
      await expire(approved.device_code);
      assert.equal((await poll(cliTool, approved.device_code)).body.error, 'expired_token');
    });

    test('another client’s device code: invalid_grant, and it stays usable by its own client', async () => {
      const started = await startDevice(cliTool);
      const stolen = await poll(tvApp, started.device_code);
      assert.equal(stolen.status, 400);
      assert.equal(stolen.body.error, 'invalid_grant');
      assert.match(stolen.body.error_description, /another client/);
      await approve(started.user_code);
      assert.equal((await poll(tvApp, started.device_code)).body.error, 'invalid_grant', 'approved, still not the other client’s');
      assert.equal((await poll(cliTool, started.device_code)).status, 200);
    });

    test('bad requests: 4xx with an RFC error code and a description, never a 500', async () => {
      const cases: Array<[string, Promise<RawResponse>, number, string]> = [
        [
          'no client',
          readResponse(await fetch(`${server.baseUrl}/oauth2/device_authorization`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'scope=openid' })),
          401,
          'invalid_client',
        ],
        ['unknown client', requestDeviceAuthorization({ clientId: 'no-such-client', clientSecret: null }), 401, 'invalid_client'],
        ['wrong secret', requestDeviceAuthorization({ clientId: tvApp.clientId, clientSecret: 'latch_cs_wrong' }), 401, 'invalid_client'],
        ['confidential without its secret', requestDeviceAuthorization({ clientId: tvApp.clientId, clientSecret: null }), 401, 'invalid_client'],
        ['client not registered for the grant', requestDeviceAuthorization(webApp), 400, 'unauthorized_client'],
        ['unknown scope', requestDeviceAuthorization(cliTool, { scope: 'admin' }), 400, 'invalid_scope'],
        ['offline_access without refresh_token', requestDeviceAuthorization(tvApp, { scope: 'openid offline_access' }), 400, 'invalid_scope'],
        [
          'scope twice',
          readResponse(
            await fetch(`${server.baseUrl}/oauth2/device_authorization`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: `client_id=${cliTool.clientId}&scope=openid&scope=profile`,
            }),
          ),
          400,
          'invalid_request',
        ],
        [
          'JSON body',
          readResponse(
            await fetch(`${server.baseUrl}/oauth2/device_authorization`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: cliTool.clientId }) }),
          ),
          400,
          'invalid_request',
        ],
        ['GET', readResponse(await fetch(`${server.baseUrl}/oauth2/device_authorization`)), 405, 'invalid_request'],
        ['token: no device_code', postToken(server.baseUrl, { form: { grant_type: DEVICE_GRANT, client_id: cliTool.clientId } }), 400, 'invalid_request'],
        ['token: unknown device_code', poll(cliTool, 'latch_dc_0000000000000000000000000000000000000000000000000000'), 400, 'invalid_grant'],
        ['token: not a device code', poll(cliTool, 'x'.repeat(600)), 400, 'invalid_request'],
        ['token: client not registered for the grant', poll(webApp, 'latch_dc_whatever'), 400, 'unauthorized_client'],
      ];
      for (const [name, pending, status, error] of cases) {
        const response = await pending;
        assert.equal(response.status, status, `${name}: ${response.text}`);
        assert.equal(response.body.error, error, name);
        assert.ok(typeof response.body.error_description === 'string' && response.body.error_description.length > 0, `${name}: a description`);
      }
    });

    test('the /device page: sign-in first, CSRF on every form, malformed and unknown codes told apart, guesses limited', async () => {
      const anonymous = await fetch(`${server.baseUrl}/device`, { redirect: 'manual' });
      assert.equal(anonymous.status, 302);
      assert.equal(anonymous.headers.get('location'), `/login?return_to=${encodeURIComponent('/device')}`);
      // Arbitrary text in the link is not put back in the field.
      const odd = await browser.request(`${server.baseUrl}/device?user_code=${encodeURIComponent('<b>hello</b>')}`);
      assert.equal(odd.status, 200);
      assert.ok(!odd.body.includes('hello'));

      for (const path of ['/device', '/device/decision']) {
        const forged = await browser.request(`${server.baseUrl}${path}`, { form: { user_code: 'BCDF-GHJK', decision: 'allow' } });
        assert.equal(forged.status, 403, `${path} without a CSRF token`);
      }

      const { user, password } = await server.createUser();
      const as = await signedInBrowser(server, user.email, password);
      const malformed = await enterCode(as, 'AEIOU-123');
      assert.equal(malformed.status, 400);
      assert.match(pageText(malformed.body), /eight letters/);

      const started = await startDevice(cliTool);
      // A code no device is waiting for, changed in one letter from a real one.
      const wrong = started.user_code[0] === 'B' ? `C${started.user_code.slice(1)}` : `B${started.user_code.slice(1)}`;
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        const page = await enterCode(as, wrong);
        assert.equal(page.status, 400, `attempt ${attempt}`);
        assert.match(pageText(page.body), /No device is waiting for this code/);
      }
      const limited = await enterCode(as, started.user_code);
      assert.equal(limited.status, 429, 'past the limit even the right code is refused');
      assert.match(pageText(limited.body), /Too many wrong codes/);
      // Another account is not held back by this one's guesses.
      await approve(started.user_code);
      assert.equal((await poll(cliTool, started.device_code)).status, 200);
    });

    test('RFC 8628 §5.1: codes posted straight to /device/decision are guesses too, limited as on the code page', async () => {
      const { user, password } = await server.createUser();
      const as = await signedInBrowser(server, user.email, password);
      const page = await as.request(`${server.baseUrl}/device`);
      const csrfToken = inputValue(page.body, '_csrf');
      const decideDirectly = (userCode: string, decision: 'allow' | 'deny') =>
        as.request(`${server.baseUrl}/device/decision`, { form: { _csrf: csrfToken, user_code: userCode, decision } });

      const started = await startDevice(cliTool);
      const wrong = started.user_code[0] === 'B' ? `C${started.user_code.slice(1)}` : `B${started.user_code.slice(1)}`;
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        const guess = await decideDirectly(wrong, 'deny');
        assert.equal(guess.status, 400, `attempt ${attempt}`);
        assert.match(pageText(guess.body), /No device is waiting for this code/);
      }
      const limited = await decideDirectly(started.user_code, 'allow');
      assert.equal(limited.status, 429, 'past the limit even the right code is refused at the decision');
      assert.match(pageText(limited.body), /Too many wrong codes/);
      assert.equal((await enterCode(as, started.user_code)).status, 429, 'and on the code page: one count for both');
      // Nothing was decided for the device: its own person can still allow it.
      const polled = await poll(cliTool, started.device_code);
      assert.equal(polled.body.error, 'authorization_pending');
      await approve(started.user_code);
      await sleep(WAIT_MS);
      assert.equal((await poll(cliTool, started.device_code)).status, 200);
    });

    test('an app that requires a second factor: refused without one, a step-up with one, then the tokens say so', async () => {
      const bank = await registerClientOfAnyKind(
        server.storage,
        { name: 'Bank TV', redirectUris: [], isPublic: true, grantTypes: [DEVICE_GRANT], requireMfa: true },
        { developmentMode: false },
      );
      const bankTv: DeviceClient = { clientId: bank.client.clientId, clientSecret: null };

      const refused = await enterCode(browser, (await startDevice(bankTv)).user_code);
      assert.equal(refused.status, 403);
      assert.match(pageText(refused.body), /Bank TV requires two-step verification, and your account has none yet/);

      // Signed in with a password only, then an authenticator app added (from another browser): the code asks for it.
      const { user, password } = await server.createUser();
      const tv = await signedInBrowser(server, user.email, password);
      const { app } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
      const started = await startDevice(bankTv, 'openid');
      const stepUp = await enterCode(tv, started.user_code);
      assert.equal(stepUp.status, 303);
      assert.equal(stepUp.headers.get('location'), '/login/two-step');
      const back = await submitSecondFactor(server, tv, await app.freshCode());
      assert.equal(back.status, 303);
      assert.equal(back.headers.get('location'), `/device?user_code=${started.user_code}`);
      const consent = await enterCode(tv, started.user_code);
      assert.equal(consent.status, 200);
      assert.equal((await decide(tv, consent, 'allow')).status, 200);
      const tokens = await poll(bankTv, started.device_code);
      assert.equal(tokens.status, 200, tokens.text);
      const claims = decodeJwtPayload(tokens.body.id_token);
      assert.ok((claims.amr as string[]).includes('otp'), `amr ${JSON.stringify(claims.amr)}`);
    });

    test('oauth4webapi drives the device side (a confidential client with Basic authentication)', async () => {
      const issuer = new URL(server.config.issuer);
      const insecure = { [oauth.allowInsecureRequests]: true } as const;
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
      const client: oauth.Client = { client_id: tvApp.clientId };
      const clientAuth = oauth.ClientSecretBasic(tvApp.clientSecret!);
      const started = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, clientAuth, { scope: 'openid profile' }, insecure));
      assert.match(started.user_code, USER_CODE);
      await assert.rejects(
        oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, clientAuth, started.device_code, insecure)),
        (error: unknown) => error instanceof oauth.ResponseBodyError && error.error === 'authorization_pending',
      );
      await approve(started.user_code);
      await sleep((started.interval ?? 5) * 1000 + 150);
      const result = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, clientAuth, started.device_code, insecure));
      const claims = oauth.getValidatedIdTokenClaims(result)!;
      const userinfo = await oauth.processUserInfoResponse(as, client, claims.sub, await oauth.userInfoRequest(as, client, result.access_token, insecure));
      assert.equal(userinfo.email, person.email);
    });

    test('the approval is the account’s consent to the app; withdrawing it ends the device’s refresh token', async () => {
      const started = await startDevice(cliTool, 'openid offline_access');
      await approve(started.user_code);
      const tokens = await poll(cliTool, started.device_code);
      assert.equal(tokens.status, 200);
      const consents = await server.storage.consents.listByUser((await server.storage.users.findByEmail(person.email))!.id);
      assert.ok(consents.some((consent) => consent.clientId === cliTool.clientId));
      await server.storage.tokens.revokeByUserAndClient((await server.storage.users.findByEmail(person.email))!.id, cliTool.clientId, new Date());
      const refreshed = await postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: cliTool.clientId } });
      assert.equal(refreshed.body.error, 'invalid_grant');
    });
  });
}
