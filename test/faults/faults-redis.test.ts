/**
 * Fault suite, scenario 4 (reliability issue, item 8): Redis unreachable at start and in the middle of a run.
 *
 * Latch reaches Redis through a TCP proxy of the test's own (the machine's Redis is never stopped), with a key
 * prefix of its own. With the proxy down at start the process starts anyway, /readyz answers 200 with
 * `checks.redis: "degraded"`, and sign-in works (throttling counts per process). When the proxy comes up,
 * /readyz shows `checks.redis: "ok"` within seconds and failed sign-ins count in Redis again
 * (`<prefix>signin:account:<email>`, src/accounts/sign-in-throttle.ts). Taken down again while signed-in
 * flows run: every flow still succeeds, no 5xx, /readyz stays 200 (degraded).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import { httpRequest, prepareData, REDIRECT_URI, sleep, USER_PASSWORD, waitFor, type PreparedData } from '../helpers/load.js';
import { authorize, exchangeCode } from '../helpers/oauth-flow.js';
import { REDIS_TEST_URL, redisUnavailableReason } from '../helpers/redis.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = (await redisUnavailableReason()) ?? false;

describe('Redis unreachable at start and mid-run', { skip, timeout: 120_000 }, () => {
  const prefix = `latch-fault-${randomBytes(6).toString('hex')}:`;
  let dir: string;
  let proxy: TcpProxy;
  let redis: Redis;
  let latch: LatchProcess | undefined;
  let data: PreparedData;
  let startError: unknown;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latch-fault-redis-'));
    const target = new URL(REDIS_TEST_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    await proxy.pause('refuse');
    redis = new Redis(REDIS_TEST_URL, { lazyConnect: true });
    await redis.connect();
    const env = {
      LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`,
      LATCH_REDIS_URL: `redis://${proxy.address}`,
      LATCH_REDIS_KEY_PREFIX: prefix,
    };
    data = await prepareData(env, 'redis-fault@example.com');
    try {
      latch = await startLatchProcess({ env, timeoutMs: 20_000 });
    } catch (error) {
      startError = error;
    }
  });

  after(async () => {
    await latch?.stop('SIGKILL');
    await proxy?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const user = () => ({ email: data.email, password: USER_PASSWORD });
  const client = () => ({ clientId: data.client.clientId, clientSecret: data.client.clientSecret, redirectUris: [REDIRECT_URI] });

  async function readyz(): Promise<{ status?: number; redis?: string; text?: string }> {
    const result = await httpRequest(`${latch!.baseUrl}/readyz`, { timeoutMs: 3000 });
    return { status: result.status, redis: result.body?.checks?.redis, text: result.text ?? result.error };
  }

  /** Sign in with a fresh browser, get a code (consent remembered after the first), exchange it: the token's status. */
  async function signedInFlow(statuses: number[]): Promise<number> {
    const browser = new TestBrowser();
    const originalRequest = browser.request.bind(browser);
    browser.request = async (...args) => {
      const response = await originalRequest(...args);
      statuses.push(response.status);
      return response;
    };
    const redirect = await authorize(browser, latch!.baseUrl, { response_type: 'code', client_id: data.client.clientId, redirect_uri: REDIRECT_URI, scope: 'profile' }, user());
    const code = redirect.searchParams.get('code');
    assert.ok(code, redirect.href);
    const token = await exchangeCode(latch!.baseUrl, client(), { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
    statuses.push(token.status);
    return token.status;
  }

  async function failSignIn(): Promise<number> {
    const browser = new TestBrowser();
    const page = await browser.request(`${latch!.baseUrl}/login`);
    const response = await browser.request(`${latch!.baseUrl}/login`, {
      form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email: data.email, password: 'wrong password, wrong password' },
    });
    return response.status;
  }

  test('Redis away at start: Latch starts, /readyz 200 with redis degraded, sign-in works; Redis back: readyz ok, failures counted in Redis', async (t) => {
    assert.ok(latch, `Latch starts with Redis unreachable: ${(startError as Error)?.message}`);
    const atStart = await readyz();
    t.diagnostic(`/readyz with Redis away: ${atStart.status} ${atStart.text}`);
    assert.equal(atStart.status, 200, atStart.text);
    assert.equal(atStart.redis, 'degraded', atStart.text);

    const statuses: number[] = [];
    assert.equal(await signedInFlow(statuses), 200, 'the whole sign-in flow works without Redis');
    assert.equal(await failSignIn(), 401, 'a wrong password is refused (counted in memory)');

    const backAt = Date.now();
    await proxy.resume();
    let last = atStart;
    const waited = await waitFor(async () => (last = await readyz()).redis === 'ok', 8000, 100);
    t.diagnostic(`Redis back: /readyz redis "ok" after ${waited ?? `never (8 s; last ${last.status} ${last.text})`} ms`);
    assert.ok(waited !== null && waited <= 6000, `readyz shows Redis ok within 6 s of its return (${Date.now() - backAt} ms, last ${last.text})`);
    assert.equal(last.status, 200);

    const accountKey = `${prefix}signin:account:${data.email}`;
    const before = Number((await redis.get(accountKey)) ?? 0);
    assert.equal(await failSignIn(), 401);
    let count = before;
    await waitFor(async () => (count = Number((await redis.get(accountKey)) ?? 0)) > before, 2000);
    const keys = await redis.keys(`${prefix}*`);
    t.diagnostic(`after a failed sign-in with Redis back: ${accountKey} = ${count} (was ${before}); keys under the prefix: ${keys.join(', ')}`);
    assert.ok(count > before, `the failure is counted in Redis (${accountKey}: ${before} → ${count})`);
  });

  test('Redis lost while signed-in flows run: every flow succeeds, no 5xx, readyz 200 degraded, then ok again', async (t) => {
    assert.ok(latch, `Latch is running: ${(startError as Error)?.message}`);
    await proxy.resume();
    assert.notEqual(await waitFor(async () => (await readyz()).redis === 'ok', 8000, 100), null, 'Redis ok before the outage');

    const statuses: number[] = [];
    const failures: string[] = [];
    let flows = 0;
    let running = true;
    const runner = async () => {
      while (running) {
        try {
          const status = await signedInFlow(statuses);
          if (status !== 200) failures.push(`token ${status}`);
        } catch (error) {
          failures.push((error as Error).message.slice(0, 300));
        }
        flows += 1;
      }
    };
    const runners = [runner(), runner()];
    await sleep(1000);
    const flowsBefore = flows;
    await proxy.pause('reset');
    await sleep(1500);
    const during = await readyz();
    const failedDuring = await failSignIn();
    await sleep(1500);
    const flowsDuring = flows - flowsBefore;
    const backAt = Date.now();
    await proxy.resume();
    await sleep(1000);
    running = false;
    await Promise.all(runners);
    const okAgain = await waitFor(async () => (await readyz()).redis === 'ok', 8000, 100);

    const byStatus: Record<string, number> = {};
    for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
    t.diagnostic(
      `${flows} signed-in flows (${flowsDuring} during the 3 s outage), ${failures.length} failed; responses by status ${JSON.stringify(byStatus)}; ` +
        `/readyz during the outage: ${during.status} ${during.text}; a wrong password during it: ${failedDuring}; readyz ok ${okAgain ?? 'never'} ms after Redis came back (${Date.now() - backAt} ms)`,
    );
    assert.deepEqual(failures.slice(0, 5), [], 'every signed-in flow succeeds');
    assert.ok(flowsDuring > 0, 'flows ran during the outage');
    assert.deepEqual(
      statuses.filter((s) => s >= 500),
      [],
      'no 5xx',
    );
    assert.equal(during.status, 200, `readyz during the Redis outage: ${during.text}`);
    assert.equal(during.redis, 'degraded', during.text);
    assert.equal(failedDuring, 401, 'a wrong password is refused, not an error');
    assert.notEqual(okAgain, null, 'readyz shows Redis ok again');
  });
});
