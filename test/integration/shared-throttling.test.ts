/**
 * Sign-in throttling shared by several processes through Redis (LATCH_REDIS_URL), and per process without it.
 * Skipped, saying why, when Redis is unreachable.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { connectRedis, createRedisAttemptCounter } from '../../src/accounts/redis-attempt-counter.js';
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

  test('an unreachable LATCH_REDIS_URL stops the start with a clear error', async () => {
    await assert.rejects(startTestServer({ env: { LATCH_REDIS_URL: 'redis://127.0.0.1:9' } }), /LATCH_REDIS_URL: cannot connect to Redis/);
  });
});

describe('Redis attempt counter', { skip }, () => {
  test('counts are shared by separate connections, expire with the window, and reset', async () => {
    const prefix = `latch-test-${randomBytes(6).toString('hex')}:`;
    const [one, two] = [await connectRedis(REDIS_TEST_URL), await connectRedis(REDIS_TEST_URL)];
    try {
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
    const redis = await connectRedis(REDIS_TEST_URL);
    const errors: unknown[] = [];
    const counter = createRedisAttemptCounter(redis, { keyPrefix: `latch-test-${randomBytes(6).toString('hex')}:`, onError: (e) => errors.push(e) });
    redis.disconnect();
    const now = new Date();
    assert.equal(await counter.increment('k', 60, now), 1);
    assert.equal(await counter.increment('k', 60, now), 2);
    assert.equal(await counter.count('k', now), 2);
    assert.ok(errors.length >= 3);
    assert.ok(redis instanceof Redis);
  });
});
