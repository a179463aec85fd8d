/**
 * Running Latch: load configuration, open storage (migrating unless told not to), build the app, listen, and
 * shut down gracefully on SIGTERM/SIGINT (Fastify's close waits for requests in flight).
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { SharedAttemptCounter } from './accounts/redis-attempt-counter.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { SigningKeyCache } from './keys/signing-key-cache.js';
import { BackchannelLogout } from './oauth/backchannel-logout/backchannel-logout.js';
import { openObservability } from './observability/observability.js';
import { openStorage, storageOptionsFromConfig } from './storage/open-storage.js';
import { OUTBOX_RETENTION_SECONDS } from './mail/mailer.js';
import type { Storage } from './storage/storage.js';
import { WebhookDeliveries } from './webhooks/webhook-deliveries.js';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
/** How long a starting process waits for Redis before it starts degraded (counters in memory). */
const REDIS_START_WAIT_MS = 2000;
/** Used and expired codes are kept a day past expiry, so that a late replay is still recognised as reuse. */
const CODE_RETENTION_SECONDS = 86400;
const CLIENT_EVENT_RETENTION_SECONDS = 30 * 86400;
/** Delivered and given-up webhook deliveries stay in the delivery log (`latch webhook deliveries`) this long. */
const WEBHOOK_DELIVERY_RETENTION_SECONDS = 30 * 86400;
/** Retired signing keys stay a day, so that `latch keys list` shows what happened, then go with their private parts. */
const RETIRED_SIGNING_KEY_RETENTION_SECONDS = 86400;
/**
 * A client that registered itself (RFC 7591) and had no successful token exchange within this long is removed:
 * the default of LATCH_REGISTRATION_UNUSED_SECONDS (config-limits.ts).
 */
export const UNUSED_REGISTRATION_SECONDS = 86400;
/** How long after its document expired a client from a metadata document that nobody allowed is kept. */
const UNUSED_METADATA_DOCUMENT_SECONDS = 86400;

export interface RunningServer {
  app: FastifyInstance;
  storage: Storage;
  /** This process's signing keys (refresh() reloads them at once, instead of waiting for the next interval). */
  signingKeys: SigningKeyCache;
  /** Back-channel logout delivery: told when sessions end; works the queue of deliveries in the background. */
  backchannelLogout: BackchannelLogout;
  /** Webhook delivery: works the queue of deliveries the audit log fills. */
  webhookDeliveries: WebhookDeliveries;
  url: string;
  /** Where `GET /metrics` is served (`LATCH_METRICS_PORT`); absent when metrics are off, and in a worker of `--workers`. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/** Rows per cleanup statement: small enough that no batch holds the write lock for long (batched-delete.ts). */
export const CLEANUP_BATCH_ROWS = 500;

/**
 * Between two batches: long enough for the other writers to take the write lock (another worker's group
 * commit retries on a 1 ms timer; a cleanup that began its next batch at once starved it).
 */
const CLEANUP_PAUSE_MS = 10;

/** Repeats a batched delete until a batch comes back short, pausing between batches. */
async function inBatches(deleteBatch: (limit: number) => Promise<number>, limit: number): Promise<void> {
  while ((await deleteBatch(limit)) >= limit) await new Promise((resolve) => setTimeout(resolve, CLEANUP_PAUSE_MS));
}

export async function deleteExpiredRecords(
  storage: Storage,
  // Audit retention left out: the default (90 days, LATCH_AUDIT_RETENTION_DAYS).
  config: Pick<Config, 'refreshTokenReuseGraceSeconds'> & Partial<Pick<Config, 'auditRetentionDays' | 'limits'>>,
  now = new Date(),
  batchRows = CLEANUP_BATCH_ROWS,
): Promise<void> {
  const seconds = (s: number) => new Date(now.getTime() - s * 1000);
  await inBatches((limit) => storage.authorizationCodes.deleteExpired(seconds(CODE_RETENTION_SECONDS), limit), batchRows);
  // Kept as long as the codes: until then a late poll still hears expired_token rather than an unknown code.
  await inBatches((limit) => storage.deviceAuthorizations.deleteExpired(seconds(CODE_RETENTION_SECONDS), limit), batchRows);
  await inBatches((limit) => storage.tokens.deleteExpired(now, limit), batchRows);
  // A rotated refresh token's successor is kept (encrypted) only while a retry may still ask for it.
  await storage.tokens.forgetSuccessors(seconds(config.refreshTokenReuseGraceSeconds));
  await inBatches((limit) => storage.browserSessions.deleteExpired(now, limit), batchRows);
  await inBatches((limit) => storage.clientEvents.deleteBefore(seconds(CLIENT_EVENT_RETENTION_SECONDS), limit), batchRows);
  await inBatches((limit) => storage.emailLinks.deleteExpired(now, limit), batchRows);
  // Tried WebAuthn challenges, once the cookie that carried each has expired (nothing can present them any more).
  await inBatches((limit) => storage.webauthnChallenges.deleteExpired(now, limit), batchRows);
  await inBatches((limit) => storage.outbox.deleteBefore(seconds(OUTBOX_RETENTION_SECONDS), limit), batchRows);
  await storage.signingKeys.deleteRetired(seconds(RETIRED_SIGNING_KEY_RETENTION_SECONDS));
  await inBatches((limit) => storage.auditEvents.deleteBefore(seconds((config.auditRetentionDays ?? 90) * 86400), limit), batchRows);
  // Self-registered clients without a token exchange in their first LATCH_REGISTRATION_UNUSED_SECONDS
  // (docs/protocol-decisions.md "Dynamic client registration").
  const unusedBefore = seconds(config.limits?.unusedRegistrationSeconds ?? UNUSED_REGISTRATION_SECONDS);
  await inBatches((limit) => storage.clients.deleteUnusedRegistrations(unusedBefore, limit), batchRows);
  // Clients from metadata documents nobody allowed, a day after their document expired (docs/protocol-decisions.md
  // "Client ID Metadata Documents"): many URLs can describe clients, and they should not pile up.
  await inBatches((limit) => storage.clients.deleteUnusedMetadataDocumentClients(seconds(UNUSED_METADATA_DOCUMENT_SECONDS), limit), batchRows);
  await inBatches((limit) => storage.webhookDeliveries.deleteFinishedBefore(seconds(WEBHOOK_DELIVERY_RETENTION_SECONDS), limit), batchRows);
  // The APIs (RFC 8707) a grant named, once no code or refresh token of it can still ask for them.
  await inBatches((limit) => storage.resourceServers.deleteEndedGrantResources(seconds(CODE_RETENTION_SECONDS), now, limit), batchRows);
}

export interface StartServerOptions {
  /** Run pending migrations first (default true; `latch serve --no-migrate` sets false). */
  migrate?: boolean;
  /** Logger options instead of the ones built from config (tests capture the log lines this way). */
  logger?: FastifyServerOptions['logger'];
  /** Called last when the server has closed (for resources opened beside it, such as the Redis client). */
  onClose?: () => Promise<void>;
  /** Under `latch serve --workers N`: this worker's slot (1…N); its metrics go to the primary (observability/cluster-metrics.ts). */
  workerSlot?: number;
}

export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  let app: FastifyInstance | undefined;
  // Metrics, tracing, Server-Timing: whatever is configured, before storage (it observes the queries).
  const observability = await openObservability(config, { workerSlot: options.workerSlot });
  const storage = await openStorage(config.databaseUrl, {
    ...storageOptionsFromConfig(config),
    queryObserver: observability.queryObserver,
    migrate: options.migrate ?? true,
    backgroundCheckpoints: true,
    // The connection's error only, no stack: the outage is the operator's to fix, and pg's error carries its client.
    onIdleConnectionError: (err) =>
      app?.log.warn({ reason: err.message, code: (err as { code?: unknown }).code }, 'a database connection failed; it will be replaced'),
    // PostgreSQL's LISTEN connection (storage/postgres/notify-signal.ts): while it is down nothing is cached.
    onCacheSignalChange: (listening, err) =>
      listening
        ? app?.log.info('listening for changes from other processes again: cached reads resume')
        : app?.log.warn({ reason: err?.message }, 'the connection that hears changes from other processes failed: reading everything from the database until it is back'),
    onCacheTriggersMissing: (missing) =>
      missing
        ? app?.log.warn('the triggers that announce changes to cached rows are missing or disabled (run `latch migrate`, or enable them): reading everything from the database until they are back')
        : app?.log.info('the triggers that announce changes are in place: cached reads resume'),
  }).catch(async (error: unknown) => {
    await observability.close();
    throw error;
  });
  observability.watchStorage(storage);
  // Sign-in throttling counters: shared through Redis when configured, else per process (in memory).
  let redis: Redis | undefined;
  let attemptCounter: SharedAttemptCounter | undefined;
  let redisUnreachableAtStart = false;
  let signingKeys: SigningKeyCache | undefined;
  let backchannelLogout: BackchannelLogout | undefined;
  try {
    if (config.redisUrl) {
      // Loaded only when Redis is configured: ioredis is a twentieth of a second of CPU at every start otherwise.
      const { connectRedis, createRedisAttemptCounter, waitForRedis } = await import('./accounts/redis-attempt-counter.js');
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
    backchannelLogout = new BackchannelLogout({ storage, signingKeys, issuer: config.issuer, allowPrivateAddresses: config.outboundAllowPrivate });
    app = await buildApp({
      config,
      storage,
      attemptCounter,
      signingKeys,
      sessionEndings: backchannelLogout,
      observability,
      logger: options.logger,
      ...(attemptCounter && { sharedCounterStatus: attemptCounter.status }),
    });
    signingKeys.setLogger(app.log);
    backchannelLogout.setLogger(app.log);
    if (redisUnreachableAtStart) {
      app.log.warn('Redis is unreachable at start; sign-in throttling counts in this process until it is reachable (readyz: redis degraded)');
    }
    if (!signingKeys.isLoaded) app.log.warn('signing keys are not available yet (database unreachable or not migrated); retrying on first use');
  } catch (error) {
    signingKeys?.close();
    redis?.disconnect();
    await storage.close();
    await observability.close();
    throw error;
  }
  const keys = signingKeys;
  const logouts = backchannelLogout!;
  const webhooks = new WebhookDeliveries({
    storage,
    latchSecret: config.secret,
    allowPrivateAddresses: config.outboundAllowPrivate,
    retryDelaysSeconds: config.webhookRetrySeconds,
    log: app.log,
  });
  let url: string;
  let metricsUrl: string | undefined;
  try {
    url = await app.listen({ port: config.port, host: config.host });
    metricsUrl = await observability.start(app.log);
    if (metricsUrl) app.log.info(`serving metrics at ${metricsUrl}`);
  } catch (error) {
    // The port is taken or not ours to bind: nothing may stay open behind the error.
    await app.close();
    keys.close();
    attemptCounter?.close();
    redis?.disconnect();
    await storage.close();
    await observability.close();
    throw error;
  }

  const cleanup = setInterval(() => {
    deleteExpiredRecords(storage, config).catch((err: unknown) => app.log.warn({ err }, 'cleanup of expired records failed'));
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();
  // Deliveries queued before a restart, or by a process that stopped, are picked up here.
  logouts.start();
  webhooks.start();

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
        // After the requests (a logout in flight queues deliveries), before the database closes.
        await logouts.stop();
        // After the requests too (their audit events are written as the app closes), before the database closes.
        await webhooks.stop();
        keys.close();
        await storage.close();
        attemptCounter?.close();
        await redis?.quit().catch(() => redis?.disconnect());
        // Last: the spans of the requests that just finished are sent.
        await observability.close();
        await options.onClose?.();
      }
    })();
    return closing;
  };
  return { app, storage, signingKeys: keys, backchannelLogout: logouts, webhookDeliveries: webhooks, url, ...(metricsUrl && { metricsUrl }), close };
}
