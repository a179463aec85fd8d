/**
 * Prometheus metrics (issue 16 item 4; README "Metrics") over real HTTP, on SQLite and PostgreSQL: `GET /metrics`
 * on the listener of `LATCH_METRICS_PORT` only, never on the main port, and nothing at all when it is unset;
 * requests counted per route pattern and status, tokens per grant, sign-ins per result, throttled requests,
 * query latency, the PostgreSQL pool, Node's event-loop lag and process figures; and nothing secret or personal
 * in the output, whatever the requests carried.
 *
 * `latch serve --workers 2`: the primary serves every worker's metrics, each worker's series apart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { startLatchProcess } from '../helpers/latch-process.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { families, parseSamples, sumOf } from '../helpers/prometheus.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Every metric family the Grafana dashboard (ops/grafana/latch-dashboard.json) queries. */
function dashboardFamilies(): Set<string> {
  const dashboard = JSON.parse(readFileSync(join(import.meta.dirname, '../../ops/grafana/latch-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ definition?: string }> };
  };
  const expressions = [...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)), ...dashboard.templating.list.map((v) => v.definition ?? '')];
  const names = expressions.flatMap((expr) => [...expr.matchAll(/\b((?:latch|nodejs|process)_[a-z0-9_]+)/g)].map((match) => match[1]!));
  // A histogram is queried through its _bucket, _sum and _count series.
  return new Set(names.map((name) => name.replace(/_(bucket|sum|count)$/, '')));
}

async function scrape(server: TestServer): Promise<string> {
  assert.ok(server.metricsUrl, 'the server serves metrics');
  const response = await fetch(server.metricsUrl);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return response.text();
}

async function attemptSignIn(server: TestServer, email: string, password: string): Promise<number> {
  const browser = new TestBrowser();
  const page = await browser.request(`${server.baseUrl}/login`);
  const response = await browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email, password } });
  return response.status;
}

test('with LATCH_METRICS_PORT unset nothing serves metrics: no listener, and /metrics on the main port is 404', async () => {
  const server = await startTestServer();
  try {
    assert.equal(server.metricsUrl, undefined);
    const response = await fetch(`${server.baseUrl}/metrics`);
    assert.equal(response.status, 404);
    assert.doesNotMatch(await response.text(), /latch_http_requests_total|process_cpu/);
  } finally {
    await server.stop();
  }
});

for (const database of ['sqlite', 'postgres'] as const) {
  const skip = database === 'postgres' ? ((await postgresUnavailableReason()) ?? false) : false;

  describe(`metrics on ${database}`, { skip }, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ database, env: { LATCH_METRICS_PORT: '0', LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '2' } });
    });
    after(() => server?.stop());

    test('GET /metrics on its own port answers every family; the main port does not serve it', async () => {
      assert.notEqual(new URL(server.metricsUrl!).port, new URL(server.baseUrl).port);
      assert.equal(new URL(server.metricsUrl!).hostname, '127.0.0.1');
      await fetch(`${server.baseUrl}/.well-known/openid-configuration`);
      const text = await scrape(server);
      const declared = families(text);
      for (const [name, type] of [
        ['latch_http_requests_total', 'counter'],
        ['latch_http_request_duration_seconds', 'histogram'],
        ['latch_tokens_issued_total', 'counter'],
        ['latch_sign_ins_total', 'counter'],
        ['latch_throttled_requests_total', 'counter'],
        ['latch_db_query_duration_seconds', 'histogram'],
        ['nodejs_eventloop_lag_seconds', 'gauge'],
        ['nodejs_eventloop_lag_p99_seconds', 'gauge'],
        ['process_cpu_user_seconds_total', 'counter'],
        ['process_resident_memory_bytes', 'gauge'],
        ['nodejs_heap_size_used_bytes', 'gauge'],
      ]) {
        assert.equal(declared.get(name!), type, `${name} is a ${type}`);
      }
      const pool = ['latch_db_pool_connections', 'latch_db_pool_idle_connections', 'latch_db_pool_waiting_requests', 'latch_db_pool_max_connections'];
      if (database === 'postgres') {
        for (const name of pool) assert.equal(declared.get(name), 'gauge', name);
        assert.equal(sumOf(text, 'latch_db_pool_max_connections'), server.config.databasePoolSize);
        assert.ok(sumOf(text, 'latch_db_pool_connections') >= 1, 'the pool has opened a connection');
      } else {
        for (const name of pool) assert.equal(declared.has(name), false, `SQLite has no pool: no ${name}`);
      }
      assert.equal(sumOf(text, 'latch_http_requests_total', { method: 'GET', route: '/.well-known/openid-configuration', status: '200' }), 1);
      if (database === 'postgres') {
        // The Grafana dashboard queries only what Latch exports (the --workers families: in the workers test).
        const missing = [...dashboardFamilies()].filter((name) => !declared.has(name) && !name.startsWith('latch_cluster_'));
        assert.deepEqual(missing, [], 'every family the dashboard queries is exported');
      }
      // Every sign-in result is there from the start, at 0, so that rates and alerts see it before the first event.
      for (const result of ['success', 'wrong_password', 'unknown_account', 'throttled', 'incomplete']) {
        assert.equal(parseSamples(text).some((s) => s.name === 'latch_sign_ins_total' && s.labels.result === result), true, result);
      }

      const main = await fetch(`${server.baseUrl}/metrics`);
      assert.equal(main.status, 404);
      assert.doesNotMatch(await main.text(), /latch_http_requests_total/);
      const other = await fetch(new URL('/other', server.metricsUrl));
      assert.equal(other.status, 404);
      const post = await fetch(server.metricsUrl!, { method: 'POST' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
    });

    test('a code exchange counts one token response for authorization_code, and its requests and queries are timed', async () => {
      const before = await scrape(server);
      const { user, password } = await server.createUser();
      const client = await server.createClient();
      const { verifier, challenge } = pkcePair();
      const redirect = await authorize(
        new TestBrowser(),
        server.baseUrl,
        { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256' },
        { email: user.email, password },
      );
      const code = redirect.searchParams.get('code')!;
      const token = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(token.status, 200);
      const info = await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(info.status, 200);
      // The same code again: refused (invalid_grant), so not counted as tokens issued.
      const replay = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
      assert.equal(replay.status, 400);
      // A query string never becomes part of the route label, nor appears anywhere.
      await fetch(`${server.baseUrl}/oauth2/userinfo?access_token=${token.body.access_token}`);
      await fetch(`${server.baseUrl}/no-such-page?login_hint=${encodeURIComponent(user.email)}`);

      const after = await scrape(server);
      const delta = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
      assert.equal(delta('latch_tokens_issued_total', { grant_type: 'authorization_code' }), 1);
      assert.equal(delta('latch_http_requests_total', { method: 'POST', route: '/oauth2/token', status: '200' }), 1);
      assert.equal(delta('latch_http_requests_total', { method: 'POST', route: '/oauth2/token', status: '400' }), 1);
      assert.equal(delta('latch_http_request_duration_seconds_count', { method: 'POST', route: '/oauth2/token', status: '200' }), 1);
      assert.ok(delta('latch_http_request_duration_seconds_sum', { route: '/oauth2/token' }) > 0);
      assert.equal(delta('latch_http_requests_total', { method: 'GET', route: '/oauth2/userinfo', status: '200' }), 1);
      assert.equal(delta('latch_http_requests_total', { method: 'GET', route: '/oauth2/userinfo', status: '401' }), 1);
      assert.equal(delta('latch_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      assert.equal(delta('latch_sign_ins_total', { result: 'success' }), 1);
      assert.ok(delta('latch_db_query_duration_seconds_count', { operation: 'read' }) > 0, 'reads were timed');
      assert.ok(delta('latch_db_query_duration_seconds_count', { operation: 'write' }) + delta('latch_db_query_duration_seconds_count', { operation: 'transaction' }) > 0, 'writes were timed');
      // Cumulative buckets: +Inf equals the count.
      assert.equal(sumOf(after, 'latch_db_query_duration_seconds_bucket', { operation: 'read', le: '+Inf' }), sumOf(after, 'latch_db_query_duration_seconds_count', { operation: 'read' }));
      // Route labels are patterns Latch registered: no path carries anything the client sent.
      const routes = new Set(parseSamples(after).filter((s) => s.name === 'latch_http_requests_total').map((s) => s.labels.route));
      for (const route of routes) assert.ok(route === 'unmatched' || !route!.includes('?'), `route label ${route}`);

      // Nothing secret or personal, anywhere in the output.
      for (const secret of [client.clientSecret, client.clientId, user.email, password, code, verifier, token.body.access_token, token.body.id_token]) {
        assert.equal(after.includes(secret), false, `the metrics must not contain ${secret.slice(0, 12)}…`);
      }
      assert.equal(after.includes('no-such-page'), false);
      assert.equal(after.includes('login_hint'), false);
    });

    test('sign-ins count by result (wrong password, unknown account, incomplete, throttled), never with the email', async () => {
      const { user, password } = await server.createUser();
      const before = await scrape(server);
      const unknownEmail = `nobody-${Date.now()}@example.com`;
      assert.equal(await attemptSignIn(server, user.email, 'not the password'), 401);
      assert.equal(await attemptSignIn(server, unknownEmail, 'whatever it is'), 401);
      assert.equal(await attemptSignIn(server, user.email, ''), 400);
      assert.equal(await attemptSignIn(server, user.email, 'wrong again'), 401);
      // Two failures on the account (LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT=2): now throttled, the right password too.
      assert.equal(await attemptSignIn(server, user.email, password), 429);

      const after = await scrape(server);
      const delta = (name: string, labels: Record<string, string>) => sumOf(after, name, labels) - sumOf(before, name, labels);
      assert.equal(delta('latch_sign_ins_total', { result: 'wrong_password' }), 2);
      assert.equal(delta('latch_sign_ins_total', { result: 'unknown_account' }), 1);
      assert.equal(delta('latch_sign_ins_total', { result: 'incomplete' }), 1);
      assert.equal(delta('latch_sign_ins_total', { result: 'throttled' }), 1);
      assert.equal(delta('latch_sign_ins_total', { result: 'success' }), 0);
      assert.equal(delta('latch_throttled_requests_total', { route: '/login' }), 1);
      assert.equal(delta('latch_http_requests_total', { method: 'POST', route: '/login', status: '401' }), 2 + 1);
      for (const personal of [user.email, unknownEmail, password, 'not the password', 'wrong again']) {
        assert.equal(after.includes(personal), false, `the metrics must not contain ${personal}`);
      }
    });
  });
}

describe('latch serve --workers 2 with LATCH_METRICS_PORT', () => {
  test('the primary serves every worker’s metrics on one port, each worker’s series labelled apart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'latch-metrics-workers-'));
    const latch = await startLatchProcess({
      env: { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}`, LATCH_METRICS_PORT: '0' },
      args: ['--workers', '2'],
    });
    try {
      for (let i = 0; i < 200 && (latch.output().match(/listening on/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      const metricsUrl = /serving every worker's metrics at (http:\/\/[^"\s]+)/.exec(latch.output())?.[1];
      assert.ok(metricsUrl, latch.output());
      // Keep-alive off, so that the requests spread over both workers.
      const requests = 12;
      for (let i = 0; i < requests; i++) {
        const response = await fetch(`${latch.baseUrl}/.well-known/openid-configuration`, { headers: { connection: 'close' } });
        assert.equal(response.status, 200);
      }
      assert.equal((await fetch(`${latch.baseUrl}/metrics`)).status, 404);

      let text = '';
      // A worker reports once it is ready; both are, soon after they listen.
      for (let i = 0; i < 100; i++) {
        const response: Response = await fetch(metricsUrl);
        assert.equal(response.status, 200);
        text = await response.text();
        if (sumOf(text, 'latch_cluster_workers') === 2) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const samples = parseSamples(text);
      const workersWithLag = new Set(samples.filter((s) => s.name === 'nodejs_eventloop_lag_seconds').map((s) => s.labels.worker));
      assert.deepEqual([...workersWithLag].sort(), ['1', '2', 'primary'], text.slice(0, 2000));
      assert.equal(sumOf(text, 'latch_cluster_workers'), 2);
      const clusterFamilies = [...dashboardFamilies()].filter((name) => name.startsWith('latch_cluster_'));
      assert.ok(clusterFamilies.length > 0);
      for (const name of clusterFamilies) assert.equal(families(text).has(name), true, name);
      assert.equal(sumOf(text, 'latch_cluster_workers_unanswered'), 0);
      // Every request counted once, by whichever worker answered it.
      assert.equal(sumOf(text, 'latch_http_requests_total', { route: '/.well-known/openid-configuration', status: '200' }), requests);
      for (const sample of samples.filter((s) => s.name === 'latch_http_requests_total')) assert.ok(['1', '2'].includes(sample.labels.worker!), JSON.stringify(sample));

      latch.child.kill('SIGTERM');
      assert.deepEqual(await latch.exited, { code: 0, signal: null });
      // The primary closed the metrics port with the rest.
      await assert.rejects(fetch(metricsUrl));
    } finally {
      await latch.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
