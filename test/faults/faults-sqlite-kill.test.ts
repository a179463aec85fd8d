/**
 * Fault suite, scenario 1 (reliability issue, item 8): `kill -9` under load on the embedded database.
 *
 * Code exchanges at ~200/s from concurrent clients, then SIGKILL at a random moment, then a restart on the
 * same file. What was acknowledged must have been durable: every token whose 200 reached the client still
 * works at /oauth2/userinfo, every code that got a 200 is refused (invalid_grant) when exchanged again, and
 * `PRAGMA integrity_check` says ok. The same with `--workers 2` and the primary killed: the workers notice
 * and exit by themselves, quickly, releasing the port and the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test, type TestContext } from 'node:test';
import { openSqliteFile } from '../../src/storage/sqlite/file.js';
import { startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import {
  checkSurvival,
  childPids,
  exchange,
  ExchangeLoad,
  httpRequest,
  mintCodes,
  prepareData,
  processAlive,
  sleep,
  waitFor,
  type ExchangeRecord,
  type PreparedData,
} from '../helpers/load.js';

const RATE = 200;

/** Through Latch's own opener: better-sqlite3 12 aborts the process on Node 24 (sqlite-connection.ts), node:sqlite does not. */
function integrityCheck(path: string): string {
  const db = openSqliteFile(path);
  try {
    return (db.prepare('pragma integrity_check').all([]) as Array<{ integrity_check: string }>).map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

async function waitReady(baseUrl: string): Promise<void> {
  const waited = await waitFor(async () => (await httpRequest(`${baseUrl}/readyz`, { timeoutMs: 2000 })).status === 200, 10_000);
  assert.notEqual(waited, null, `${baseUrl}/readyz never answered 200`);
}

/** Codes whose request ended without an answer (in flight at the kill): after the restart each is either unused (200) or used (invalid_grant). */
async function checkUnanswered(t: TestContext, baseUrl: string, load: ExchangeLoad, client: Parameters<typeof exchange>[1]): Promise<void> {
  const unanswered = load.records.filter((r) => r.ending !== 'answered');
  const outcomes: Record<string, number> = {};
  for (const record of unanswered) {
    const again = await exchange(baseUrl, client, record.code);
    const key = again.status === 200 ? 'never used (200)' : again.body?.error === 'invalid_grant' ? 'used before the kill (invalid_grant)' : `${again.ending} ${again.status}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    assert.ok(again.status === 200 || again.body?.error === 'invalid_grant', `a code in flight at the kill: ${again.status} ${again.text ?? again.error}`);
  }
  t.diagnostic(`codes in flight at the kill, exchanged after the restart: ${JSON.stringify(outcomes)}`);
}

describe('kill -9 under load on SQLite', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  const processes: LatchProcess[] = [];
  after(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), 'latch-fault-kill-'));
    dirs.push(dir);
    const path = join(dir, 'latch.db');
    const env = { LATCH_DATABASE_URL: `sqlite:${path}` };
    const data = await prepareData(env);
    const codes = await mintCodes(env.LATCH_DATABASE_URL, { clientId: data.client.clientId, userId: data.userId, count: 1500 });
    return { path, env, data, codes };
  }

  /** Starts Latch again on the same file; every acknowledged exchange must still hold, and the file be intact. */
  async function restartAndVerify(
    t: TestContext,
    run: { env: Record<string, string>; path: string; data: PreparedData; load: ExchangeLoad; acknowledged: ExchangeRecord[]; args: string[] },
  ): Promise<void> {
    const restartStart = Date.now();
    const second = await startLatchProcess({ env: run.env, args: run.args });
    processes.push(second);
    const listeningMs = Date.now() - restartStart;
    await waitReady(second.baseUrl);
    const readyMs = Date.now() - restartStart;

    const report = await checkSurvival(second.baseUrl, run.data.client, run.acknowledged);
    t.diagnostic(
      `restart (latch serve ${run.args.join(' ')}): listening after ${listeningMs} ms, ready after ${readyMs} ms; acknowledged ${report.acknowledged}, surviving ${report.surviving}, exchanged twice ${report.exchangedTwice.length}`,
    );
    assert.deepEqual(report.lost, [], 'every acknowledged token still works');
    assert.equal(report.surviving, report.acknowledged);
    assert.deepEqual(report.exchangedTwice, [], 'every acknowledged code is refused the second time');
    await checkUnanswered(t, second.baseUrl, run.load, run.data.client);

    const integrity = integrityCheck(run.path);
    t.diagnostic(`PRAGMA integrity_check: ${integrity}`);
    assert.equal(integrity, 'ok');
    await second.stop();
  }

  test('one process: every acknowledged exchange survives SIGKILL; no code is exchanged twice; the file is intact', async (t) => {
    const { path, env, data, codes } = await setUp();
    const first = await startLatchProcess({ env });
    processes.push(first);
    const baseUrl = first.baseUrl;
    const load = new ExchangeLoad({ baseUrl: () => baseUrl, client: data.client, codes, ratePerSecond: RATE, maxInFlight: 32 }).start();

    const killAfter = 1000 + Math.round(Math.random() * 2000);
    await sleep(killAfter);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await sleep(200);
    await load.stop();
    const acknowledged = load.acknowledged();
    t.diagnostic(`SIGKILL after ${killAfter} ms: ${load.sent} exchanges sent, ended ${JSON.stringify(load.summary())}, ${acknowledged.length} acknowledged`);
    assert.ok(acknowledged.length >= 50, `the load ran (${acknowledged.length} acknowledged)`);
    assert.equal(load.records.filter((r) => r.ending === 'hung').length, 0, 'no request hung');

    await restartAndVerify(t, { env, path, data, load, acknowledged, args: [] });
  });

  test('--workers 2, primary killed: the workers exit by themselves, and every acknowledged exchange survives', async (t) => {
    const { path, env, data, codes } = await setUp();
    const first = await startLatchProcess({ env, args: ['--workers', '2'] });
    processes.push(first);
    const primary = first.child.pid!;
    const started = await waitFor(() => childPids(primary).length === 2 && (first.output().match(/listening on/g) ?? []).length >= 2, 20_000);
    assert.notEqual(started, null, `two workers listening:\n${first.output()}`);
    const workers = childPids(primary);
    const baseUrl = first.baseUrl;
    const load = new ExchangeLoad({ baseUrl: () => baseUrl, client: data.client, codes, ratePerSecond: RATE, maxInFlight: 32 }).start();

    const killAfter = 1000 + Math.round(Math.random() * 2000);
    await sleep(killAfter);
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    const workersGone = await waitFor(() => workers.every((pid) => !processAlive(pid)), 10_000, 20);
    const goneMs = Date.now() - killedAt;
    await sleep(200);
    await load.stop();
    const acknowledged = load.acknowledged();
    t.diagnostic(
      `primary SIGKILL after ${killAfter} ms; workers ${workers.join(', ')} gone after ${workersGone === null ? 'never (10 s)' : `${goneMs} ms`}; ${load.sent} sent, ended ${JSON.stringify(load.summary())}, ${acknowledged.length} acknowledged`,
    );
    if (workersGone === null) for (const pid of workers) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    assert.notEqual(workersGone, null, 'the workers exited by themselves after the primary was killed');
    assert.ok(goneMs <= 3000, `the workers exited within 3 s of the primary's death (${goneMs} ms)`);
    assert.ok(acknowledged.length >= 50, `the load ran (${acknowledged.length} acknowledged)`);
    assert.equal(load.records.filter((r) => r.ending === 'hung').length, 0, 'no request hung');

    await restartAndVerify(t, { env, path, data, load, acknowledged, args: ['--workers', '2'] });
  });
});
