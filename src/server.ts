/**
 * Running Latch: load configuration, open storage (migrating unless told not to), build the app, listen, and
 * shut down gracefully on SIGTERM/SIGINT (Fastify's close waits for requests in flight).
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { connectRedis, createRedisAttemptCounter, waitForRedis, type SharedAttemptCounter } from './accounts/redis-attempt-counter.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { SigningKeyCache } from './crypto/signing-key-cache.js';
import { openStorage, storageOptionsFromConfig } from './storage/open-storage.js';
import { OUTBOX_RETENTION_SECONDS } from './mail/mailer.js';
import type { Storage } from './storage/storage.js';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
/** How long a starting process waits for Redis before it starts degraded (counters in memory). */
const REDIS_START_WAIT_MS = 2000;
/** Used and expired codes are kept a day past expiry, so that a late replay is still recognised as reuse. */
const CODE_RETENTION_SECONDS = 86400;
const CLIENT_EVENT_RETENTION_SECONDS = 30 * 86400;
/** Retired signing keys stay a day, so that `latch keys list` shows what happened, then go with their private parts. */
const RETIRED_SIGNING_KEY_RETENTION_SECONDS = 86400;

export interface RunningServer {
  app: FastifyInstance;
  storage: Storage;
  /** This process's signing keys (refresh() reloads them at once, instead of waiting for the next interval). */
  signingKeys: SigningKeyCache;
  url: string;
  close(): Promise<void>;
}

export async function deleteExpiredRecords(storage: Storage, now = new Date()): Promise<void> {
  const seconds = (s: number) => new Date(now.getTime() - s * 1000);
  await storage.authorizationCodes.deleteExpired(seconds(CODE_RETENTION_SECONDS));
  await storage.accessTokens.deleteExpired(now);
  await storage.browserSessions.deleteExpired(now);
  await storage.clientEvents.deleteBefore(seconds(CLIENT_EVENT_RETENTION_SECONDS));
  await storage.emailLinks.deleteExpired(now);
  await storage.outbox.deleteBefore(seconds(OUTBOX_RETENTION_SECONDS));
  await storage.signingKeys.deleteRetired(seconds(RETIRED_SIGNING_KEY_RETENTION_SECONDS));
}

export interface StartServerOptions {
  /** Run pending migrations first (default true; `latch serve --no-migrate` sets false). */
  migrate?: boolean;
  /** Logger options instead of the ones built from config (tests capture the log lines this way). */
  logger?: FastifyServerOptions['logger'];
  /** Called last when the server has closed (for resources opened beside it, such as the Redis client). */
  onClose?: () => Promise<void>;
}

export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  let app: FastifyInstance | undefined;
  const storage = await openStorage(config.databaseUrl, {
    ...storageOptionsFromConfig(config),
    migrate: options.migrate ?? true,
    backgroundCheckpoints: true,
    // The connection's error only, no stack: the outage is the operator's to fix, and pg's error carries its client.
    onIdleConnectionError: (err) =>
      app?.log.warn({ reason: err.message, code: (err as { code?: unknown }).code }, 'a database connection failed; it will be replaced'),
  });
  // Sign-in throttling counters: shared through Redis when configured, else per process (in memory).
  let redis: Redis | undefined;
  let attemptCounter: SharedAttemptCounter | undefined;
  let redisUnreachableAtStart = false;
  let signingKeys: SigningKeyCache | undefined;
  try {
    if (config.redisUrl) {
      redis = connectRedis(config.redisUrl);
      let lastWarning = 0;
      attemptCounter = createRedisAttemptCounter(redis, {
        keyPrefix: config.redisKeyPrefix,
        onError: (err) => {
          // At most one warning a minute while Redis is away; no stack: the outage is the operator's to fix.
          if (Date.now() - lastWarning < 60_000) return;
          lastWarning = Date.now();
          app?.log.warn({ reason: (err as Error)?.message }, 'Redis failed; sign-in throttling counts in this process until it is back');
        },
        onReconnect: (moved) => {
          lastWarning = 0;
          app?.log.info(`Redis is reachable; throttling counts in Redis again (${moved} open windows moved back from this process)`);
        },
      });
      // Redis may be away at start: Latch starts anyway, degraded (README "When a store is away").
      redisUnreachableAtStart = !(await waitForRedis(redis, REDIS_START_WAIT_MS));
      if (redisUnreachableAtStart) lastWarning = Date.now();
    }
    signingKeys = await SigningKeyCache.open(storage, config.secret, { refreshSeconds: config.signingKeyRefreshSeconds });
    app = await buildApp({ config, storage, attemptCounter, signingKeys, logger: options.logger, ...(attemptCounter && { sharedCounterStatus: attemptCounter.status }) });
    signingKeys.setLogger(app.log);
    if (redisUnreachableAtStart) {
      app.log.warn('Redis is unreachable at start; sign-in throttling counts in this process until it is reachable (readyz: redis degraded)');
    }
    if (!signingKeys.isLoaded) app.log.warn('signing keys are not available yet (database unreachable or not migrated); retrying on first use');
  } catch (error) {
    signingKeys?.close();
    redis?.disconnect();
    await storage.close();
    throw error;
  }
  const keys = signingKeys;
  const url = await app.listen({ port: config.port, host: config.host });

  const cleanup = setInterval(() => {
    deleteExpiredRecords(storage).catch((err: unknown) => app.log.warn({ err }, 'cleanup of expired records failed'));
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      clearInterval(cleanup);
      // Fastify stops accepting connections, answers 503 to new requests on open ones, closes idle keep-alive
      // connections and waits for requests in flight. Past the deadline, the remaining connections are cut.
      const deadline = setTimeout(() => {
        app.log.warn(`requests still in flight after ${config.shutdownTimeoutSeconds} s; closing their connections`);
        app.server.closeAllConnections();
      }, config.shutdownTimeoutSeconds * 1000);
      deadline.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
        keys.close();
        await storage.close();
        attemptCounter?.close();
        await redis?.quit().catch(() => redis?.disconnect());
        await options.onClose?.();
      }
    })();
    return closing;
  };
  return { app, storage, signingKeys: keys, url, close };
}
