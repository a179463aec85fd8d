/**
 * A real MCP client against Latch (issue 18 item 8; README "APIs (resource servers)"): the MCP TypeScript SDK's
 * client, with its OAuth client provider, connects to a small MCP server that trusts Latch as its authorization
 * server. The MCP server publishes its protected resource metadata (RFC 9728) and verifies every request's token as
 * an RFC 9068 JWT against Latch's JWKS with jose; its resource is registered in Latch with `latch resource create`.
 * The SDK does the rest as it would for any MCP server: discovery (RFC 9728, RFC 8414), a client_id by dynamic client
 * registration (RFC 7591, LATCH_REGISTRATION=open) or as the https URL of a Client ID Metadata Document (LATCH_CIMD=1),
 * PKCE, `resource` (RFC 8707) at the authorization and token requests; the person signs in and allows on Latch's
 * consent page (a real HTTP session), and the tool call carries the token.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { pageText, TestBrowser } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { decide, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const CALLBACK = 'http://127.0.0.1:48123/callback';

/** The SDK's OAuth client provider, as an MCP host implements it: everything in memory; the browser step recorded. */
class InMemoryProvider implements OAuthClientProvider {
  /** With a URL: the SDK uses it as client_id (a Client ID Metadata Document) where the server supports them. */
  constructor(readonly clientMetadataUrl?: string) {}
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly expectedState = randomBytes(16).toString('base64url');

  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP Test Host',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.expectedState;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

interface McpTestServer {
  url: string;
  resource: string;
  server: Server;
  /** The requests the MCP server refused, for the test's checks. */
  refusals: string[];
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * A small MCP server protected by Latch: RFC 9728 metadata naming Latch, and a bearer check of RFC 9068 JWTs with
 * jose (signature by the JWKS, iss, aud = its own resource, typ at+jwt) before the SDK's transport sees a request.
 */
async function startMcpServer(latchIssuer: () => string): Promise<McpTestServer> {
  const refusals: string[] = [];
  let base = '';
  const jwks = () => createRemoteJWKSet(new URL(`${latchIssuer()}/oauth2/jwks`));
  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', base).pathname;
      const resource = `${base}/mcp`;
      const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
      if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ resource, authorization_servers: [latchIssuer()], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] }));
        return;
      }
      if (path !== '/mcp') {
        response.writeHead(404).end();
        return;
      }
      const header = request.headers.authorization ?? '';
      const challenge = (error: string) => {
        refusals.push(error);
        // RFC 9728 §5.1: where the client finds the metadata; RFC 6750 §3: the error.
        response.writeHead(401, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadataUrl}", scope="mcp:tools"` });
        response.end();
      };
      if (!header.startsWith('Bearer ')) return challenge('no token');
      const token = header.slice('Bearer '.length);
      let payload;
      try {
        ({ payload } = await jwtVerify(token, jwks(), { issuer: latchIssuer(), audience: resource, typ: 'at+jwt' }));
      } catch (error) {
        return challenge(`token refused: ${(error as Error).message}`);
      }
      const mcp = new McpServer({ name: 'latch-test-notes', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Says whom the access token was issued for' }, async (extra) => ({
        content: [{ type: 'text', text: JSON.stringify({ sub: extra.authInfo?.extra?.sub, client_id: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes }) }],
      }));
      // Stateless: a server and transport per request, JSON responses (no SSE stream to keep open).
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      const body = request.method === 'POST' ? await readJsonBody(request) : undefined;
      const authed = Object.assign(request, {
        auth: { token, clientId: String(payload.client_id), scopes: String(payload.scope ?? '').split(' ').filter(Boolean), expiresAt: payload.exp, resource: new URL(resource), extra: { sub: payload.sub } },
      });
      await transport.handleRequest(authed, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/mcp`, resource: `${base}/mcp`, server, refusals };
}

/** An https server on 127.0.0.1 with a throwaway self-signed certificate, serving one client metadata document. */
async function startDocumentServer(document: (url: string) => Record<string, unknown>): Promise<{ url: string; host: string; fetches: () => number; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'latch-mcp-cimd-'));
  const generated = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    { encoding: 'utf8' },
  );
  assert.equal(generated.status, 0, generated.stderr);
  let fetches = 0;
  let url = '';
  const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (request, response) => {
    if (request.url !== '/oauth/client.json') return void response.writeHead(404).end();
    fetches++;
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    response.end(JSON.stringify(document(url)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = `https://${host}/oauth/client.json`;
  return {
    url,
    host,
    fetches: () => fetches,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the MCP TypeScript SDK as a client of an MCP server that trusts Latch', () => {
  let latch: TestServer;
  let mcp: McpTestServer;
  let user: { email: string; password: string; id: number };

  before(async () => {
    let issuer = '';
    mcp = await startMcpServer(() => issuer);
    // Both ways an MCP client can get a client_id: dynamic registration and metadata documents (development mode,
    // so that Latch fetches a document from 127.0.0.1).
    latch = await startTestServer({ env: { LATCH_REGISTRATION: 'open', LATCH_CIMD: '1', LATCH_DEV_MODE: '1' } });
    issuer = latch.baseUrl;
    const created = await latch.createUser();
    user = { email: created.user.email, password: created.password, id: created.user.id };
    const registered = await runLatchCli(['resource', 'create', '--identifier', mcp.resource, '--scope', 'mcp:tools', '--name', 'Notes MCP server'], {
      LATCH_DATABASE_URL: latch.config.databaseUrl,
      LATCH_SECRET: latch.config.secret,
      ...(latch.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: latch.config.databaseSchema } : {}),
    });
    assert.equal(registered.code, 0, registered.stderr);
  });
  after(async () => {
    await latch?.stop();
    await new Promise((resolve) => mcp?.server.close(resolve));
  });

  /**
   * The whole way, as an MCP host goes it: connect (401), discovery, a client_id, the person at Latch, the code
   * exchanged, connect again with the token, a tool call. Returns the consent page's text.
   */
  async function connectAndCallTool(provider: InMemoryProvider): Promise<string> {
    // 1. The first connection meets 401: the SDK discovers, gets a client_id and sends the person to Latch.
    const first = new Client({ name: 'mcp-test-host', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider })), UnauthorizedError);
    assert.ok(provider.information?.client_id, 'the SDK has a client_id');
    const authorizationUrl = provider.authorizationUrl;
    assert.ok(authorizationUrl, 'the SDK asked to open the authorization URL');
    assert.equal(authorizationUrl.origin, latch.baseUrl);
    assert.equal(authorizationUrl.pathname, '/oauth2/authorize');
    assert.equal(authorizationUrl.searchParams.get('client_id'), provider.information.client_id);
    assert.equal(authorizationUrl.searchParams.get('resource'), mcp.resource, 'RFC 8707 resource, from the protected resource metadata');
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    assert.match(authorizationUrl.searchParams.get('scope') ?? '', /\bmcp:tools\b/);

    // 2. The person signs in and allows, in a real HTTP session; the consent page names the MCP server.
    const browser = new TestBrowser();
    let page = await browser.follow(authorizationUrl.href, latch.baseUrl);
    page = await signIn(browser, latch.baseUrl, page, user.email, user.password);
    assert.equal(page.status, 200, page.body.slice(0, 300));
    const text = pageText(page.body);
    assert.match(text, /MCP Test Host/);
    assert.match(text, /Unverified app/, 'an app nobody registered by hand is marked');
    assert.match(text, /Access to Notes MCP server/);
    const back = await decide(browser, latch.baseUrl, page, 'allow');
    const callback = new URL(back.headers.get('location') ?? '');
    assert.equal(`${callback.origin}${callback.pathname}`, CALLBACK);
    assert.equal(callback.searchParams.get('state'), provider.expectedState);
    assert.equal(callback.searchParams.get('iss'), latch.baseUrl);
    const code = callback.searchParams.get('code');
    assert.ok(code, callback.href);

    // 3. The SDK exchanges the code (PKCE verifier, resource) for a JWT access token.
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider });
    await transport.finishAuth(code);
    const accessToken = provider.saved?.access_token;
    assert.ok(accessToken);
    const { payload } = await jwtVerify(accessToken, createRemoteJWKSet(new URL(`${latch.baseUrl}/oauth2/jwks`)), { issuer: latch.baseUrl, audience: mcp.resource, typ: 'at+jwt' });
    assert.equal(payload.client_id, provider.information?.client_id);

    // 4. Connected with the token: the tool runs, and sees whom the token is for.
    const client = new Client({ name: 'mcp-test-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider }));
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((tool) => tool.name), ['whoami']);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const content = result.content as Array<{ type: string; text: string }>;
    assert.deepEqual(JSON.parse(content[0]!.text), { sub: String(user.id), client_id: provider.information?.client_id, scopes: ['mcp:tools'] });
    await client.close();
    return text;
  }

  test('dynamic registration: discovery, registration, PKCE, resource, consent, and a tool call with a JWT the MCP server verifies', async () => {
    const provider = new InMemoryProvider();
    const consent = await connectAndCallTool(provider);
    assert.equal((provider.information as { token_endpoint_auth_method?: string }).token_endpoint_auth_method, 'none', 'registered itself as a public client (RFC 7591)');
    assert.doesNotMatch(provider.information!.client_id, /^https:/);
    assert.match(consent, /registered itself/);
  });

  test('a Client ID Metadata Document: the SDK uses its https URL as client_id, Latch fetches it, the rest as above', async () => {
    const document = await startDocumentServer((url) => ({
      client_id: url,
      client_name: 'MCP Test Host',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    // Test only, this process only, while this test runs: Latch's fetch of the document trusts the test's
    // self-signed certificate (the SDK insists on https for a metadata document URL).
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const provider = new InMemoryProvider(document.url);
      const consent = await connectAndCallTool(provider);
      assert.equal(provider.information?.client_id, document.url, 'no registration: the document URL is the client_id');
      assert.match(consent, new RegExp(`described by ${document.host.replace(/\./g, '\\.')}`));
      assert.ok(document.fetches() >= 1, 'Latch fetched the document');
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
      await document.close();
    }
  });

  test('the MCP server refuses a request without a token (pointing to its metadata, RFC 9728 §5.1) and an opaque Latch token', async () => {
    const before = mcp.refusals.length;
    const call = (authorization?: string) =>
      fetch(mcp.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization && { authorization }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const none = await call();
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
    const opaque = await call('Bearer latch_at_00000000000notarealtoken');
    assert.equal(opaque.status, 401);
    assert.equal(mcp.refusals.length - before, 2);
  });
});
