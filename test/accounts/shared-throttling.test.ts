/**
 * Sign-in throttling shared by several processes through Redis (LATCH_REDIS_URL), and per process without it.
 * Skipped, saying why, when Redis is unreachable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { connectRedis, createRedisAttemptCounter, waitForRedis } from '../../src/accounts/redis-attempt-counter.js';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { REDIS_TEST_URL, redisUnavailableReason } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const skip = (await redisUnavailableReason()) ?? false;

async function failSignIn(server: TestServer, email: string): Promise<number> {
  const browser = new TestBrowser();
  const page = await browser.request(`${server.baseUrl}/login`);
  const response = await browser.request(`${server.baseUrl}/login`, {
    form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email, password: 'wrong password, wrong password' },
  });
  return response.status;
}

/** Two Latch servers on one database (one SQLite file), as two processes behind a load balancer. */
async function startPair(env: Record<string, string>): Promise<[TestServer, TestServer]> {
  const first = await startTestServer({ database: 'sqlite', env });
  const second = await startTestServer({ database: 'sqlite', env, dataDir: first.dataDir });
  return [first, second];
}

describe('sign-in throttling across processes', () => {
  const limits = { LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000' };

  test('with LATCH_REDIS_URL, failures on either process count together', { skip }, async () => {
    const [a, b] = await startPair({ ...limits, LATCH_REDIS_URL: REDIS_TEST_URL, LATCH_REDIS_KEY_PREFIX: `latch-test-${randomBytes(6).toString('hex')}:` });
    try {
      const { user } = await a.createUser();
      assert.equal(await failSignIn(a, user.email), 401);
      assert.equal(await failSignIn(b, user.email), 401);
      assert.equal(await failSignIn(a, user.email), 401);
      // Three failures in all: both processes now throttle the account.
      assert.equal(await failSignIn(b, user.email), 429);
      assert.equal(await failSignIn(a, user.email), 429);
    } finally {
      await b.stop({ keepData: true });
      await a.stop();
    }
  });

  test('without Redis, each process counts only its own failures (per-process throttling)', async () => {
    const [a, b] = await startPair(limits);
    try {
      const { user } = await a.createUser();
      assert.equal(await failSignIn(a, user.email), 401);
      assert.equal(await failSignIn(b, user.email), 401);
      assert.equal(await failSignIn(a, user.email), 401);
      assert.equal(await failSignIn(b, user.email), 401);
      // Five failures in all, yet only A has reached the limit of three.
      assert.equal(await failSignIn(a, user.email), 401);
      assert.equal(await failSignIn(a, user.email), 429);
      assert.equal(await failSignIn(b, user.email), 401);
    } finally {
      await b.stop({ keepData: true });
      await a.stop();
    }
  });

  test('an unreachable LATCH_REDIS_URL does not stop the start: readyz says degraded and stays 200, sign-in throttles per process', async () => {
    const server = await startTestServer({ env: { ...limits, LATCH_REDIS_URL: 'redis://127.0.0.1:9' } });
    try {
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      const body = (await ready.json()) as { checks: { redis?: string }; note?: string };
      assert.equal(body.checks.redis, 'degraded');
      assert.match(body.note ?? '', /Redis is unreachable/);
      const { user } = await server.createUser();
      for (let i = 0; i < 3; i++) assert.equal(await failSignIn(server, user.email), 401);
      assert.equal(await failSignIn(server, user.email), 429);
    } finally {
      await server.stop();
    }
  });
});

describe('Redis attempt counter', { skip }, () => {
  test('counts are shared by separate connections, expire with the window, and reset', async () => {
    const prefix = `latch-test-${randomBytes(6).toString('hex')}:`;
    const [one, two] = [connectRedis(REDIS_TEST_URL), connectRedis(REDIS_TEST_URL)];
    try {
      assert.equal(await waitForRedis(one, 2000), true);
      assert.equal(await waitForRedis(two, 2000), true);
      const first = createRedisAttemptCounter(one, { keyPrefix: prefix });
      const second = createRedisAttemptCounter(two, { keyPrefix: prefix });
      const now = new Date();
      assert.equal(await first.increment('k', 60, now), 1);
      assert.equal(await second.increment('k', 60, now), 2);
      assert.equal(await first.count('k', now), 2);
      const ttl = await one.ttl(`${prefix}k`);
      assert.ok(ttl > 0 && ttl <= 60, `ttl ${ttl}`);
      await second.reset('k');
      assert.equal(await first.count('k', now), 0);
    } finally {
      await one.quit();
      await two.quit();
    }
  });

  test('when Redis fails at run time, counting falls back to this process instead of failing sign-ins', async () => {
    const redis = connectRedis(REDIS_TEST_URL);
    assert.equal(await waitForRedis(redis, 2000), true);
    const errors: unknown[] = [];
    const counter = createRedisAttemptCounter(redis, { keyPrefix: `latch-test-${randomBytes(6).toString('hex')}:`, onError: (e) => errors.push(e) });
    redis.disconnect();
    const now = new Date();
    assert.equal(await counter.increment('k', 60, now), 1);
    assert.equal(await counter.increment('k', 60, now), 2);
    assert.equal(await counter.count('k', now), 2);
    assert.ok(errors.length >= 1);
    // The client reports the closed connection a moment after disconnect() returns.
    for (let waited = 0; redis.status !== 'end' && waited < 2000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    assert.equal(counter.status(), 'degraded');
    assert.ok(redis instanceof Redis);
  });

  test('counters kept in memory while Redis was away move to Redis when it is back, keeping their window', async () => {
    const prefix = `latch-test-${randomBytes(6).toString('hex')}:`;
    // Not connected yet: Redis is "away" from the counter's point of view until the client is ready.
    const redis = new Redis(REDIS_TEST_URL, { lazyConnect: true, enableOfflineQueue: false });
    const moved: number[] = [];
    const counter = createRedisAttemptCounter(redis, { keyPrefix: prefix, onReconnect: (n) => moved.push(n) });
    try {
      assert.equal(counter.status(), 'degraded');
      const now = new Date();
      assert.equal(await counter.increment('signin:account:a@example.com', 60, now), 1);
      assert.equal(await counter.increment('signin:account:a@example.com', 60, now), 2);
      assert.equal(await counter.increment('signin:address:127.0.0.1', 60, now), 1);
      await redis.connect();
      for (let waited = 0; moved.length === 0 && waited < 2000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(moved, [2]);
      assert.equal(counter.status(), 'ok');
      assert.equal(await redis.get(`${prefix}signin:account:a@example.com`), '2');
      const ttl = await redis.pttl(`${prefix}signin:account:a@example.com`);
      assert.ok(ttl > 55_000 && ttl <= 60_000, `the window keeps its end (pttl ${ttl})`);
      // And counting goes on in Redis, from where memory left it.
      assert.equal(await counter.increment('signin:account:a@example.com', 60, now), 3);
    } finally {
      redis.disconnect();
    }
  });

  test('a Redis that stays connected but refuses writes: degraded, counted in memory, nothing lost while moving back, recovered by a probe', async () => {
    const prefix = `latch-test-${randomBytes(6).toString('hex')}:`;
    const redis = connectRedis(REDIS_TEST_URL);
    assert.equal(await waitForRedis(redis, 2000), true);
    const moved: number[] = [];
    const counter = createRedisAttemptCounter(redis, { keyPrefix: prefix, onReconnect: (n) => moved.push(n) });
    const waitUntil = async (condition: () => boolean) => {
      for (let waited = 0; !condition() && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      // INCR on a value that is not a number fails while the connection is fine (as READONLY or OOM would).
      await redis.set(`${prefix}k`, 'not a number');
      const now = new Date();
      assert.equal(await counter.increment('k', 60, now), 1);
      assert.equal(counter.status(), 'degraded', 'a failed command makes the counter degraded, not only a closed connection');
      assert.equal(await counter.increment('k', 60, now), 2);
      // The probe's write works, but adding the window to Redis fails: the window stays in memory, nothing lost.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(counter.status(), 'degraded');
      assert.equal(await counter.count('k', now), 2);
      assert.deepEqual(moved, []);
      // Redis takes the key again: the next probe moves the window back.
      await redis.del(`${prefix}k`);
      await waitUntil(() => moved.length > 0);
      assert.deepEqual(moved, [1]);
      assert.equal(counter.status(), 'ok');
      assert.equal(await redis.get(`${prefix}k`), '2');
    } finally {
      counter.close();
      await redis.quit();
    }
  });
});
