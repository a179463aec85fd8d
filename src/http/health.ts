/**
 * GET /healthz and GET /readyz, for load balancers and orchestrators.
 *
 * - /healthz: the process is up and serving HTTP (liveness). It never touches the database, so a database
 *   outage does not make an orchestrator restart every Latch process at once.
 * - /readyz: this process can serve requests (readiness): the database answers and every migration this code
 *   knows has been applied (a `--no-migrate` process started before `latch migrate` ran is not ready).
 *   503 with the failing check otherwise, and while the process is shutting down (Fastify answers 503 to new
 *   requests once close() has begun), so that a load balancer stops sending it traffic.
 */
import type { FastifyInstance } from 'fastify';
import { noStore } from './security-headers.js';
import type { Storage } from '../storage/storage.js';

export function registerHealthRoutes(app: FastifyInstance, { storage }: { storage: Storage }): void {
  // Probes come every few seconds from every load balancer: only problems are logged (logLevel warn).
  // Migrations never go backwards under a running process, so once current it stays current.
  let migrationsKnownCurrent = false;

  app.get('/healthz', { logLevel: 'warn' }, async (_request, reply) => {
    noStore(reply);
    return { status: 'ok' };
  });

  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    noStore(reply);
    const database = await storage.ping();
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
    return { status: ready ? 'ready' : 'not_ready', checks: { database: database ? 'ok' : 'unreachable', migrations } };
  });
}
