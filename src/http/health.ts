/**
 * GET /healthz and GET /readyz, for load balancers and orchestrators.
 *
 * - /healthz: the process is up and serving HTTP (liveness). It never touches the database, so a database
 *   outage does not make an orchestrator restart every Latch process at once.
 * - /readyz: this process can serve requests (readiness): the database answers and every migration this code
 *   knows has been applied (a `--no-migrate` process started before `latch migrate` ran is not ready).
 *   503 with the failing check otherwise, and while the process is shutting down (Fastify answers 503 to new
 *   requests once close() has begun), so that a load balancer stops sending it traffic. The database check
 *   gives up after 1.5 s, so that a database that does not answer at all still makes the probe say 503 in time.
 *   Redis (when configured) is reported but does not decide readiness: without it sign-in throttling counts
 *   per process (`checks.redis: "degraded"`), and every request is still served.
 */
import type { FastifyInstance } from 'fastify';
import { noStore } from './security-headers.js';
import type { Storage } from '../storage/storage.js';

/** Longest wait for the database's answer to the readiness ping. */
const DATABASE_PING_TIMEOUT_MS = 1500;

function pingWithin(storage: Storage, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([storage.ping(), timeout]).finally(() => clearTimeout(timer));
}

export interface HealthDeps {
  storage: Storage;
  /** Whether Redis, when configured, answers. */
  redisStatus?: () => 'ok' | 'degraded';
}

export function registerHealthRoutes(app: FastifyInstance, { storage, redisStatus }: HealthDeps): void {
  // Probes come every few seconds from every load balancer: only problems are logged (logLevel warn).
  // Migrations never go backwards under a running process, so once current it stays current.
  let migrationsKnownCurrent = false;

  app.get('/healthz', { logLevel: 'warn' }, async (_request, reply) => {
    noStore(reply);
    return { status: 'ok' };
  });

  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    noStore(reply);
    const database = await pingWithin(storage, DATABASE_PING_TIMEOUT_MS);
    let migrations: 'current' | 'pending' | 'unknown' = 'unknown';
    if (database) {
      try {
        migrationsKnownCurrent ||= await storage.migrationsAreCurrent();
        migrations = migrationsKnownCurrent ? 'current' : 'pending';
      } catch (err) {
        request.log.warn({ err }, 'readiness: could not read the migration state');
      }
    }
    const ready = database && migrations === 'current';
    reply.code(ready ? 200 : 503);
    const checks = { database: database ? 'ok' : 'unreachable', migrations, ...(redisStatus && { redis: redisStatus() }) };
    const degraded = checks.redis === 'degraded';
    return {
      status: ready ? 'ready' : 'not_ready',
      checks,
      ...(degraded && { note: 'degraded: Redis is unreachable; sign-in throttling counts per process until it is back' }),
    };
  });
}
