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

/** `check`'s answer, or `fallback` once `ms` have passed (the check goes on, unheard). */
function within<T>(check: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
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
    const startedAt = Date.now();
    const database = await within(storage.ping(), DATABASE_PING_TIMEOUT_MS, false);
    let migrations: 'current' | 'pending' | 'unknown' = 'unknown';
    if (database) {
      try {
        // The same deadline for the whole probe: a database that answers the ping and then stalls is not ready.
        const remainingMs = Math.max(0, DATABASE_PING_TIMEOUT_MS - (Date.now() - startedAt));
        const current = migrationsKnownCurrent || (await within<boolean | null>(storage.migrationsAreCurrent(), remainingMs, null));
        if (current !== null) {
          migrationsKnownCurrent = current;
          migrations = current ? 'current' : 'pending';
        }
      } catch (err) {
        request.log.warn({ reason: (err as Error).message }, 'readiness: could not read the migration state');
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
