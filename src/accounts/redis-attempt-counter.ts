/**
 * Failure counters in Redis (`LATCH_REDIS_URL`), shared by every Latch process, so that sign-in throttling
 * holds across a cluster: an attacker spreading guesses over N processes gets no more than against one.
 *
 * Each counter is one Redis key in a fixed window: INCRBY, and EXPIRE when the INCRBY created it, in one Lua
 * script so that the two cannot be separated by a crash.
 *
 * Redis may be away, at start as at run time. Then the counters live in this process's memory (degraded:
 * throttling weakens to what a single process gives, and nobody is locked out by a cache outage), `/readyz`
 * says so in its body while staying ready, and a warning is logged. When Redis is back, the windows counted in
 * memory are added to Redis (INCRBY, keeping each window's end), so that failures made during the outage
 * still count against their account and address.
 */
import { Redis } from 'ioredis';
import { createMemoryAttemptCounter, type AttemptCounter, type OpenWindow } from './sign-in-throttle.js';

const INCREMENT_IN_WINDOW = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
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
  /** Before the Redis client is closed: its closing is then no failure to report. */
  close(): void;
}

/** How often a degraded counter whose connection is up tries a write to Redis. */
const PROBE_INTERVAL_MS = 1000;

export function createRedisAttemptCounter(redis: Redis, options: RedisAttemptCounterOptions): SharedAttemptCounter {
  const fallback = createMemoryAttemptCounter();
  const key = (name: string) => `${options.keyPrefix}${name}`;
  // Degraded from the first failure until Redis takes writes again; commands are not even tried meanwhile, so
  // that every count of the outage is in memory, and moved to Redis in one go when it is back.
  let degraded = redis.status !== 'ready';
  let closing = false;
  let probe: NodeJS.Timeout | undefined;

  const goDegraded = (error: unknown) => {
    if (closing) return;
    if (!degraded) {
      degraded = true;
      options.onError?.(error);
    }
    // A connection that stays up while Redis refuses (a replica after a failover answers READONLY, OOM, a
    // command timeout) brings no 'ready' event: probe with a write until one works.
    if (redis.status === 'ready') scheduleProbe();
  };
  const scheduleProbe = () => {
    if (probe || closing) return;
    probe = setTimeout(() => {
      probe = undefined;
      if (!degraded || closing || redis.status !== 'ready') return; // a reconnection's 'ready' recovers instead
      redis.set(key('probe'), '1', 'EX', 10).then(recover, () => scheduleProbe());
    }, PROBE_INTERVAL_MS);
    probe.unref();
  };
  const recover = () =>
    moveWindowsBack().then(
      (moved) => options.onReconnect?.(moved),
      (error: unknown) => goDegraded(error),
    );
  const orFallback = async <T>(run: () => Promise<T>, inMemory: () => Promise<T>): Promise<T> => {
    if (degraded) return inMemory();
    try {
      return await run();
    } catch (error) {
      goDegraded(error);
      return inMemory();
    }
  };
  redis.on('close', () => goDegraded(new Error('the connection to Redis closed')));
  redis.on('ready', () => void recover());

  /** Adds windows counted in memory to Redis; those Redis refused go back to memory, and the error is thrown. */
  async function addToRedis(open: OpenWindow[]): Promise<void> {
    if (open.length === 0) return;
    const now = Date.now();
    const pipeline = redis.pipeline();
    for (const window of open) pipeline.eval(ADD_OPEN_WINDOW, 1, key(window.key), window.count, Math.max(1, window.resetAt - now));
    let results: Array<[Error | null, unknown]>;
    try {
      results = (await pipeline.exec()) ?? [];
    } catch (error) {
      fallback.restore(open);
      throw error;
    }
    const refused = open.filter((_, i) => !results[i] || results[i]![0]);
    if (refused.length > 0) {
      fallback.restore(refused);
      throw results.find((result) => result?.[0])?.[0] ?? new Error('Redis did not answer every command of the pipeline');
    }
  }

  /** Adds what was counted in memory to Redis, then counts in Redis again. */
  async function moveWindowsBack(): Promise<number> {
    const first = fallback.drain(new Date());
    await addToRedis(first);
    degraded = false;
    // Failures counted in memory while the first batch was on its way.
    const late = fallback.drain(new Date());
    await addToRedis(late);
    return first.length + late.length;
  }

  return {
    status: () => (degraded ? 'degraded' : 'ok'),
    close() {
      closing = true;
      clearTimeout(probe);
    },
    count: (name, now) =>
      orFallback(
        async () => Number((await redis.get(key(name))) ?? 0),
        () => fallback.count(name, now),
      ),
    increment: (name, windowSeconds, now, amount = 1) =>
      orFallback(
        async () => Number(await redis.eval(INCREMENT_IN_WINDOW, 1, key(name), windowSeconds, amount)),
        () => fallback.increment(name, windowSeconds, now, amount),
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
    // A command that timed out was counted in memory: sent again after a reconnection, it would count twice.
    autoResendUnfulfilledCommands: false,
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
