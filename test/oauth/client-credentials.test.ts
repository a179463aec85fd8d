/**
 * The client_credentials grant for services (issue 18 item 2; RFC 6749 §4.4; docs/protocol-decisions.md
 * "Public clients and services"): no user, no id_token, no refresh token; scopes limited to what the service was
 * registered for; the token introspects with sub = client_id (RFC 9068 §2.2) and is refused at userinfo.
 * Over real HTTP, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { registerClientOfAnyKind } from '../../src/clients/client-registration.js';
import { basicAuthorization, callUserinfo, postToken } from '../helpers/code-fixtures.js';
import { findRows } from '../helpers/database-snapshot.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postIntrospect, postRevoke } from '../helpers/token-management.js';

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`client_credentials (${database})`, () => {
    let server: TestServer;
    let service: { clientId: string; clientSecret: string };
    let otherService: { clientId: string; clientSecret: string };
    let webApp: Awaited<ReturnType<TestServer['createClient']>>;

    async function registerService(name: string, scope: string[], redirectUris: string[] = []) {
      const { client, clientSecret } = await registerClientOfAnyKind(
        server.storage,
        { name, redirectUris, grantTypes: ['client_credentials'], scope },
        { developmentMode: false },
      );
      return { clientId: client.clientId, clientSecret: clientSecret! };
    }

    before(async () => {
      server = await startTestServer({ database });
      service = await registerService('Billing Service', ['invoices:read', 'invoices:write']);
      otherService = await registerService('Other Service', [], ['http://127.0.0.1:9999/callback']);
      webApp = await server.createClient({ name: 'Web App' });
    });
    after(async () => server.stop());

    const request = (client: { clientId: string; clientSecret: string }, form: Record<string, string> = {}) =>
      postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) }, form: { grant_type: 'client_credentials', ...form } });

    test('a service gets an access token only: no refresh token, no id_token, no user; all its scopes by default', async () => {
      const response = await request(service);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.token_type, 'Bearer');
      assert.match(response.body.access_token, /^latch_st_/);
      assert.equal(response.body.expires_in, server.config.accessTokenTtlSeconds);
      assert.equal(response.body.scope, 'invoices:read invoices:write');
      for (const absent of ['refresh_token', 'id_token', 'user']) assert.ok(!(absent in response.body), `no ${absent}`);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const [row] = await findRows(server, 'service_tokens', { client_id: service.clientId });
      assert.ok(row, 'stored');
      assert.notEqual(row.token_hash, response.body.access_token, 'only its hash');
    });

    test('scope narrows to what was asked; anything the service was not registered for is invalid_scope', async () => {
      assert.equal((await request(service, { scope: 'invoices:read' })).body.scope, 'invoices:read');
      for (const scope of ['invoices:read invoices:delete', 'openid', 'profile']) {
        const refused = await request(service, { scope });
        assert.equal(refused.status, 400, scope);
        assert.equal(refused.body.error, 'invalid_scope', scope);
        assert.match(refused.body.error_description, /not registered for/);
      }
    });

    test('a client not registered for it gets unauthorized_client; a service cannot sign anyone in', async () => {
      const response = await postToken(server.baseUrl, { form: { grant_type: 'client_credentials', client_id: webApp.clientId, client_secret: webApp.clientSecret } });
      assert.equal(response.status, 400);
      assert.equal(response.body.error, 'unauthorized_client');
      assert.match(response.body.error_description, /not registered for grant_type client_credentials/);
      const code = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: service.clientId, client_secret: service.clientSecret } });
      assert.equal(code.body.error, 'unauthorized_client');
      // At the authorization endpoint: the error goes to the (registered) redirect URI.
      const redirect = await fetch(
        authorizeUrl(server.baseUrl, { response_type: 'code', client_id: otherService.clientId, redirect_uri: 'http://127.0.0.1:9999/callback', state: 's' }),
        { redirect: 'manual' },
      );
      assert.equal(new URL(redirect.headers.get('location') ?? '').searchParams.get('error'), 'unauthorized_client');
    });

    test('a wrong secret is invalid_client, as for any confidential client', async () => {
      const response = await request({ clientId: service.clientId, clientSecret: 'latch_cs_wrong' });
      assert.equal(response.status, 401);
      assert.equal(response.body.error, 'invalid_client');
    });

    test('introspection: active with sub = client_id (RFC 9068 §2.2) for the service itself, inactive for anyone else', async () => {
      const { access_token: token } = (await request(service)).body;
      const mine = await postIntrospect(server.baseUrl, { form: { token, client_id: service.clientId, client_secret: service.clientSecret } });
      assert.equal(mine.status, 200, mine.text);
      assert.equal(mine.body.active, true);
      assert.equal(mine.body.sub, service.clientId);
      assert.equal(mine.body.client_id, service.clientId);
      assert.equal(mine.body.scope, 'invoices:read invoices:write');
      assert.equal(mine.body.token_type, 'Bearer');
      assert.equal(mine.body.iss, server.config.issuer);
      assert.ok(!('username' in mine.body));
      const theirs = await postIntrospect(server.baseUrl, { form: { token, client_id: otherService.clientId, client_secret: otherService.clientSecret } });
      assert.equal(theirs.text, '{"active":false}');
    });

    test('userinfo refuses the token: invalid_token, saying there is no user', async () => {
      const { access_token: token } = (await request(service)).body;
      const response = await callUserinfo(server.baseUrl, `Bearer ${token}`);
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      assert.match(response.body.error_description, /carries no user/);
    });

    test('revocation: the service revokes its own token, which then introspects inactive', async () => {
      const { access_token: token } = (await request(service)).body;
      const ignored = await postRevoke(server.baseUrl, { form: { token, client_id: otherService.clientId, client_secret: otherService.clientSecret } });
      assert.equal(ignored.status, 200);
      const introspect = () => postIntrospect(server.baseUrl, { form: { token, client_id: service.clientId, client_secret: service.clientSecret } });
      assert.equal((await introspect()).body.active, true, "another client's revocation changes nothing");
      assert.equal((await postRevoke(server.baseUrl, { form: { token, client_id: service.clientId, client_secret: service.clientSecret } })).status, 200);
      assert.equal((await introspect()).text, '{"active":false}');
    });

    test('oauth4webapi: client credentials with client_secret_post', async () => {
      const issuer = new URL(server.baseUrl);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }));
      assert.ok(as.grant_types_supported?.includes('client_credentials'));
      const rp: oauth.Client = { client_id: service.clientId };
      const response = await oauth.clientCredentialsGrantRequest(as, rp, oauth.ClientSecretPost(service.clientSecret), new URLSearchParams({ scope: 'invoices:write' }), {
        [oauth.allowInsecureRequests]: true,
      });
      const result = await oauth.processClientCredentialsResponse(as, rp, response);
      assert.equal(result.scope, 'invoices:write');
      assert.equal(result.token_type, 'bearer');
      assert.equal(result.refresh_token, undefined);
    });
  });
}
