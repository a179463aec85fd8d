/**
 * Failure counters in Redis (`LATCH_REDIS_URL`), shared by every Latch process, so that sign-in throttling
 * holds across a cluster: an attacker spreading guesses over N processes gets no more than against one.
 *
 * Each counter is one Redis key in a fixed window: INCR, and EXPIRE when the INCR created it, in one Lua
 * script so that the two cannot be separated by a crash.
 *
 * Redis may be away, at start as at run time. Then the counters live in this process's memory (degraded:
 * throttling weakens to what a single process gives, and nobody is locked out by a cache outage), `/readyz`
 * says so in its body while staying ready, and a warning is logged. When Redis is back, the windows counted in
 * memory are added to Redis (INCRBY, keeping each window's end), so that failures made during the outage
 * still count against their account and address.
 */
import { Redis } from 'ioredis';
import { createMemoryAttemptCounter, type AttemptCounter } from './sign-in-throttle.js';

const INCREMENT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** Adds a window counted in memory to Redis; a key Redis did not have takes the window's remaining time. */
const ADD_OPEN_WINDOW = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return count`;

export interface RedisAttemptCounterOptions {
  /** Prepended to every key (`LATCH_REDIS_KEY_PREFIX`, default `latch:`), so that installations can share a Redis. */
  keyPrefix: string;
  /** Told about each Redis failure that made the counter fall back to memory. */
  onError?: (error: unknown) => void;
  /** Told when Redis is reachable again, with how many open windows were moved back from memory. */
  onReconnect?: (movedWindows: number) => void;
}

export interface SharedAttemptCounter extends AttemptCounter {
  /** `ok` while Redis answers; `degraded` while the counters live in this process's memory. */
  status(): 'ok' | 'degraded';
}

export function createRedisAttemptCounter(redis: Redis, options: RedisAttemptCounterOptions): SharedAttemptCounter {
  const fallback = createMemoryAttemptCounter();
  const key = (name: string) => `${options.keyPrefix}${name}`;
  // Degraded from the first failure until Redis says it is ready again; commands are not even tried meanwhile
  // (they would fail at once: the offline queue is off), so that every count of the outage is in memory.
  let degraded = redis.status !== 'ready';
  const orFallback = async <T>(run: () => Promise<T>, inMemory: () => Promise<T>): Promise<T> => {
    if (degraded) return inMemory();
    try {
      return await run();
    } catch (error) {
      degraded = redis.status !== 'ready';
      options.onError?.(error);
      return inMemory();
    }
  };
  redis.on('close', () => {
    if (degraded) return;
    degraded = true;
    options.onError?.(new Error('the connection to Redis closed'));
  });
  redis.on('ready', () => {
    void moveWindowsBack().then(
      (moved) => options.onReconnect?.(moved),
      (error: unknown) => options.onError?.(error),
    );
  });

  /** Adds what was counted in memory to Redis, then counts in Redis again. */
  async function moveWindowsBack(): Promise<number> {
    // New failures count in Redis from now on; those of the outage are added below.
    degraded = false;
    const now = Date.now();
    const open = fallback.drain(new Date(now));
    if (open.length === 0) return 0;
    const pipeline = redis.pipeline();
    for (const window of open) pipeline.eval(ADD_OPEN_WINDOW, 1, key(window.key), window.count, window.resetAt - now);
    await pipeline.exec();
    return open.length;
  }

  return {
    status: () => (degraded ? 'degraded' : 'ok'),
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
 * A Redis client that connects in the background and keeps reconnecting (at most every 2 s): a process starts
 * while Redis is unreachable, and uses it once it answers. Commands fail fast instead of queueing while Redis
 * is away, so a sign-in never waits on it. A URL that does not parse is a configuration error (config.ts).
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 5000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  // Failures are reported per command and on reconnection (createRedisAttemptCounter); without a listener
  // ioredis would print each one.
  redis.on('error', () => {});
  redis.connect().catch(() => {
    // Not reachable yet: ioredis keeps trying by itself (retryStrategy).
  });
  return redis;
}

/** Waits until the client is ready or `timeoutMs` has passed; true when ready (so that a first request finds it). */
export function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}
