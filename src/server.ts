/**
 * Running Latch: load configuration, open storage (migrating unless told not to), build the app, listen, and
 * shut down gracefully on SIGTERM/SIGINT (Fastify's close waits for requests in flight).
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openStorage, storageOptionsFromConfig } from './storage/open-storage.js';
import { OUTBOX_RETENTION_SECONDS } from './mail/mailer.js';
import type { Storage } from './storage/storage.js';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;
/** Used and expired codes are kept a day past expiry, so that a late replay is still recognised as reuse. */
const CODE_RETENTION_SECONDS = 86400;
const CLIENT_EVENT_RETENTION_SECONDS = 30 * 86400;

export interface RunningServer {
  app: FastifyInstance;
  storage: Storage;
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
}

export interface StartServerOptions {
  /** Run pending migrations first (default true). */
  migrate?: boolean;
  /** Logger options instead of the ones built from config (tests capture the log lines this way). */
  logger?: FastifyServerOptions['logger'];
}

export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  let app: FastifyInstance | undefined;
  const storage = await openStorage(config.databaseUrl, {
    ...storageOptionsFromConfig(config),
    migrate: options.migrate ?? true,
    onIdleConnectionError: (err) => app?.log.warn({ err }, 'an idle database connection failed; it will be replaced'),
  });
  app = await buildApp({ config, storage, logger: options.logger });
  const url = await app.listen({ port: config.port, host: config.host });

  const cleanup = setInterval(() => {
    deleteExpiredRecords(storage).catch((err: unknown) => app.log.warn({ err }, 'cleanup of expired records failed'));
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      clearInterval(cleanup);
      await app.close();
      await storage.close();
    })();
    return closing;
  };
  return { app, storage, url, close };
}
