/**
 * Failure counters in Redis (`LATCH_REDIS_URL`), shared by every Latch process, so that sign-in throttling
 * holds across a cluster: an attacker spreading guesses over N processes gets no more than against one.
 *
 * Each counter is one Redis key in a fixed window: INCR, and EXPIRE when the INCR created it, in one Lua
 * script so that the two cannot be separated by a crash. If Redis fails at run time, the counter falls back
 * to per-process memory (logged) instead of refusing every sign-in: throttling weakens to what a single
 * process gives, and nobody is locked out by a cache outage.
 */
import { Redis } from 'ioredis';
import { createMemoryAttemptCounter, type AttemptCounter } from './sign-in-throttle.js';

const INCREMENT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

export interface RedisAttemptCounterOptions {
  /** Prepended to every key (`LATCH_REDIS_KEY_PREFIX`, default `latch:`), so that installations can share a Redis. */
  keyPrefix: string;
  /** Told about each Redis failure that made the counter fall back to memory. */
  onError?: (error: unknown) => void;
}

export function createRedisAttemptCounter(redis: Redis, options: RedisAttemptCounterOptions): AttemptCounter {
  const fallback = createMemoryAttemptCounter();
  const key = (name: string) => `${options.keyPrefix}${name}`;
  const orFallback = async <T>(run: () => Promise<T>, degraded: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      options.onError?.(error);
      return degraded();
    }
  };
  return {
    count: (name, now) =>
      orFallback(
        async () => Number((await redis.get(key(name))) ?? 0),
        () => fallback.count(name, now),
      ),
    increment: (name, windowSeconds, now) =>
      orFallback(
        async () => Number(await redis.eval(INCREMENT_IN_WINDOW, 1, key(name), windowSeconds)),
        () => fallback.increment(name, windowSeconds, now),
      ),
    reset: (name) =>
      orFallback(
        async () => {
          await redis.del(key(name));
          await fallback.reset(name);
        },
        () => fallback.reset(name),
      ),
  };
}

/**
 * Connects to Redis and fails at start when it is unreachable (a misconfigured URL should not go unnoticed).
 * After that, commands fail fast instead of queueing while Redis is away (so a sign-in never waits on it).
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 5000,
    // Keep trying to reconnect in the background, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Errors are reported per command (and fall back); without a listener ioredis would print each one.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`LATCH_REDIS_URL: cannot connect to Redis (${(error as Error).message})`, { cause: error });
  }
  return redis;
}
