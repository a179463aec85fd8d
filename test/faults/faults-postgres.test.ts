/**
 * Fault suite, scenario 2 (reliability issue, item 8): PostgreSQL going away under load.
 *
 * Latch reaches PostgreSQL through a TCP proxy of the test's own (test/helpers/tcp-proxy.ts), in its own
 * schema. The machine's PostgreSQL is never stopped: the test terminates exactly Latch's backends (those
 * whose `client_port` is one of the proxy's upstream connections) with pg_terminate_backend, or makes the
 * proxy refuse connections for a while.
 *
 * Expected: the process never dies; every request ends with 200 or with 503 + Retry-After +
 * `{"error":"temporarily_unavailable",…}` (never a 500, never a hang); service comes back by itself within
 * 5 s; every acknowledged token is valid afterwards. With the database away, /readyz says 503 within 2 s of
 * the outage's start and 200 within 5 s of its end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import { startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import {
  checkSurvival,
  ExchangeLoad,
  httpRequest,
  mintCodes,
  prepareData,
  REDIRECT_URI,
  sleep,
  tally,
  type ExchangeRecord,
  type HttpResult,
  type PreparedData,
} from '../helpers/load.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, runAdminSql, type TestSchema } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = (await postgresUnavailableReason()) ?? false;
const RATE = 75;

/** Answers a fault may produce: 200, or 503 with Retry-After and temporarily_unavailable. */
function badAnswers(records: HttpResult[]): string[] {
  const bad: string[] = [];
  for (const r of records) {
    if (r.ending !== 'answered') bad.push(`${r.ending} (${r.error}) after ${r.endedAt - r.startedAt} ms`);
    else if (r.status === 503) {
      if (!r.headers?.['retry-after']) bad.push(`503 without Retry-After: ${r.text?.slice(0, 200)}`);
      if (r.body?.error !== 'temporarily_unavailable') bad.push(`503 with body ${r.text?.slice(0, 200)}`);
    } else if (r.status !== 200) bad.push(`${r.status}: ${r.text?.slice(0, 200)}`);
  }
  return bad;
}

/** How long after `since` the first request started after it got a 200; null if none did. */
function recoveryMs(records: ExchangeRecord[], since: number): number | null {
  const firstOk = records.filter((r) => r.startedAt >= since && r.status === 200).sort((a, b) => a.endedAt - b.endedAt)[0];
  return firstOk ? firstOk.endedAt - since : null;
}

function watchExit(latch: LatchProcess): { died: () => string | null } {
  let died: string | null = null;
  void latch.exited.then(({ code, signal }) => (died = `exited with code ${code}, signal ${signal}`));
  return { died: () => died };
}

describe('PostgreSQL connections lost under load', { skip, timeout: 120_000 }, () => {
  let schema: TestSchema;
  let proxy: TcpProxy;
  let data: PreparedData;
  let env: Record<string, string>;
  let codes: string[];
  let nextCode = 0;
  const processes: LatchProcess[] = [];

  before(async () => {
    schema = await createTestSchema('latch_fault');
    const target = new URL(POSTGRES_TEST_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const direct = { LATCH_DATABASE_URL: POSTGRES_TEST_URL, LATCH_DATABASE_SCHEMA: schema.name, LATCH_SECRET: 'fault-suite-postgres-secret-0123456789-abcdef' };
    data = await prepareData(direct);
    codes = await mintCodes(POSTGRES_TEST_URL, { postgresSchema: schema.name, clientId: data.client.clientId, userId: data.userId, count: 2000 });
    const proxied = new URL(POSTGRES_TEST_URL);
    proxied.host = proxy.address;
    env = { ...direct, LATCH_DATABASE_URL: proxied.href };
  });

  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await proxy?.close();
    await schema?.drop();
  });

  const takeCodes = (n: number) => codes.slice(nextCode, (nextCode += n));

  async function verifyAfter(t: TestContext, latch: LatchProcess, load: ExchangeLoad) {
    const report = await checkSurvival(latch.baseUrl, data.client, load.acknowledged());
    t.diagnostic(`acknowledged ${report.acknowledged}, surviving ${report.surviving}, exchanged twice ${report.exchangedTwice.length}`);
    assert.deepEqual(report.lost, [], 'every acknowledged token still works');
    assert.equal(report.surviving, report.acknowledged);
    assert.deepEqual(report.exchangedTwice, []);
  }

  test("Latch's backends terminated again and again for 3 s: 200 or 503 + Retry-After, never a 500 or a hang; back within 5 s", async (t) => {
    const latch = await startLatchProcess({ env, args: ['--no-migrate'] });
    processes.push(latch);
    const life = watchExit(latch);
    const load = new ExchangeLoad({ baseUrl: () => latch.baseUrl, client: data.client, codes: takeCodes(900), ratePerSecond: RATE, maxInFlight: 32, timeoutMs: 10_000 }).start();
    await sleep(1000);

    let terminated = 0;
    let rounds = 0;
    const outageStart = Date.now();
    let lastTermination = outageStart;
    while (Date.now() - outageStart < 3000) {
      const ports = proxy.upstreamLocalPorts();
      if (ports.length > 0) {
        const { rows } = await runAdminSql(
          'select pg_terminate_backend(pid) as done from pg_stat_activity where client_port = any($1::int[]) and pid <> pg_backend_pid()',
          [ports],
        );
        terminated += rows.filter((row) => row.done).length;
      }
      rounds += 1;
      lastTermination = Date.now();
      await sleep(300);
    }
    await sleep(6000);
    await load.stop();

    const recovered = recoveryMs(load.records, lastTermination);
    const late = load.records.filter((r) => r.startedAt >= lastTermination + 5000);
    t.diagnostic(
      `${rounds} rounds of pg_terminate_backend over 3 s, ${terminated} backends terminated; ${load.sent} exchanges: ${JSON.stringify(load.summary())}; first 200 ${recovered} ms after the last termination; process ${life.died() ?? 'alive'}`,
    );
    assert.equal(life.died(), null, 'the process never dies');
    assert.ok(terminated > 0, "Latch's backends were found and terminated");
    assert.deepEqual(badAnswers(load.records).slice(0, 10), [], 'every request: 200, or 503 + Retry-After + temporarily_unavailable');
    assert.ok(recovered !== null && recovered <= 5000, `service back within 5 s of the last termination (${recovered} ms)`);
    assert.deepEqual(tally(late), { 200: late.length }, 'every exchange from 5 s after the last termination succeeds');
    await verifyAfter(t, latch, load);
  });

  test('the database away for 3 s (connections refused): /readyz 503 within 2 s, 200 within 5 s of its return; the process stays up', async (t) => {
    const latch = await startLatchProcess({ env, args: ['--no-migrate'] });
    processes.push(latch);
    const life = watchExit(latch);
    const load = new ExchangeLoad({ baseUrl: () => latch.baseUrl, client: data.client, codes: takeCodes(800), ratePerSecond: 50, maxInFlight: 32, timeoutMs: 10_000 }).start();
    const probes: HttpResult[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        probes.push(await httpRequest(`${latch.baseUrl}/readyz`, { timeoutMs: 2000 }));
        await sleep(100);
      }
    })();
    await sleep(1000);

    const outageStart = Date.now();
    await proxy.pause('refuse');
    await sleep(1500);
    // A person's page during the outage: the authorization request must read its client from the database.
    const page = await httpRequest(`${latch.baseUrl}/oauth2/authorize?response_type=code&client_id=${data.client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`, { timeoutMs: 5000 });
    await sleep(1500);
    await proxy.resume();
    const outageEnd = Date.now();
    await sleep(6000);
    probing = false;
    await prober;
    await load.stop();

    const firstNotReady = probes.find((p) => p.endedAt >= outageStart && p.status === 503);
    const notReadyMs = firstNotReady ? firstNotReady.endedAt - outageStart : null;
    const firstReadyAgain = probes.find((p) => p.startedAt >= outageEnd && p.status === 200);
    const readyAgainMs = firstReadyAgain ? firstReadyAgain.endedAt - outageEnd : null;
    const recovered = recoveryMs(load.records, outageEnd);
    t.diagnostic(
      `/readyz: ${JSON.stringify(tally(probes))}; 503 ${notReadyMs} ms after the outage began (${firstNotReady?.text ?? 'never'}); 200 ${readyAgainMs} ms after it ended; ` +
        `exchanges: ${JSON.stringify(load.summary())}, first 200 ${recovered} ms after the return; process ${life.died() ?? 'alive'}`,
    );
    assert.equal(life.died(), null, 'the process never dies');
    assert.ok(notReadyMs !== null && notReadyMs <= 2000, `/readyz 503 within 2 s of the outage (${notReadyMs} ms)`);
    assert.match(firstNotReady!.text ?? '', /database/);
    assert.ok(readyAgainMs !== null && readyAgainMs <= 5000, `/readyz 200 within 5 s of the return (${readyAgainMs} ms)`);
    assert.deepEqual(badAnswers(load.records).slice(0, 10), [], 'every request: 200, or 503 + Retry-After + temporarily_unavailable');
    assert.ok(recovered !== null && recovered <= 5000, `exchanges succeed within 5 s of the return (${recovered} ms)`);
    // People get a page that says so, with Retry-After, not JSON and not a 500.
    assert.equal(page.status, 503, `the authorization page during the outage: ${page.status} ${page.error ?? ''}`);
    assert.match(String(page.headers?.['content-type']), /text\/html/);
    assert.equal(page.headers?.['retry-after'], '5');
    assert.match(page.text ?? '', /cannot reach its database/);
    await verifyAfter(t, latch, load);
  });
});
