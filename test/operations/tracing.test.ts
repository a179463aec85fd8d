/**
 * OpenTelemetry tracing (issue 16 item 4; README "Tracing") over real HTTP: with the standard OTEL_* variables
 * set, spans reach a local OTLP/HTTP receiver: a server span per request named after its route pattern, the
 * caller's trace continued from its traceparent header, a client span per query under the request's span; nothing
 * secret or personal in any of it. With the variables unset, no OpenTelemetry (or prom-client) module is even
 * loaded.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { startTestServer } from '../helpers/test-server.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`tracing on ${database}`, { skip }, () => {
    test('requests and their queries reach the OTLP receiver as spans; a traceparent continues the caller’s trace; nothing secret is sent', async () => {
      const receiver = await OtlpReceiver.start();
      const server = await startTestServer({ database, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'latch-under-test' } });
      let secrets: string[] = [];
      const callerTraceId = randomBytes(16).toString('hex');
      const callerSpanId = randomBytes(8).toString('hex');
      try {
        const { user, password } = await server.createUser();
        const client = await server.createClient();
        const { verifier, challenge } = pkcePair();
        const redirect = await authorize(
          new TestBrowser(),
          server.baseUrl,
          { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256', state: 'state-value-xyz' },
          { email: user.email, password },
        );
        const code = redirect.searchParams.get('code')!;
        const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
        assert.equal(token.status, 200);
        const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, {
          headers: { authorization: `Bearer ${token.body.access_token}`, traceparent: `00-${callerTraceId}-${callerSpanId}-01` },
        });
        assert.equal(info.status, 200);
        await fetch(`${server.baseUrl}/oauth2/userinfo?access_token=${token.body.access_token}`);
        secrets = [client.clientSecret, user.email, password, code, verifier, token.body.access_token, token.body.id_token, 'state-value-xyz'];
      } finally {
        // Stopping sends the spans still queued.
        await server.stop();
        await receiver.close();
      }

      const spans = receiver.spans;
      assert.ok(spans.length > 0, 'spans were received');
      assert.ok(spans.every((span) => span.resource['service.name'] === 'latch-under-test'));
      const servers = spans.filter((span) => span.kind === SPAN_KIND_SERVER);
      const named = (name: string) => servers.filter((span) => span.name === name);

      const [tokenSpan] = named('POST /oauth2/token');
      assert.ok(tokenSpan, `a span for the token request among ${servers.map((s) => s.name).join(', ')}`);
      assert.equal(tokenSpan.attributes['http.route'], '/oauth2/token');
      assert.equal(tokenSpan.attributes['http.request.method'], 'POST');
      assert.equal(tokenSpan.attributes['http.response.status_code'], 200);
      assert.equal(tokenSpan.attributes['oauth.grant_type'], 'authorization_code');
      assert.match(String(tokenSpan.attributes['oauth.client_id']), /\S/);
      assert.match(String(tokenSpan.attributes['latch.request_id']), /^[0-9a-f-]{36}$/);
      assert.equal(named('POST /login')[0]?.attributes['latch.sign_in.result'], 'success');

      // The token request's queries are its children, in its trace.
      const queries = spans.filter((span) => span.kind === SPAN_KIND_CLIENT && span.parentSpanId === tokenSpan.spanId);
      assert.ok(queries.length >= 2, `the code exchange's queries: ${queries.map((q) => q.name).join(', ')}`);
      for (const query of queries) {
        assert.equal(query.traceId, tokenSpan.traceId);
        assert.equal(query.attributes['db.system.name'], database === 'postgres' ? 'postgresql' : 'sqlite');
        assert.ok(['read', 'write', 'transaction'].includes(String(query.attributes['latch.db.operation'])));
      }
      assert.ok(queries.some((query) => /^select /i.test(String(query.attributes['db.query.text'] ?? ''))), 'a read carries its SQL text');

      // The caller's trace continues at userinfo: same trace, the caller's span as parent.
      const userinfo = named('GET /oauth2/userinfo');
      const continued = userinfo.find((span) => span.traceId === callerTraceId);
      assert.ok(continued, `a userinfo span in the caller's trace (${userinfo.map((s) => s.traceId).join(', ')})`);
      assert.equal(continued.parentSpanId, callerSpanId);
      assert.equal(continued.attributes['http.response.status_code'], 200);
      // The token in the query string: refused, and the span is named after the route, never the URL.
      assert.ok(userinfo.some((span) => span.attributes['http.response.status_code'] === 401));
      for (const span of spans) assert.equal(span.name.includes('?'), false, span.name);

      // Nothing secret or personal anywhere in what was sent.
      const sent = receiver.bodies.join('\n');
      for (const secret of secrets) assert.equal(sent.includes(secret), false, `the spans must not carry ${secret.slice(0, 12)}…`);
      for (const span of spans) assert.deepEqual(Object.keys(span.attributes).filter((key) => key.startsWith('http.request.header') || key.startsWith('url.')), [], span.name);
    });
  });
}

test('spans of one request and its queries: a failure is an error span; requests refused before their body is read are traced too', async () => {
  const receiver = await OtlpReceiver.start();
  const server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } });
  try {
    // A body Latch refuses to read (JSON at the token endpoint): answered before any route step runs.
    const refused = await fetch(`${server.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.ok(refused.status >= 400 && refused.status < 500, String(refused.status));
    assert.equal((await fetch(`${server.baseUrl}/no/such/page`)).status, 404);
  } finally {
    await server.stop();
    await receiver.close();
  }
  const servers = receiver.spans.filter((span: ReceivedSpan) => span.kind === SPAN_KIND_SERVER);
  const tokenSpan = servers.find((span) => span.name === 'POST /oauth2/token');
  assert.ok(tokenSpan, servers.map((s) => s.name).join(', '));
  assert.ok(Number(tokenSpan.attributes['http.response.status_code']) >= 400);
  // A 4xx is the client's: not an error of the server span (OpenTelemetry HTTP semantic conventions).
  assert.notEqual(tokenSpan.statusCode, 2);
  assert.ok(servers.some((span) => span.name === 'GET unmatched' && span.attributes['http.response.status_code'] === 404));
});

/**
 * Starts a real server in a child process with the environment given, makes a request, stops, and returns every
 * module specifier the process imported after it started (test/helpers/module-recorder.mjs).
 */
function modulesLoadedByAServer(env: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'latch-modules-'));
  try {
    const recorded = join(dir, 'modules.txt');
    const script = `
      import { register } from 'node:module';
      register(${JSON.stringify(pathToFileURL(join(ROOT, 'test/helpers/module-recorder.mjs')).href)}, { data: { file: ${JSON.stringify(recorded)} } });
      const { loadConfig } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/config.ts')).href)});
      const { startServer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/server.ts')).href)});
      const server = await startServer(loadConfig());
      const answer = await fetch(server.url.replace('[::1]', '127.0.0.1') + '/.well-known/openid-configuration');
      if (answer.status !== 200) throw new Error('discovery answered ' + answer.status);
      await server.close();
    `;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LATCH_LOG_LEVEL: 'silent', LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`, ...env },
    });
    assert.equal(result.status, 0, result.stderr);
    return readFileSync(recorded, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('with OTEL_* and LATCH_METRICS_PORT unset, no OpenTelemetry or prom-client module is loaded; set, they are', async () => {
  const off = modulesLoadedByAServer({});
  assert.ok(off.some((specifier) => specifier.endsWith('server.ts')), 'the recorder saw the server load');
  assert.deepEqual(off.filter((specifier) => specifier.startsWith('@opentelemetry/') || specifier === 'prom-client'), []);

  const receiver = await OtlpReceiver.start();
  try {
    const on = modulesLoadedByAServer({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, LATCH_METRICS_PORT: '0' });
    for (const expected of ['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http', 'prom-client']) {
      assert.ok(on.includes(expected), `${expected} is loaded when configured`);
    }
  } finally {
    await receiver.close();
  }
});
