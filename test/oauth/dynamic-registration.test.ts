/**
 * Dynamic Client Registration (issue 18 item 3; RFC 7591, RFC 7592; docs/protocol-decisions.md "Dynamic client
 * registration"): LATCH_REGISTRATION off (403), token (initial access token) and open (public clients only); the
 * registration access token reads, replaces and deletes. Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { postToken, readResponse, type TestUser } from '../helpers/code-fixtures.js';
import { countRows, findRows } from '../helpers/database-snapshot.js';
import { authorize, authorizeUrl, pkcePair, signIn } from '../helpers/oauth-flow.js';
import { pageText } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { deleteExpiredRecords } from '../../src/server.js';

const INITIAL_TOKEN = 'test-initial-access-token-0123456789abcdef';

async function register(server: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return readResponse(await fetch(`${server.baseUrl}/oauth2/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }));
}

async function manage(server: TestServer, uri: string, method: 'GET' | 'PUT' | 'DELETE', token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return readResponse(await fetch(uri.replace(server.config.issuer, server.baseUrl), { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) }));
}

const spaMetadata = { client_name: 'Agent Desktop', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] };

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`dynamic client registration (${database})`, () => {
    describe('LATCH_REGISTRATION=off (the default)', () => {
      let server: TestServer;
      before(async () => (server = await startTestServer({ database })));
      after(async () => server.stop());

      test('POST /oauth2/register is refused with 403 and a clear error; discovery lists no registration_endpoint', async () => {
        const response = await register(server, spaMetadata);
        assert.equal(response.status, 403);
        assert.equal(response.body.error, 'access_denied');
        assert.match(response.body.error_description, /registration is off.*LATCH_REGISTRATION=off/);
        const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
        assert.ok(!('registration_endpoint' in metadata));
      });
    });

    describe('LATCH_REGISTRATION=open', () => {
      let server: TestServer;
      let user: TestUser;
      before(async () => {
        server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'open', LATCH_REGISTRATION_UNUSED_SECONDS: '7200' } });
        const created = await server.createUser();
        user = { email: created.user.email, password: created.password };
      });
      after(async () => server.stop());

      test('a public client registers (201, RFC 7591 §3.2.1), signs a user in with PKCE, and is marked as registered dynamically', async () => {
        const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
        assert.equal(metadata.registration_endpoint, `${server.config.issuer}/oauth2/register`);
        const response = await register(server, { ...spaMetadata, software_id: 'ignored-unknown-field' });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        const body = response.body;
        assert.ok(body.client_id);
        assert.ok(!('client_secret' in body), 'no secret for token_endpoint_auth_method none');
        assert.equal(body.token_endpoint_auth_method, 'none');
        assert.deepEqual(body.grant_types, ['authorization_code', 'refresh_token']);
        assert.deepEqual(body.response_types, ['code']);
        assert.deepEqual(body.redirect_uris, spaMetadata.redirect_uris);
        assert.equal(body.client_name, 'Agent Desktop');
        assert.equal(typeof body.client_id_issued_at, 'number');
        assert.match(body.registration_access_token, /^latch_rat_/);
        assert.equal(body.registration_client_uri, `${server.config.issuer}/oauth2/register/${body.client_id}`);
        const [row] = await findRows(server, 'clients', { client_id: body.client_id });
        assert.equal(row?.registered_dynamically, 1);
        assert.notEqual(row?.registration_access_token_hash, body.registration_access_token, 'only its hash is stored');

        const pkce = pkcePair();
        const redirect = await authorize(
          new TestBrowser(),
          server.baseUrl,
          { response_type: 'code', client_id: body.client_id, redirect_uri: spaMetadata.redirect_uris[0], code_challenge: pkce.challenge, code_challenge_method: 'S256' },
          user,
        );
        const tokens = await postToken(server.baseUrl, {
          form: { grant_type: 'authorization_code', code: redirect.searchParams.get('code') ?? '', code_verifier: pkce.verifier, client_id: body.client_id },
        });
        assert.equal(tokens.status, 200, tokens.text);
      });

      test('policy_uri and tos_uri (OIDC Registration 1.0 §2) are kept, echoed, and must be https', async () => {
        const response = await register(server, { ...spaMetadata, policy_uri: 'https://agent.example.com/privacy', tos_uri: 'https://agent.example.com/terms' });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.policy_uri, 'https://agent.example.com/privacy');
        assert.equal(response.body.tos_uri, 'https://agent.example.com/terms');
        const stored = await server.storage.clients.findById(response.body.client_id);
        assert.deepEqual([stored?.policyUrl, stored?.termsUrl], ['https://agent.example.com/privacy', 'https://agent.example.com/terms']);
        const refused = await register(server, { ...spaMetadata, tos_uri: 'javascript:alert(1)' });
        assert.equal(refused.status, 400);
        assert.equal(refused.body.error, 'invalid_client_metadata');
        assert.match(refused.body.error_description, /tos_uri must start with https/);
      });

      test('open registration is for public clients only: a confidential one is invalid_client_metadata', async () => {
        const response = await register(server, { ...spaMetadata, token_endpoint_auth_method: 'client_secret_post' });
        assert.equal(response.status, 400);
        assert.equal(response.body.error, 'invalid_client_metadata');
        assert.match(response.body.error_description, /public clients only/);
      });

      test('bad metadata gets the RFC 7591 §3.2.2 codes, saying what to change', async () => {
        const cases: Array<[unknown, string, RegExp]> = [
          [{ ...spaMetadata, redirect_uris: [] }, 'invalid_redirect_uri', /redirect_uris is required/],
          [{ ...spaMetadata, redirect_uris: ['http://evil.example.com/cb'] }, 'invalid_redirect_uri', /non-loopback/],
          [{ ...spaMetadata, redirect_uris: ['https://app.example.com/cb#frag'] }, 'invalid_redirect_uri', /fragment/],
          [{ ...spaMetadata, grant_types: ['client_credentials'] }, 'invalid_client_metadata', /client_credentials is not available/],
          [{ ...spaMetadata, grant_types: ['implicit'] }, 'invalid_client_metadata', /implicit is not supported/],
          [{ ...spaMetadata, response_types: ['token'] }, 'invalid_client_metadata', /response_types must be code only/],
          [{ ...spaMetadata, token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata', /private_key_jwt is not supported/],
          [{ ...spaMetadata, registration_access_token: 'mine' }, 'invalid_client_metadata', /set by Latch/],
          [['not', 'an', 'object'], 'invalid_client_metadata', /JSON object/],
        ];
        for (const [body, code, description] of cases) {
          const response = await register(server, body);
          assert.equal(response.status, 400, JSON.stringify(body));
          assert.equal(response.body.error, code, JSON.stringify(body));
          assert.match(response.body.error_description, description);
        }
      });

      test('a JSON body that does not parse says what is wrong with it: empty, not JSON, or with a __proto__ member', async () => {
        const clientsBefore = await countRows(server, 'clients');
        const cases: Array<[string, RegExp]> = [
          ['', /The request body is empty; send a JSON object/],
          ['{"redirect_uris":', /not valid JSON/],
          ['{"client_name":"x",}', /not valid JSON/],
          [`{"__proto__":{"token_endpoint_auth_method":"none"},"redirect_uris":["http://127.0.0.1:33418/callback"]}`, /__proto__/],
        ];
        for (const [body, description] of cases) {
          const response = await readResponse(await fetch(`${server.baseUrl}/oauth2/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
          assert.equal(response.status, 400, body);
          assert.equal(response.body.error, 'invalid_request', body);
          assert.match(response.body.error_description, description, body);
        }
        assert.equal(await countRows(server, 'clients'), clientsBefore);
      });

      test('RFC 7591 §3.1, RFC 7592 §2.2: the metadata is JSON; a form, multipart or text body is invalid_request saying to send application/json, and changes nothing', async () => {
        const device = 'urn:ietf:params:oauth:grant-type:device_code';
        const created = (await register(server, spaMetadata)).body;
        const clientsBefore = await countRows(server, 'clients');
        // A form with a repeated grant_types reads as a list: this once registered a device client.
        const form = new URLSearchParams([['client_name', 'Form App'], ['token_endpoint_auth_method', 'none'], ['grant_types', device], ['grant_types', 'refresh_token']]);
        const multipart = new FormData();
        multipart.append('client_name', 'Multipart App');
        const bodies: Array<[string, Record<string, string>, BodyInit | undefined]> = [
          ['form', { 'content-type': 'application/x-www-form-urlencoded' }, form.toString()],
          ['multipart', {}, multipart],
          ['text', { 'content-type': 'text/plain' }, JSON.stringify(spaMetadata)],
          ['no content type', {}, undefined],
        ];
        for (const [name, headers, body] of bodies) {
          for (const [method, url, token] of [['POST', `${server.baseUrl}/oauth2/register`, undefined], ['PUT', created.registration_client_uri.replace(server.config.issuer, server.baseUrl), created.registration_access_token]] as const) {
            const response = await readResponse(await fetch(url, { method, headers: { ...headers, ...(token && { authorization: `Bearer ${token}` }) }, ...(body !== undefined && { body }) }));
            assert.equal(response.status, 400, `${method} ${name}: ${response.text}`);
            assert.equal(response.body.error, 'invalid_request', `${method} ${name}`);
            assert.match(response.body.error_description, /JSON object with Content-Type: application\/json/, `${method} ${name}`);
            assert.doesNotMatch(response.body.error_description, /send application\/x-www-form-urlencoded or multipart/, `${method} ${name}: never the token endpoint's advice`);
          }
        }
        assert.equal(await countRows(server, 'clients'), clientsBefore, 'nothing registered');
        const read = await manage(server, created.registration_client_uri, 'GET', created.registration_access_token);
        assert.equal(read.body.client_name, spaMetadata.client_name, 'nothing replaced');
      });

      test('RFC 7592 §2.2: a replacement is held to the rules of a registration: a client_name too long is invalid_client_metadata, and the registration stays as it was', async () => {
        const created = (await register(server, spaMetadata)).body;
        const longName = 'N'.repeat(101);
        assert.equal((await register(server, { ...spaMetadata, client_name: longName })).body.error, 'invalid_client_metadata', 'as at registration');
        const replaced = await manage(server, created.registration_client_uri, 'PUT', created.registration_access_token, { ...spaMetadata, client_id: created.client_id, client_name: longName });
        assert.equal(replaced.status, 400, replaced.text);
        assert.equal(replaced.body.error, 'invalid_client_metadata');
        assert.match(replaced.body.error_description, /at most 100 characters/);
        const read = await manage(server, created.registration_client_uri, 'GET', created.registration_access_token);
        assert.equal(read.body.client_name, spaMetadata.client_name);
      });

      test('a client_name with a text-direction override or a control character is invalid_client_metadata: the consent page must show the name as stored', async () => {
        const clientsBefore = await countRows(server, 'clients');
        // "\u202e" turns "Bank Example" (as stored: "Example knaB" after it) into another name on the screen.
        for (const name of ['Example \u202eknaB', 'Example\u2066 App', 'Line\nBreak', 'Bell\u0007']) {
          const response = await register(server, { ...spaMetadata, client_name: name });
          assert.equal(response.status, 400, `${JSON.stringify(name)}: ${response.text}`);
          assert.equal(response.body.error, 'invalid_client_metadata');
          assert.match(response.body.error_description, /control characters or invisible text-direction marks/);
        }
        assert.equal(await countRows(server, 'clients'), clientsBefore, 'nothing registered');
        // Letters of every script, accents and emoji stay welcome.
        assert.equal((await register(server, { ...spaMetadata, client_name: 'Ünïcode 日本 مرحبا 🚀' })).status, 201);
      });

      test('RFC 7592: the registration access token reads, replaces and deletes; a wrong one is 401 invalid_token', async () => {
        const created = (await register(server, spaMetadata)).body;
        const uri = created.registration_client_uri as string;
        const read = await manage(server, uri, 'GET', created.registration_access_token);
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.client_id, created.client_id);
        assert.ok(!('registration_access_token' in read.body));

        const wrong = await manage(server, uri, 'GET', 'latch_rat_wrong');
        assert.equal(wrong.status, 401);
        assert.match(wrong.headers.get('www-authenticate') ?? '', /invalid_token/);
        const otherClient = (await register(server, spaMetadata)).body;
        assert.equal((await manage(server, uri, 'GET', otherClient.registration_access_token)).status, 401, "another client's token");
        assert.equal((await manage(server, `${server.config.issuer}/oauth2/register/nope`, 'GET', created.registration_access_token)).status, 401, 'unknown client');

        const replaced = await manage(server, uri, 'PUT', created.registration_access_token, {
          client_id: created.client_id,
          client_name: 'Agent Desktop 2',
          redirect_uris: ['http://127.0.0.1:33418/callback', 'http://127.0.0.1:33418/other'],
          token_endpoint_auth_method: 'none',
        });
        assert.equal(replaced.status, 200, replaced.text);
        assert.equal(replaced.body.client_name, 'Agent Desktop 2');
        assert.equal(replaced.body.redirect_uris.length, 2);
        assert.deepEqual(replaced.body.grant_types, ['authorization_code'], 'omitted fields take their defaults (RFC 7592 §2.2)');
        const kindChange = await manage(server, uri, 'PUT', created.registration_access_token, { ...spaMetadata, client_id: created.client_id, token_endpoint_auth_method: 'client_secret_basic' });
        assert.equal(kindChange.body.error, 'invalid_client_metadata');
        const noId = await manage(server, uri, 'PUT', created.registration_access_token, spaMetadata);
        assert.equal(noId.body.error, 'invalid_client_metadata');

        const deleted = await manage(server, uri, 'DELETE', created.registration_access_token);
        assert.equal(deleted.status, 204);
        assert.equal(await server.storage.clients.findById(created.client_id), null);
        assert.equal((await manage(server, uri, 'GET', created.registration_access_token)).status, 401);
      });

      test('the consent page marks a dynamically registered app as unverified and names the redirect host; a registered one is not marked', async () => {
        const created = (await register(server, { ...spaMetadata, client_name: 'Self Registered' })).body;
        const consentText = async (clientId: string, redirectUri: string) => {
          const browser = new TestBrowser();
          const pkce = pkcePair();
          let page = await browser.follow(
            authorizeUrl(server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce.challenge, code_challenge_method: 'S256' }),
            server.baseUrl,
          );
          page = await signIn(browser, server.baseUrl, page, user.email, user.password);
          assert.equal(page.status, 200);
          return pageText(page.body);
        };
        const text = await consentText(created.client_id, spaMetadata.redirect_uris[0]!);
        assert.match(text, /Unverified app\. Self Registered registered itself/);
        assert.match(text, /trust 127\.0\.0\.1:33418/);
        const known = await server.createClient({ name: 'Known App' });
        assert.doesNotMatch(await consentText(known.clientId, known.redirectUris[0]!), /Unverified app/);
      });

      test('a self-registered client without a token exchange in LATCH_REGISTRATION_UNUSED_SECONDS is removed in batches; one that exchanged a code stays after its tokens are gone', async () => {
        // Three never used (one of them consented to, but its code never exchanged), one used once.
        const unused = [];
        for (const name of ['Never Used 1', 'Never Used 2']) unused.push((await register(server, { ...spaMetadata, client_name: name })).body);
        const consentedOnly = (await register(server, { ...spaMetadata, client_name: 'Consented Only' })).body;
        unused.push(consentedOnly);
        const used = (await register(server, { ...spaMetadata, client_name: 'Used Once' })).body;
        const browser = new TestBrowser();
        const redirectUri = spaMetadata.redirect_uris[0]!;
        await authorize(browser, server.baseUrl, { response_type: 'code', client_id: consentedOnly.client_id, redirect_uri: redirectUri, code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }, user);
        const pkce = pkcePair();
        const redirect = await authorize(browser, server.baseUrl, { response_type: 'code', client_id: used.client_id, redirect_uri: redirectUri, code_challenge: pkce.challenge, code_challenge_method: 'S256' }, user);
        const exchanged = await postToken(server.baseUrl, {
          form: { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, redirect_uri: redirectUri, client_id: used.client_id, code_verifier: pkce.verifier },
        });
        assert.equal(exchanged.status, 200, exchanged.text);
        const [usedRow] = await findRows(server, 'clients', { client_id: used.client_id });
        assert.notEqual(usedRow?.first_used_at ?? null, null, 'the first token exchange is recorded');
        const [unusedRow] = await findRows(server, 'clients', { client_id: consentedOnly.client_id });
        assert.equal(unusedRow?.first_used_at, null, 'a consent alone is no use');
        const operators = await server.createClient({ name: 'Operator App' });

        const limit = server.config.limits.unusedRegistrationSeconds;
        assert.equal(limit, 7200, 'LATCH_REGISTRATION_UNUSED_SECONDS is read');
        await deleteExpiredRecords(server.storage, server.config, new Date(Date.now() + (limit - 60) * 1000), 1);
        for (const client of unused) assert.ok(await server.storage.clients.findById(client.client_id), 'not before the stated time');
        // Long after: every token of the used client has expired and gone (a year, past the refresh lifetime).
        await deleteExpiredRecords(server.storage, server.config, new Date(Date.now() + 400 * 86400 * 1000), 1);
        for (const client of unused) assert.equal(await server.storage.clients.findById(client.client_id), null, `${client.client_name} is removed`);
        assert.deepEqual(await findRows(server, 'access_tokens', { client_id: used.client_id }), [], 'its tokens are gone');
        assert.ok(await server.storage.clients.findById(used.client_id), 'it had a token exchange');
        assert.ok(await server.storage.clients.findById(operators.clientId), 'registered by an operator');
      });

      test('a command-line tool registers itself for the device grant alone (RFC 8628): no redirect URIs, no response types, and it starts a device authorization', async () => {
        const device = 'urn:ietf:params:oauth:grant-type:device_code';
        const response = await register(server, { client_name: 'Agent CLI', token_endpoint_auth_method: 'none', grant_types: [device, 'refresh_token'] });
        assert.equal(response.status, 201, response.text);
        assert.deepEqual(response.body.redirect_uris, []);
        assert.deepEqual(response.body.response_types, []);
        assert.deepEqual(response.body.grant_types, [device, 'refresh_token']);
        const started = await readResponse(
          await fetch(`${server.baseUrl}/oauth2/device_authorization`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ client_id: response.body.client_id, scope: 'openid profile' }).toString(),
          }),
        );
        assert.equal(started.status, 200, started.text);
        assert.match(started.body.device_code, /^latch_dc_/);

        const cases: Array<[unknown, RegExp]> = [
          [{ token_endpoint_auth_method: 'none', grant_types: ['refresh_token'] }, /grant_types must include authorization_code or urn:ietf:params:oauth:grant-type:device_code/],
          [{ token_endpoint_auth_method: 'none', grant_types: [device], response_types: ['code'] }, /response_types must be empty/],
        ];
        for (const [body, description] of cases) {
          const refused = await register(server, body);
          assert.equal(refused.status, 400, JSON.stringify(body));
          assert.equal(refused.body.error, 'invalid_client_metadata');
          assert.match(refused.body.error_description, description);
        }
      });

      test('open registration is limited per address: after 20 an hour, 429 with Retry-After', async () => {
        let response;
        for (let i = 0; i < 25; i++) {
          response = await register(server, spaMetadata);
          if (response.status === 429) break;
          assert.equal(response.status, 201, response.text);
        }
        assert.equal(response?.status, 429);
        assert.equal(response?.headers.get('retry-after'), '3600');
        assert.match(response?.body.error_description, /Too many registrations from this address/);
      });
    });

    describe('LATCH_REGISTRATION=open with LATCH_REGISTRATION_MAX_UNUSED', () => {
      let server: TestServer;
      before(async () => (server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'open', LATCH_REGISTRATION_MAX_UNUSED: '2' } })));
      after(async () => server.stop());

      test('while as many self-registered clients as the cap have had no token exchange, open registration answers 429; one used frees a place', async () => {
        const first = await register(server, spaMetadata);
        const second = await register(server, spaMetadata);
        assert.deepEqual([first.status, second.status], [201, 201]);
        const refused = await register(server, spaMetadata);
        assert.equal(refused.status, 429);
        assert.equal(refused.body.error, 'temporarily_unavailable');
        assert.ok(Number(refused.headers.get('retry-after')) > 0);
        assert.match(refused.body.error_description, /self-registered apps waiting for their first sign-in.*\(2\)/);
        assert.equal(await server.storage.clients.countUnusedRegistrations(10), 2, 'the refused one was not stored');
        assert.equal(await server.storage.clients.markUsed(first.body.client_id, new Date()), true);
        assert.equal((await register(server, spaMetadata)).status, 201);
      });
    });

    describe('LATCH_REGISTRATION=token', () => {
      let server: TestServer;
      before(async () => (server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'token', LATCH_REGISTRATION_TOKEN: INITIAL_TOKEN } })));
      after(async () => server.stop());

      test('the initial access token is required; with it a confidential client registers and gets its secret once', async () => {
        const confidential = { client_name: 'Hosted Connector', redirect_uris: ['https://connector.example.com/callback'], token_endpoint_auth_method: 'client_secret_post' };
        const without = await register(server, confidential);
        assert.equal(without.status, 401);
        assert.match(without.headers.get('www-authenticate') ?? '', /^Bearer/);
        assert.match(without.body.error_description, /needs an initial access token from its operator: send it as Authorization: Bearer <initial access token>/);
        const wrong = await register(server, confidential, { authorization: 'Bearer not-the-token' });
        assert.equal(wrong.status, 401);
        assert.equal(wrong.body.error, 'invalid_token');
        const response = await register(server, confidential, { authorization: `Bearer ${INITIAL_TOKEN}` });
        assert.equal(response.status, 201, response.text);
        assert.match(response.body.client_secret, /^latch_cs_/);
        assert.equal(response.body.client_secret_expires_at, 0);
        assert.equal(response.body.token_endpoint_auth_method, 'client_secret_basic');
        const tokenRequest = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: response.body.client_id, client_secret: response.body.client_secret } });
        assert.equal(tokenRequest.body.error, 'invalid_grant', 'the secret authenticates');
      });
    });

    describe('LATCH_REGISTRATION=token with tokens made by `latch registration-token create`', () => {
      let server: TestServer;
      before(async () => (server = await startTestServer({ database, env: { LATCH_REGISTRATION: 'token' } })));
      after(async () => server.stop());
      const cli = (args: string[]) =>
        runLatchCli(['registration-token', ...args], {
          LATCH_DATABASE_URL: server.config.databaseUrl,
          LATCH_SECRET: server.config.secret,
          LATCH_REGISTRATION: 'token',
          ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
        });
      const app = { client_name: 'Partner App', redirect_uris: ['https://partner.example.com/callback'], token_endpoint_auth_method: 'none' };

      test('a token from the CLI registers apps until it is revoked; it is shown once and stored only as a hash', async () => {
        const created = await cli(['create', '--note', 'for the partner team', '--expires-in-days', '7', '--json']);
        assert.equal(created.code, 0, created.stderr);
        const { id, token, expires_at: expiresAt } = JSON.parse(created.stdout);
        assert.match(token, /^latch_iat_[A-Za-z0-9_-]{43}$/);
        assert.ok(Math.abs(Date.parse(expiresAt) - (Date.now() + 7 * 86400_000)) < 60_000);
        assert.match(created.stderr, /shown only now/);
        const [row] = await findRows(server, 'registration_tokens', { id });
        assert.ok(row && row.token_hash !== token && !JSON.stringify(row).includes(token), 'only the hash is stored');

        assert.equal((await register(server, app, { authorization: `Bearer ${token}` })).status, 201);
        const listed = JSON.parse((await cli(['list', '--json'])).stdout);
        assert.deepEqual(listed.map((t: { id: string; state: string; note: string }) => [t.id, t.state, t.note]), [[id, 'live', 'for the partner team']]);
        assert.ok(!JSON.stringify(listed).includes(token), 'the list never shows a token');

        const revoked = await cli(['revoke', id]);
        assert.equal(revoked.code, 0, revoked.stderr);
        const refused = await register(server, app, { authorization: `Bearer ${token}` });
        assert.equal(refused.status, 401);
        assert.match(refused.body.error_description, /wrong, expired or revoked/);
        assert.equal(JSON.parse((await cli(['list', '--json'])).stdout)[0].state, 'revoked');
        assert.equal((await cli(['revoke', id])).code, 2, 'a revoked token cannot be revoked again');
      });

      test('an expired token is refused', async () => {
        const token = 'latch_iat_' + 'E'.repeat(43);
        const { hashSecret } = await import('../../src/crypto/secrets.js');
        await server.storage.registrationTokens.insert({ id: 'rt_expired', tokenHash: hashSecret(token), note: 'old', createdAt: new Date(Date.now() - 2 * 86400_000), expiresAt: new Date(Date.now() - 1000) });
        const refused = await register(server, app, { authorization: `Bearer ${token}` });
        assert.equal(refused.status, 401);
        assert.match(refused.body.error_description, /wrong, expired or revoked/);
      });

      // The command's refusals do not depend on the database: checked once, to keep the suite short.
      test('bad options are refused in words, with exit code 2', { skip: database === 'postgres' ? 'checked on sqlite' : false }, async () => {
        for (const [args, message] of [
          [['create', '--expires-in-days', '0'], /--expires-in-days must be a whole number of days from 1 to 3650/],
          [['create', '--expires-in-days', 'soon'], /--expires-in-days must be a whole number/],
          [['revoke'], /needs an ID/],
          [['frobnicate'], /Unknown command: latch registration-token frobnicate/],
        ] as const) {
          const result = await cli([...args]);
          assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
          assert.match(result.stderr, message);
        }
      });
    });
  });
}
