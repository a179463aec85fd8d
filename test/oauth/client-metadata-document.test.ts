/**
 * Client ID Metadata Documents (issue 18 item 4; draft-ietf-oauth-client-id-metadata-document; docs/protocol-decisions.md
 * "Client ID Metadata Documents"), over real HTTP: Latch with LATCH_CIMD=1 and LATCH_DEV_MODE=1 resolves client_id
 * URLs served by a local HTTP server. A full flow as a public client with PKCE on SQLite and PostgreSQL; refusals,
 * caching, shared fetches and LATCH_CIMD=0 on SQLite; private addresses refused outside development mode.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { pageText, TestBrowser } from '../helpers/browser.js';
import { callUserinfo, postToken, type TestUser } from '../helpers/code-fixtures.js';
import { findRows } from '../helpers/database-snapshot.js';
import { authorize, authorizeUrl, decide, pkcePair, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { deleteExpiredRecords } from '../../src/server.js';
import { createMetadataDocumentResolver } from '../../src/oauth/request/client-metadata-document.js';

const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/** How the document server answers one path. */
interface DocumentRoute {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  /** Waits this long before answering (a slow host). */
  delayMs?: number;
  /** Sends the body in two chunks without a content-length (so the size is only known as it arrives). */
  chunked?: boolean;
}

/** A local HTTP server that serves client metadata documents and counts the fetches of each path. */
class DocumentServer {
  readonly routes = new Map<string, DocumentRoute>();
  readonly fetches = new Map<string, number>();
  private server!: Server;
  base = '';
  /** Sees each request as it starts; `done` is called once its answer is sent (tests count requests open at once). */
  onRequest: ((start: (done: () => void) => void) => void) | undefined;

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? '';
      this.fetches.set(path, (this.fetches.get(path) ?? 0) + 1);
      const route = this.routes.get(path);
      const answer = () => {
        if (!route) return void response.writeHead(404).end('not found');
        if (route.chunked) {
          response.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers });
          const half = Math.floor(route.body.length / 2);
          response.write(route.body.slice(0, half));
          return void setTimeout(() => response.end(route.body.slice(half)), 10);
        }
        response.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers }).end(route.body);
      };
      const run = () => {
        if (route?.delayMs) setTimeout(answer, route.delayMs);
        else answer();
      };
      if (!this.onRequest) return run();
      this.onRequest((done) => {
        response.once('finish', done);
        run();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Serves `document` (its client_id defaults to the URL it is served at) and returns that URL. */
  serve(path: string, document: Record<string, unknown>, options: Omit<DocumentRoute, 'body'> = {}): string {
    const url = `${this.base}${path}`;
    this.routes.set(path, { ...options, body: JSON.stringify({ client_id: url, ...document }) });
    return url;
  }

  count(path: string): number {
    return this.fetches.get(path) ?? 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The first step of an authorization request, without following anything: a redirect (to sign in) or a page. */
async function startAuthorization(server: TestServer, clientId: string, extra: Record<string, string> = {}) {
  const response = await fetch(
    authorizeUrl(server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', ...extra }),
    { redirect: 'manual' },
  );
  return { status: response.status, location: response.headers.get('location'), requestId: response.headers.get('x-request-id'), text: pageText(await response.text()) };
}

/** The reason a refused request was logged with (the page shows people plain words and the request id only). */
function loggedReason(server: TestServer, requestId: string | null): string {
  const line = server.logLines().find((entry) => JSON.stringify(entry).includes(`"${requestId}"`) && typeof entry.reason === 'string');
  return (line?.reason as string | undefined) ?? '';
}

const agent = { client_name: 'Agent Desktop', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] };

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`client ID metadata documents (${database})`, () => {
    const documents = new DocumentServer();
    let server: TestServer;
    let user: TestUser;
    before(async () => {
      await documents.start();
      server = await startTestServer({ database, env: { LATCH_CIMD: '1', LATCH_DEV_MODE: '1' } });
      const created = await server.createUser();
      user = { email: created.user.email, password: created.password };
    });
    after(async () => {
      await server.stop();
      await documents.stop();
    });

    test('a full flow: discovery says so, the document is fetched, consent marks the app and names its host, a public client exchanges the code with PKCE, userinfo answers, logout returns to the document\'s post-logout URI', async () => {
      const metadata = await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json();
      assert.equal(metadata.client_id_metadata_document_supported, true);

      const clientId = documents.serve(
        '/agent.json',
        {
          ...agent,
          client_uri: 'https://agent.example.com/',
          policy_uri: 'https://agent.example.com/privacy',
          tos_uri: 'https://agent.example.com/terms',
          post_logout_redirect_uris: ['http://127.0.0.1:33418/signed-out'],
        },
        { headers: { 'cache-control': 'max-age=600' } },
      );
      const pkce = pkcePair();
      const browser = new TestBrowser();
      let page = await browser.follow(
        authorizeUrl(server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: 'openid profile offline_access', code_challenge: pkce.challenge, code_challenge_method: 'S256', state: 's1' }),
        server.baseUrl,
      );
      page = await signIn(browser, server.baseUrl, page, user.email, user.password);
      assert.equal(page.status, 200, page.body.slice(0, 500));
      const text = pageText(page.body);
      assert.match(text, /Agent Desktop wants access to your profile/);
      assert.match(text, new RegExp(`Unverified app\\. Agent Desktop is described by ${new URL(documents.base).host.replace(/\./g, '\\.')}; nobody here has checked who runs it`));
      assert.match(page.body, /href="https:\/\/agent\.example\.com\/privacy"/);
      assert.match(page.body, /href="https:\/\/agent\.example\.com\/terms"/);

      const redirect = await decide(browser, server.baseUrl, page, 'allow');
      const location = new URL(redirect.headers.get('location') ?? '');
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
      assert.equal(location.searchParams.get('state'), 's1');
      const code = location.searchParams.get('code');
      assert.ok(code);

      const tokens = await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: pkce.verifier } });
      assert.equal(tokens.status, 200, tokens.text);
      assert.ok(tokens.body.id_token);
      assert.ok(tokens.body.refresh_token, 'offline_access, and the document lists the refresh_token grant');
      const userinfo = await callUserinfo(server.baseUrl, `Bearer ${tokens.body.access_token}`);
      assert.equal(userinfo.status, 200, userinfo.text);
      assert.equal(userinfo.body.email, user.email);

      const [row] = await findRows(server, 'clients', { client_id: clientId });
      assert.equal(row?.token_endpoint_auth_method, 'none');
      assert.equal(row?.registered_dynamically, 0);
      assert.notEqual(row?.metadata_document_expires_at, null);
      assert.equal(row?.policy_url, 'https://agent.example.com/privacy');
      assert.equal(documents.count('/agent.json'), 1, 'fetched once for the whole flow (authorize, sign-in, consent)');
      // Audit events are buffered (audit/audit-log.ts): wait for the write, as the audit tests do.
      let created = await server.storage.auditEvents.list({ clientId, types: ['client.created'], limit: 10 });
      for (const deadline = Date.now() + 3000; created.length === 0 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        created = await server.storage.auditEvents.list({ clientId, types: ['client.created'], limit: 10 });
      }
      assert.equal(created.length, 1, 'one audit event when the client first came to exist');
      assert.deepEqual(created[0]?.details, { name: 'Agent Desktop', via: 'metadata_document' });

      // RP-Initiated Logout finds the client too: its document's post_logout_redirect_uris are followed.
      const logout = await browser.request(
        `${server.baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: tokens.body.id_token, post_logout_redirect_uri: 'http://127.0.0.1:33418/signed-out', state: 'bye' })}`,
      );
      assert.equal(logout.status, 303, logout.body.slice(0, 300));
      assert.equal(logout.headers.get('location'), 'http://127.0.0.1:33418/signed-out?state=bye');

      // A public client: it authenticates with client_id alone, and a secret (which it cannot have) is refused.
      const withSecret = await postToken(server.baseUrl, { form: { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId, client_secret: 'anything' } });
      assert.equal(withSecret.status, 401, withSecret.text);
      assert.equal(withSecret.body.error, 'invalid_client');
    });

    test('the periodic cleanup removes clients from documents nobody allowed, a day after their document expired; allowed ones stay', async () => {
      const allowed = `${documents.base}/agent.json`;
      assert.ok(await server.storage.clients.findById(allowed), 'the full flow above allowed it');
      const neverAllowed = documents.serve('/never-allowed.json', agent);
      const recent = documents.serve('/recently-expired.json', agent);
      for (const clientId of [neverAllowed, recent]) assert.equal((await startAuthorization(server, clientId)).status, 302);
      const now = new Date();
      const ago = (hours: number) => new Date(now.getTime() - hours * 3600_000);
      await server.storage.clients.update(allowed, { metadataDocumentExpiresAt: ago(48) }, now);
      await server.storage.clients.update(neverAllowed, { metadataDocumentExpiresAt: ago(48) }, now);
      await server.storage.clients.update(recent, { metadataDocumentExpiresAt: ago(12) }, now);
      const operators = await server.createClient();
      await deleteExpiredRecords(server.storage, server.config, now, 1);
      assert.equal(await server.storage.clients.findById(neverAllowed), null);
      assert.ok(await server.storage.clients.findById(allowed), 'someone allowed it: it stays');
      assert.ok(await server.storage.clients.findById(recent), 'not a day past its expiry yet');
      assert.ok(await server.storage.clients.findById(operators.clientId), 'other clients are not touched');
      // Gone is not refused: the next request fetches the document again.
      assert.equal((await startAuthorization(server, neverAllowed)).status, 302);
      assert.equal(documents.count('/never-allowed.json'), 2);
    });

    test('PKCE is required, as for every public client: without code_challenge the error goes back to the verified redirect_uri', async () => {
      const clientId = documents.serve('/no-pkce.json', agent);
      const response = await fetch(authorizeUrl(server.baseUrl, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, state: 's2' }), { redirect: 'manual' });
      assert.equal(response.status, 302);
      const location = new URL(response.headers.get('location') ?? '');
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.match(location.searchParams.get('error_description') ?? '', /code_challenge is required/);
    });
  });
}

describe('client ID metadata documents: refusals, caching, shared fetches (sqlite)', () => {
  const documents = new DocumentServer();
  let server: TestServer;
  before(async () => {
    await documents.start();
    server = await startTestServer({ database: 'sqlite', captureLog: true, env: { LATCH_CIMD: '1', LATCH_DEV_MODE: '1', LATCH_CACHE_MAX_STALENESS_MS: '0' } });
  });
  after(async () => {
    await server.stop();
    await documents.stop();
  });

  test('a document that cannot be used is shown to the person as an error page (400, never a redirect), its reason logged', async () => {
    const url = (path: string) => `${documents.base}${path}`;
    documents.serve('/mismatch.json', { ...agent, client_id: url('/other.json') });
    documents.serve('/no-redirects.json', { client_name: 'No Redirects' });
    documents.serve('/shared-secret.json', { ...agent, token_endpoint_auth_method: 'client_secret_post' });
    documents.serve('/large.json', { ...agent, padding: 'x'.repeat(6000) });
    documents.serve('/large-chunked.json', { ...agent, padding: 'x'.repeat(6000) }, { chunked: true });
    documents.routes.set('/not-json.json', { headers: { 'content-type': 'text/html' }, body: '<html><body>Hello</body></html>' });
    documents.routes.set('/moved.json', { status: 302, headers: { location: '/agent.json' }, body: '' });
    documents.serve('/slow.json', agent, { delayMs: 3500 });
    const cases: Array<[string, RegExp]> = [
      [url('/mismatch.json'), /must be exactly the URL it is served from/],
      [url('/no-redirects.json'), /redirect_uris is required/],
      [url('/shared-secret.json'), /client_secret_post needs a shared secret/],
      [url('/large.json'), /larger than 5120 bytes/],
      [url('/large-chunked.json'), /larger than 5120 bytes/],
      [url('/not-json.json'), /not JSON/],
      [url('/moved.json'), /HTTP 302, not 200 \(redirects are not followed/],
      [url('/missing.json'), /HTTP 404, not 200/],
      [url('/slow.json'), /did not arrive within 3 s/],
      [`${documents.base}/`, /must have a path/],
      [`http://app.example.com/client.json`, /http only to localhost/],
    ];
    for (const [clientId, reason] of cases) {
      const response = await startAuthorization(server, clientId);
      assert.equal(response.status, 400, `${clientId}: ${response.text.slice(0, 200)}`);
      assert.equal(response.location, null, 'never redirected (RFC 6749 §4.1.2.1)');
      assert.match(response.text, /This sign-in link does not work/);
      assert.match(loggedReason(server, response.requestId), reason, clientId);
      assert.match(loggedReason(server, response.requestId), /client metadata document/);
    }
    assert.equal(documents.count('/moved.json'), 1);
    assert.equal(documents.count('/agent.json'), 0, 'the redirect was not followed');
    const [row] = await findRows(server, 'clients', { client_id: url('/mismatch.json') });
    assert.equal(row, undefined, 'nothing is stored of a refused document');
  });

  test('a redirect_uri the document does not list is refused on a page, as for any client', async () => {
    const clientId = documents.serve('/listed.json', agent);
    const response = await startAuthorization(server, clientId, { redirect_uri: 'http://127.0.0.1:33418/other' });
    assert.equal(response.status, 400);
    assert.match(loggedReason(server, response.requestId), /is not registered for this client/);
  });

  test('caching: within its max-age the document is not fetched again; after that it is, and the stored client follows it', async () => {
    const clientId = documents.serve('/cached.json', agent, { headers: { 'cache-control': 'public, max-age=3600' } });
    for (let i = 0; i < 3; i++) assert.equal((await startAuthorization(server, clientId)).status, 302, 'on to sign in');
    assert.equal(documents.count('/cached.json'), 1);
    const stored = await server.storage.clients.findById(clientId);
    const lifetime = (stored!.metadataDocumentExpiresAt!.getTime() - Date.now()) / 1000;
    assert.ok(lifetime > 3500 && lifetime <= 3600, `kept for its max-age (${lifetime} s)`);

    // The time passes (the floor is 5 minutes, too long to wait in a test): the row says it has expired.
    documents.serve('/cached.json', { ...agent, client_name: 'Agent Desktop 2' }, { headers: { 'cache-control': 'no-store' } });
    await server.storage.clients.update(clientId, { metadataDocumentExpiresAt: new Date(Date.now() - 1000) }, new Date());
    assert.equal((await startAuthorization(server, clientId)).status, 302);
    assert.equal(documents.count('/cached.json'), 2, 'fetched again once expired');
    const refreshed = await server.storage.clients.findById(clientId);
    assert.equal(refreshed?.name, 'Agent Desktop 2');
    const floor = (refreshed!.metadataDocumentExpiresAt!.getTime() - Date.now()) / 1000;
    assert.ok(floor > 290 && floor <= 300, `no-store is held to the 5-minute floor (${floor} s)`);
  });

  test('a document that turns bad is refused at its next fetch; a failure is remembered briefly, so a bad URL is not fetched in a loop', async () => {
    const clientId = documents.serve('/turns-bad.json', agent);
    assert.equal((await startAuthorization(server, clientId)).status, 302);
    documents.serve('/turns-bad.json', { ...agent, redirect_uris: undefined });
    await server.storage.clients.update(clientId, { metadataDocumentExpiresAt: new Date(Date.now() - 1000) }, new Date());
    for (let i = 0; i < 3; i++) {
      const response = await startAuthorization(server, clientId);
      assert.equal(response.status, 400);
      assert.match(loggedReason(server, response.requestId), /redirect_uris is required/);
    }
    assert.equal(documents.count('/turns-bad.json'), 2, 'one fetch for the first failure, none for the two after it');
  });

  test('at most maxConcurrentFetches different documents are fetched at once; the others wait for a slot', async () => {
    const resolver = createMetadataDocumentResolver(server.storage, { developmentMode: true, allowPrivateAddresses: true, maxConcurrentFetches: 2 });
    let open = 0;
    let most = 0;
    const paths = ['/slot-1.json', '/slot-2.json', '/slot-3.json', '/slot-4.json', '/slot-5.json'];
    const previous = documents.onRequest;
    documents.onRequest = (start) => {
      open += 1;
      most = Math.max(most, open);
      start(() => (open -= 1));
    };
    try {
      const ids = paths.map((path) => documents.serve(path, agent, { delayMs: 100 }));
      const clients = await Promise.all(ids.map((id) => resolver.resolve(id, new Date())));
      assert.deepEqual(
        clients.map((client) => client.clientId),
        ids,
      );
    } finally {
      documents.onRequest = previous;
    }
    assert.equal(most, 2, 'two at a time, never more');
  });

  test('concurrent authorization requests for a new client_id share one fetch', async () => {
    const clientId = documents.serve('/popular.json', agent, { delayMs: 150 });
    const responses = await Promise.all(Array.from({ length: 5 }, () => startAuthorization(server, clientId)));
    assert.deepEqual(
      responses.map((response) => response.status),
      [302, 302, 302, 302, 302],
    );
    assert.equal(documents.count('/popular.json'), 1);
  });
});

describe('client ID metadata documents outside development mode and when off (sqlite)', () => {
  const documents = new DocumentServer();
  let production: TestServer;
  let off: TestServer;
  before(async () => {
    await documents.start();
    production = await startTestServer({ database: 'sqlite', captureLog: true, env: { LATCH_CIMD: '1' } });
    off = await startTestServer({ database: 'sqlite', captureLog: true, env: { LATCH_DEV_MODE: '1' } });
  });
  after(async () => {
    await production.stop();
    await off.stop();
    await documents.stop();
  });

  test('without LATCH_DEV_MODE, http is refused and loopback or private addresses are never fetched', async () => {
    const port = new URL(documents.base).port;
    documents.serve('/agent.json', agent);
    const cases: Array<[string, RegExp]> = [
      [`${documents.base}/agent.json`, /must use https/],
      [`https://127.0.0.1:${port}/agent.json`, /refused to connect to 127\.0\.0\.1: a loopback address/],
      [`https://localhost:${port}/agent.json`, /refused to connect to (127\.0\.0\.1|::1): a loopback address/],
    ];
    for (const [clientId, reason] of cases) {
      const response = await startAuthorization(production, clientId);
      assert.equal(response.status, 400, clientId);
      assert.match(loggedReason(production, response.requestId), reason, clientId);
    }
    assert.equal(documents.count('/agent.json'), 0, 'nothing reached the document server');
  });

  test('LATCH_CIMD=0 (the default): a URL client_id is an unknown client, and discovery does not offer documents', async () => {
    const clientId = documents.serve('/agent.json', agent);
    const before = documents.count('/agent.json');
    const response = await startAuthorization(off, clientId);
    assert.equal(response.status, 400);
    assert.match(loggedReason(off, response.requestId), /client_id is not a registered client/);
    assert.equal(documents.count('/agent.json'), before, 'not fetched');
    const metadata = await (await fetch(`${off.baseUrl}/.well-known/openid-configuration`)).json();
    assert.ok(!('client_id_metadata_document_supported' in metadata));
  });

  test('a sign-in with a registered client still works beside it', async () => {
    const created = await off.createUser();
    const client = await off.createClient();
    const redirect = await authorize(new TestBrowser(), off.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0] }, { email: created.user.email, password: created.password });
    assert.ok(redirect.searchParams.get('code'));
  });
});
