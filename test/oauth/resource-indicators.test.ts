/**
 * Resource indicators (RFC 8707) and JWT access tokens (RFC 9068), issue 18 item 5; README "APIs (resource
 * servers)": APIs registered with `latch resource create`, `resource` at the authorization and token requests,
 * invalid_target for malformed, unknown or unauthorized ones, scopes limited to what the API registered, the consent
 * page naming the API, JWT access tokens verified with the JWKS, introspection and revocation of them, userinfo
 * refusing them, refresh narrowing to one of the grant's resources, and requests without resource unchanged.
 * Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { parse as parseHtml } from 'node-html-parser';
import type { Kysely } from 'kysely';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { deleteExpiredRecords } from '../../src/server.js';
import { computeAtHash } from '../../src/oauth/tokens/id-token.js';
import { inputValue, pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { callUserinfo, postToken, type RawResponse, type TestUser } from '../helpers/code-fixtures.js';
import { decide, pkcePair, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postCredentials, postIntrospect, postRevoke } from '../helpers/token-management.js';

const NOTES = 'https://notes.example.com/api';
const CALENDAR = 'https://calendar.example.com/';
const REDIRECT = 'http://127.0.0.1:9999/callback';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`resource indicators and JWT access tokens (${database})`, () => {
    let server: TestServer;
    let client: Awaited<ReturnType<TestServer['createClient']>>;
    let user: TestUser;
    let userId: number;
    const browser = new TestBrowser();

    function cli(args: string[]) {
      return runLatchCli(args, {
        LATCH_DATABASE_URL: server.config.databaseUrl,
        LATCH_SECRET: server.config.secret,
        ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
      });
    }

    before(async () => {
      server = await startTestServer({ database });
      client = await server.createClient({ name: 'Notes Client', redirectUris: [REDIRECT] });
      const created = await server.createUser();
      user = { email: created.user.email, password: created.password };
      userId = created.user.id;
      for (const args of [
        ['--identifier', NOTES, '--scope', 'notes:read', '--scope', 'notes:write', '--name', 'Notes API'],
        ['--identifier', CALENDAR, '--scope', 'calendar:read'],
      ]) {
        const result = await cli(['resource', 'create', ...args]);
        assert.equal(result.code, 0, result.stderr);
      }
    });
    after(async () => server.stop());

    /** The authorization request with these pairs (resource may repeat), through sign-in; the consent page or the redirect. */
    async function startAuthorization(pairs: Array<[string, string]>, { askAgain = true } = {}): Promise<{ page: BrowserResponse; verifier: string }> {
      const { verifier, challenge } = pkcePair();
      const url = new URL('/oauth2/authorize', server.baseUrl);
      const all: Array<[string, string]> = [
        ['response_type', 'code'],
        ['client_id', client.clientId],
        ['redirect_uri', REDIRECT],
        ['state', 'st'],
        ['code_challenge', challenge],
        ['code_challenge_method', 'S256'],
        ...(askAgain ? [['prompt', 'consent'] as [string, string]] : []),
        ...pairs,
      ];
      for (const [name, value] of all) url.searchParams.append(name, value);
      let page = await browser.follow(url.href, server.baseUrl);
      if (page.status === 200 && page.body.includes('action="/login"')) page = await signIn(browser, server.baseUrl, page, user.email, user.password);
      return { page, verifier };
    }

    function redirectOf(page: BrowserResponse): URL {
      assert.ok(page.status === 302 || page.status === 303, `expected a redirect, got ${page.status}: ${page.body.slice(0, 300)}`);
      return new URL(page.headers.get('location') ?? '', server.baseUrl);
    }

    async function codeFor(pairs: Array<[string, string]>): Promise<{ code: string; verifier: string; consent: string }> {
      const { page, verifier } = await startAuthorization(pairs);
      assert.equal(page.status, 200, page.body.slice(0, 300));
      const redirect = redirectOf(await decide(browser, server.baseUrl, page, 'allow'));
      const code = redirect.searchParams.get('code');
      assert.ok(code, redirect.href);
      return { code, verifier, consent: page.body };
    }

    function token(pairs: Array<[string, string]>): Promise<RawResponse> {
      return postToken(server.baseUrl, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([...pairs, ...postCredentials(client)]).toString(),
      });
    }
    const exchange = (code: string, verifier: string, extra: Array<[string, string]> = []) =>
      token([['grant_type', 'authorization_code'], ['code', code], ['code_verifier', verifier], ['redirect_uri', REDIRECT], ...extra]);

    const jwks = () => createRemoteJWKSet(new URL(`${server.baseUrl}/oauth2/jwks`));

    test('latch resource create, list and its refusals: fragment, http off loopback, query, Latch scopes, no scope, duplicate', async () => {
      const listed = await cli(['resource', 'list', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const resources = JSON.parse(listed.stdout) as Array<{ identifier: string; name: string; scope: string }>;
      assert.deepEqual(
        resources.map((r) => [r.identifier, r.name, r.scope]),
        [
          [CALENDAR, 'calendar.example.com', 'calendar:read'],
          [NOTES, 'Notes API', 'notes:read notes:write'],
        ],
      );
      const refusals: Array<[string[], RegExp]> = [
        [['--identifier', 'https://api.example.com/x#frag', '--scope', 'a'], /fragment/],
        [['--identifier', 'http://api.example.com/', '--scope', 'a'], /https/],
        [['--identifier', 'https://api.example.com/?v=1', '--scope', 'a'], /query/],
        [['--identifier', 'https://API.example.com/x', '--scope', 'a'], /canonical form; register https:\/\/api\.example\.com\/x/],
        [['--identifier', 'api.example.com', '--scope', 'a'], /absolute URI/],
        [['--identifier', 'https://api.example.com/', '--scope', 'openid'], /Latch's own scopes/],
        [['--identifier', 'https://api.example.com/'], /at least one --scope/],
        [['--identifier', NOTES, '--scope', 'x'], /registered already/],
      ];
      for (const [args, message] of refusals) {
        const result = await cli(['resource', 'create', ...args]);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
        assert.match(result.stderr, message, args.join(' '));
      }
    });

    test('a code for a resource: the consent page names the API and its scopes; the token is an RFC 9068 JWT the JWKS verifies', async () => {
      const { code, verifier, consent } = await codeFor([
        ['scope', 'openid profile notes:read'],
        ['resource', NOTES],
      ]);
      const text = pageText(consent);
      assert.match(text, /Access to Notes API \(https:\/\/notes\.example\.com\/api\) with the permissions notes:read/);
      assert.doesNotMatch(text, /notes:write/, 'only the scopes asked for are named');

      const response = await exchange(code, verifier, [['resource', NOTES]]);
      assert.equal(response.status, 200, response.text);
      const accessToken = response.body.access_token as string;
      assert.equal(response.body.scope, 'notes:read', 'the response scope is the access token scope: the granted scopes the API defines');
      assert.equal(decodeProtectedHeader(accessToken).typ, 'at+jwt');
      const { payload, protectedHeader } = await jwtVerify(accessToken, jwks(), { issuer: server.baseUrl, audience: NOTES, typ: 'at+jwt' });
      assert.equal(protectedHeader.alg, 'RS256');
      assert.equal(payload.sub, String(userId));
      assert.equal(payload.client_id, client.clientId);
      assert.equal(payload.scope, 'notes:read');
      assert.equal(typeof payload.jti, 'string');
      assert.equal(payload.exp! - payload.iat!, response.body.expires_in);
      assert.equal(typeof payload.auth_time, 'number');
      // The id_token's at_hash is over the access token handed out, the JWT.
      const idToken = await jwtVerify(response.body.id_token as string, jwks(), { issuer: server.baseUrl, audience: client.clientId });
      assert.equal(idToken.payload.at_hash, computeAtHash(accessToken, 'RS256'));
      assert.equal(typeof idToken.payload.name, 'string', 'the id_token keeps the profile claims');
      assert.ok(response.body.user, 'the user object of the profile scope is still there');

      // Introspection answers for it (the client's own token), with its audience; revocation ends it.
      const introspected = await postIntrospect(server.baseUrl, { form: [['token', accessToken], ...postCredentials(client)] });
      assert.equal(introspected.status, 200, introspected.text);
      assert.equal(introspected.body.active, true);
      assert.equal(introspected.body.aud, NOTES);
      assert.equal(introspected.body.scope, 'notes:read');
      assert.equal(introspected.body.sub, String(userId));
      assert.equal(introspected.body.client_id, client.clientId);

      // Userinfo is Latch's API, not the resource's: the JWT is refused with a reason.
      const userinfo = await callUserinfo(server.baseUrl, `Bearer ${accessToken}`);
      assert.equal(userinfo.status, 401);
      assert.match(userinfo.headers.get('www-authenticate') ?? '', /invalid_token/);

      const revoked = await postRevoke(server.baseUrl, { form: [['token', accessToken], ...postCredentials(client)] });
      assert.equal(revoked.status, 200, revoked.text);
      const after = await postIntrospect(server.baseUrl, { form: [['token', accessToken], ...postCredentials(client)] });
      assert.deepEqual(after.body, { active: false });
    });

    test('introspection of a tampered or foreign JWT is inactive', async () => {
      const { code, verifier } = await codeFor([
        ['scope', 'notes:write'],
        ['resource', NOTES],
      ]);
      const response = await exchange(code, verifier, [['resource', NOTES]]);
      assert.equal(response.status, 200, response.text);
      const [header, payload, signature] = (response.body.access_token as string).split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'notes:read notes:write admin' })).toString('base64url');
      const tampered = await postIntrospect(server.baseUrl, { form: [['token', `${header}.${widened}.${signature}`], ...postCredentials(client)] });
      assert.deepEqual(tampered.body, { active: false });
      const other = await server.createClient({ name: 'Other', redirectUris: [REDIRECT] });
      const foreign = await postIntrospect(server.baseUrl, { form: [['token', response.body.access_token], ...postCredentials(other)] });
      assert.deepEqual(foreign.body, { active: false });
    });

    test('without resource, the access token stays opaque, also for a code whose authorization request named one', async () => {
      const plain = await codeFor([['scope', 'openid profile']]);
      const opaque = await exchange(plain.code, plain.verifier);
      assert.equal(opaque.status, 200, opaque.text);
      assert.match(opaque.body.access_token, /^latch_at_/);
      assert.equal(opaque.body.scope, 'openid profile');
      const userinfo = await callUserinfo(server.baseUrl, `Bearer ${opaque.body.access_token}`);
      assert.equal(userinfo.status, 200, userinfo.text);

      const named = await codeFor([
        ['scope', 'openid notes:read'],
        ['resource', NOTES],
      ]);
      const unnamed = await exchange(named.code, named.verifier);
      assert.equal(unnamed.status, 200, unnamed.text);
      assert.match(unnamed.body.access_token, /^latch_at_/);
    });

    test('invalid_target at the authorization endpoint: malformed, with a fragment, relative, or not registered (redirected with state)', async () => {
      const cases: Array<[string, RegExp]> = [
        ['https://unknown.example.com/', /not an API registered/],
        [`${NOTES}#part`, /fragment/],
        ['/api', /absolute URI/],
        ['notes', /absolute URI/],
      ];
      for (const [resource, description] of cases) {
        const { page } = await startAuthorization([
          ['scope', 'profile'],
          ['resource', resource],
        ]);
        const redirect = redirectOf(page);
        assert.equal(redirect.origin + redirect.pathname, REDIRECT);
        assert.equal(redirect.searchParams.get('error'), 'invalid_target', resource);
        assert.match(redirect.searchParams.get('error_description') ?? '', description);
        assert.equal(redirect.searchParams.get('state'), 'st');
      }
    });

    test('scopes: an API scope needs its resource, and a resource gives only the scopes it registered', async () => {
      const without = redirectOf((await startAuthorization([['scope', 'profile notes:read']])).page);
      assert.equal(without.searchParams.get('error'), 'invalid_scope');
      const other = redirectOf(
        (
          await startAuthorization([
            ['scope', 'calendar:read'],
            ['resource', NOTES],
          ])
        ).page,
      );
      assert.equal(other.searchParams.get('error'), 'invalid_scope');
      assert.match(other.searchParams.get('error_description') ?? '', /calendar:read/);
    });

    test("a consent is remembered per API: allowing one API's read does not allow another API's read", async () => {
      const photos = 'https://photos.example.com/';
      const files = 'https://files.example.com/';
      for (const identifier of [photos, files]) {
        const created = await cli(['resource', 'create', '--identifier', identifier, '--scope', 'read']);
        assert.equal(created.code, 0, created.stderr);
      }
      await codeFor([['resource', photos], ['scope', 'read']]);
      // The same API again: remembered, so straight back to the app with a code.
      const same = redirectOf((await startAuthorization([['resource', photos], ['scope', 'read']], { askAgain: false })).page);
      assert.ok(same.searchParams.get('code'), same.href);
      // Another API's scope of the same name: the person is asked, and the page names that API.
      const other = (await startAuthorization([['resource', files], ['scope', 'read']], { askAgain: false })).page;
      assert.equal(other.status, 200, other.body.slice(0, 300));
      assert.match(pageText(other.body), /files\.example\.com/);
      // Both APIs at once: the one allowed does not stand in for the other.
      const both = (await startAuthorization([['resource', photos], ['resource', files], ['scope', 'read']], { askAgain: false })).page;
      assert.equal(both.status, 200, both.body.slice(0, 300));
    });

    test('at the token endpoint: a resource the authorization did not name, two resources, or an unknown one is invalid_target, and the code stays usable', async () => {
      const { code, verifier } = await codeFor([
        ['scope', 'notes:read'],
        ['resource', NOTES],
      ]);
      const notNamed = await exchange(code, verifier, [['resource', CALENDAR]]);
      assert.equal(notNamed.status, 400);
      assert.equal(notNamed.body.error, 'invalid_target');
      assert.match(notNamed.body.error_description, /not named in the authorization request/);
      const two = await exchange(code, verifier, [
        ['resource', NOTES],
        ['resource', CALENDAR],
      ]);
      assert.equal(two.body.error, 'invalid_target');
      const unknown = await exchange(code, verifier, [['resource', 'https://unknown.example.com/']]);
      assert.equal(unknown.body.error, 'invalid_target');
      const malformed = await exchange(code, verifier, [['resource', 'https://x.example.com/#f']]);
      assert.equal(malformed.body.error, 'invalid_target');
      const ok = await exchange(code, verifier, [['resource', NOTES]]);
      assert.equal(ok.status, 200, ok.text);
    });

    test('two resources at the authorization request; refresh with resource narrows to one of them (RFC 8707 §2.2)', async () => {
      const { code, verifier, consent } = await codeFor([
        ['scope', 'offline_access notes:read calendar:read'],
        ['resource', NOTES],
        ['resource', CALENDAR],
      ]);
      const text = pageText(consent);
      assert.match(text, /Access to Notes API/);
      assert.match(text, /Access to calendar\.example\.com \(https:\/\/calendar\.example\.com\/\) with the permissions calendar:read/);
      const first = await exchange(code, verifier, [['resource', NOTES]]);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.scope, 'notes:read');
      assert.ok(first.body.refresh_token);

      const refreshed = await token([
        ['grant_type', 'refresh_token'],
        ['refresh_token', first.body.refresh_token],
        ['resource', CALENDAR],
      ]);
      assert.equal(refreshed.status, 200, refreshed.text);
      const { payload } = await jwtVerify(refreshed.body.access_token, jwks(), { issuer: server.baseUrl, audience: CALENDAR, typ: 'at+jwt' });
      assert.equal(payload.scope, 'calendar:read');
      assert.equal(refreshed.body.scope, 'calendar:read');

      // A scope narrowed to at the refresh applies too: offline_access alone leaves the API none of its scopes.
      const narrowed = await token([
        ['grant_type', 'refresh_token'],
        ['refresh_token', refreshed.body.refresh_token],
        ['resource', NOTES],
        ['scope', 'notes:read'],
      ]);
      assert.equal(narrowed.status, 200, narrowed.text);
      assert.equal(narrowed.body.scope, 'notes:read');

      const outside = await token([
        ['grant_type', 'refresh_token'],
        ['refresh_token', narrowed.body.refresh_token],
        ['resource', 'https://unknown.example.com/'],
      ]);
      assert.equal(outside.body.error, 'invalid_target');
      // Without resource, the refresh gives an opaque token as always; the refused request spent nothing.
      const opaque = await token([
        ['grant_type', 'refresh_token'],
        ['refresh_token', narrowed.body.refresh_token],
      ]);
      assert.equal(opaque.status, 200, opaque.text);
      assert.match(opaque.body.access_token, /^latch_at_/);
    });

    test('client_credentials with resource: a JWT for the API with sub = client_id and the service scopes the API defines', async () => {
      const registered = await registerClientOfAnyKind(server.storage, { name: 'Sync Service', redirectUris: [], grantTypes: ['client_credentials'], scope: ['notes:read', 'billing:run'] }, { developmentMode: false });
      const service = { clientId: registered.client.clientId, clientSecret: registered.clientSecret! };
      const ask = (pairs: Array<[string, string]>) =>
        postToken(server.baseUrl, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams([['grant_type', 'client_credentials'], ...pairs, ...postCredentials(service)]).toString(),
        });
      const response = await ask([['resource', NOTES]]);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.scope, 'notes:read');
      const { payload } = await jwtVerify(response.body.access_token, jwks(), { issuer: server.baseUrl, audience: NOTES, typ: 'at+jwt' });
      assert.equal(payload.sub, service.clientId, 'RFC 9068 §2.2: no user, so sub is the client');
      assert.equal(payload.client_id, service.clientId);
      assert.equal(payload.scope, 'notes:read');
      assert.equal(payload.auth_time, undefined);
      const introspected = await postIntrospect(server.baseUrl, { form: [['token', response.body.access_token], ...postCredentials(service)] });
      assert.equal(introspected.body.active, true, introspected.text);
      assert.equal(introspected.body.aud, NOTES);
      assert.equal((await postRevoke(server.baseUrl, { form: [['token', response.body.access_token], ...postCredentials(service)] })).status, 200);
      assert.deepEqual((await postIntrospect(server.baseUrl, { form: [['token', response.body.access_token], ...postCredentials(service)] })).body, { active: false });

      const none = await ask([['resource', CALENDAR]]);
      assert.equal(none.body.error, 'invalid_scope', 'a service registered for none of the API scopes gets no token for it');
      const unknown = await ask([['resource', 'https://unknown.example.com/']]);
      assert.equal(unknown.body.error, 'invalid_target');
      const plain = await ask([]);
      assert.match(plain.body.access_token, /^latch_st_/, 'without resource, the service token stays opaque');
    });

    test('latch resource delete: new tokens for the API are refused with invalid_target', async () => {
      const created = await cli(['resource', 'create', '--identifier', 'https://doomed.example.com/', '--scope', 'doomed:use', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const { code, verifier } = await codeFor([
        ['scope', 'doomed:use'],
        ['resource', 'https://doomed.example.com/'],
      ]);
      const deleted = await cli(['resource', 'delete', 'https://doomed.example.com/']);
      assert.equal(deleted.code, 0, deleted.stderr);
      const refused = await exchange(code, verifier, [['resource', 'https://doomed.example.com/']]);
      assert.equal(refused.body.error, 'invalid_target');
      const again = await cli(['resource', 'delete', 'https://doomed.example.com/']);
      assert.equal(again.code, 2);
    });

    test('the consent page with a resource passes a structural check: the API is a list item of the scopes list', async () => {
      const { page } = await startAuthorization([
        ['scope', 'notes:read'],
        ['resource', NOTES],
      ]);
      const items = parseHtml(page.body).querySelectorAll('ul.scopes li').map((li) => li.textContent.replace(/\s+/g, ' ').trim());
      assert.ok(items.some((item) => item.startsWith('Access to Notes API')), items.join(' | '));
      assert.ok(inputValue(page.body, 'authorization_request').includes('resource='));
    });

    // Last: it runs the cleanup two days ahead, which ends the browser session the other tests use.
    test("the cleanup forgets the APIs of grants no token request can use any more, and keeps a live refresh token's", async () => {
      const db = (server.storage as unknown as { db: Kysely<any> }).db;
      const grantsWithResources = async () => new Set((await db.selectFrom('grant_resources').select('grant_id').execute()).map((row) => String(row.grant_id)));
      const before = await grantsWithResources();
      const later = new Date(Date.now() + 2 * 86400 * 1000);
      const liveRefresh = new Set(
        (await db.selectFrom('refresh_tokens').select('grant_id').where('revoked_at', 'is', null).where('grant_expires_at', '>', Math.floor(later.getTime() / 1000)).execute()).map((row) =>
          String(row.grant_id),
        ),
      );
      const kept = [...before].filter((grant) => liveRefresh.has(grant));
      assert.ok(kept.length >= 1 && kept.length < before.size, `grants with resources: ${before.size}, with a live refresh token: ${kept.length}`);
      await deleteExpiredRecords(server.storage, server.config, later);
      assert.deepEqual([...(await grantsWithResources())].sort(), kept.sort());
    });
  });
}
