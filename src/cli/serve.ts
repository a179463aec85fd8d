/**
 * `latch serve [--no-migrate] [--workers N|auto]`.
 *
 * One process by default. `--workers N` (or `LATCH_WORKERS`) starts N processes on one port with node:cluster;
 * `--workers auto` or `--workers 0` starts one per available core (os.availableParallelism()). The primary
 * applies the migrations once, before forking, so that workers never race on them; it serves nothing itself,
 * restarts a worker that dies (with a growing delay while they keep dying, and never giving up: a crash loop
 * during a database outage must end when the database is back), and on SIGTERM/SIGINT asks every worker to
 * finish its requests in flight before exiting. Every process is stateless (state lives in the database, and
 * in Redis for shared counters), so this works on SQLite (WAL, one writer at a time) and on PostgreSQL.
 *
 * Connections are accepted by the workers themselves from the shared listening socket (SCHED_NONE), not handed
 * over by the primary (SCHED_RR, Node's default on Linux). With round-robin the primary accepts a connection
 * and keeps its own handle of it until the worker acknowledges the hand-over; a worker that dies before that
 * leaves the handle open in the primary forever, and the client waits for an answer that never comes. With
 * the kernel distributing accepts, a connection belongs to one worker only: when that worker dies the kernel
 * closes it (the client sees a reset), and connections still in the accept queue go to the surviving workers.
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../config.js';
import { createKeyEncryption } from '../crypto/key-encryption.js';
import { ensureSigningKeys } from '../keys/signing-keys.js';
import { serveClusterMetrics } from '../observability/observability.js';
import { startServer } from '../server.js';
import { retryWhileDatabaseUnavailable } from '../storage/database-unavailable.js';
import { migrateToLatest, openStorage, storageOptionsFromConfig } from '../storage/open-storage.js';
import { UsageError } from './output.js';
import { tuneHeapForServing } from './serving-heap.js';

export const SERVE_USAGE = `latch serve [--no-migrate] [--workers N|auto]
                                  Start the server (configuration from the environment; see README).
                                  --workers: N processes on one port; auto or 0 = one per core (default 1)`;

/** The delay before restarting a worker that died young doubles from this, up to RESTART_DELAY_MAX_MS. */
const RESTART_DELAY_MIN_MS = 250;
const RESTART_DELAY_MAX_MS = 30_000;
/** A worker that lived this long died of something new: the next restart is immediate again. */
const HEALTHY_LIFETIME_MS = 30_000;

/** How long to wait before replacing a worker, given how many died young in a row (pure; tested in serve.test.ts). */
export function restartDelayMs(youngDeathsInARow: number): number {
  if (youngDeathsInARow <= 1) return 0;
  return Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MIN_MS * 2 ** (youngDeathsInARow - 2));
}

export function parseWorkerCount(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto' || raw === '0') return availableParallelism();
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 256) throw new UsageError(`--workers must be a number from 1 to 256, or auto (got "${raw}")`);
  return count;
}

export async function runServeCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'no-migrate': { type: 'boolean', default: false }, workers: { type: 'string' } },
  });
  const config = loadConfig();
  const migrate = !values['no-migrate'];
  if (cluster.isWorker) {
    // Its slot among the workers (1…N, kept by the worker that replaces it): the `worker` label of its metrics.
    const workerSlot = Number(process.env.LATCH_WORKER_SLOT) || (cluster.worker?.id ?? 1);
    const code = await serveOneProcess(config, { migrate: false, workerSlot });
    // A worker lives as long as its channel to the primary: close it, or the process never exits.
    cluster.worker?.disconnect();
    return code;
  }
  const workers = parseWorkerCount(values.workers ?? process.env.LATCH_WORKERS);
  if (workers === 1) return serveOneProcess(config, { migrate });
  return runPrimary(config, { migrate, workers });
}

/** One server in this process until SIGTERM/SIGINT, then a graceful close (requests in flight finish). */
async function serveOneProcess(config: Config, options: { migrate: boolean; workerSlot?: number }): Promise<number> {
  tuneHeapForServing();
  if (options.migrate && !(await prepareUnlessStopped(config, pino({ level: config.logLevel })))) return 0;
  const server = await startServer(config, { migrate: false, ...(options.workerSlot !== undefined && { workerSlot: options.workerSlot }) });
  server.app.log.info(`Latch is serving ${config.issuer} (listening on ${server.url})`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      server.app.log.info(`${signal} received; finishing requests in flight`);
      server.close().then(resolve, (err: unknown) => {
        server.app.log.error({ err }, 'error while shutting down');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

/** Migrations and the first signing keys, once, before any worker starts; retried while the database is away. */
async function prepareDatabase(config: Config, log: pino.Logger, signal: AbortSignal): Promise<void> {
  const storageOptions = storageOptionsFromConfig(config);
  await retryWhileDatabaseUnavailable(
    async () => {
      const storage = await openStorage(config.databaseUrl, { ...storageOptions, migrate: false });
      try {
        await migrateToLatest(storage, storageOptions);
        // The first signing keys too, so that the workers only load them rather than each generate some.
        await ensureSigningKeys(storage, createKeyEncryption(config.secret));
      } finally {
        await storage.close();
      }
    },
    (error, delayMs) => log.warn({ reason: error.message }, `the database is unreachable; trying the migrations again in ${delayMs} ms`),
    signal,
  );
}

/** prepareDatabase, given up when SIGTERM/SIGINT arrives while it waits for the database; false then. */
async function prepareUnlessStopped(config: Config, log: pino.Logger): Promise<boolean> {
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await prepareDatabase(config, log, stopped.signal);
  } catch (error) {
    if (stopped.signal.aborted) return false;
    throw error;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  return !stopped.signal.aborted;
}

async function runPrimary(config: Config, options: { migrate: boolean; workers: number }): Promise<number> {
  const log = pino({ level: config.logLevel }).child({ role: 'primary' });
  if (options.migrate && !(await prepareUnlessStopped(config, log))) return 0;

  // Workers accept from the shared socket themselves (see the top of this file); set before the first fork.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  let stopping = false;
  let youngDeathsInARow = 0;
  const pendingRestarts = new Set<NodeJS.Timeout>();
  // Our own record of live workers, when each started and its slot: cluster.workers drops a worker only once it
  // has both exited and disconnected.
  const live = new Map<number, { startedAt: number; slot: number }>();
  const fork = (slot: number) => live.set(cluster.fork({ LATCH_WORKER_SLOT: String(slot) }).id, { startedAt: Date.now(), slot });
  // With LATCH_METRICS_PORT, the primary serves every worker's metrics (observability/cluster-metrics.ts).
  const metrics = await serveClusterMetrics(config, log);

  const stopped = new Promise<number>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const { startedAt, slot } = live.get(worker.id) ?? { startedAt: Date.now(), slot: worker.id };
      live.delete(worker.id);
      if (stopping) {
        if (live.size === 0 && pendingRestarts.size === 0) {
          log.info('all workers have stopped');
          resolve(0);
        }
        return;
      }
      youngDeathsInARow = Date.now() - startedAt >= HEALTHY_LIFETIME_MS ? 1 : youngDeathsInARow + 1;
      const delayMs = restartDelayMs(youngDeathsInARow);
      log.error(
        { pid: worker.process.pid, code, signal, youngDeathsInARow },
        delayMs === 0 ? 'a worker died; starting another' : `a worker died (${youngDeathsInARow} in a row, each within ${HEALTHY_LIFETIME_MS / 1000} s of its start); starting another in ${delayMs} ms`,
      );
      const timer = setTimeout(() => {
        pendingRestarts.delete(timer);
        if (!stopping) fork(slot);
      }, delayMs);
      pendingRestarts.add(timer);
    });

    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      for (const timer of pendingRestarts) clearTimeout(timer);
      pendingRestarts.clear();
      log.info(`${reason}; asking ${live.size} workers to finish requests in flight`);
      if (live.size === 0) resolve(0);
      for (const worker of Object.values(cluster.workers ?? {})) if (worker && live.has(worker.id)) worker.process.kill('SIGTERM');
    };
    process.once('SIGTERM', () => stop('SIGTERM received'));
    process.once('SIGINT', () => stop('SIGINT received'));

    log.info(`starting ${options.workers} workers`);
    for (let slot = 1; slot <= options.workers; slot++) fork(slot);
  });
  try {
    return await stopped;
  } finally {
    await metrics?.close();
  }
}
