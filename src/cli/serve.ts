/**
 * `latch serve [--no-migrate] [--workers N|auto]`.
 *
 * One process by default. `--workers N` (or `LATCH_WORKERS`) starts N processes on one port with node:cluster,
 * the primary handing connections round-robin; `--workers auto` or `--workers 0` starts one per available core
 * (os.availableParallelism()). The primary applies the migrations once, before forking, so that workers never
 * race on them; it serves nothing itself, restarts a worker that dies, and on SIGTERM/SIGINT asks every worker
 * to finish its requests in flight before exiting. Every process is stateless (state lives in the database,
 * and in Redis for shared counters), so this works on SQLite (WAL, one writer at a time) and on PostgreSQL.
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../config.js';
import { createKeyEncryption } from '../crypto/key-encryption.js';
import { ensureSigningKeys } from '../crypto/signing-keys.js';
import { startServer } from '../server.js';
import { migrateToLatest, openStorage, storageOptionsFromConfig } from '../storage/open-storage.js';
import { UsageError } from './output.js';

export const SERVE_USAGE = `latch serve [--no-migrate] [--workers N|auto]
                                  Start the server (configuration from the environment; see README).
                                  --workers: N processes on one port; auto or 0 = one per core (default 1)`;

/** Restarts of crashed workers allowed per minute before the primary gives up (a crash loop is a bug, not load). */
const MAX_RESTARTS_PER_MINUTE = 10;

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
    const code = await serveOneProcess(config, { migrate: false });
    // A worker lives as long as its channel to the primary: close it, or the process never exits.
    cluster.worker?.disconnect();
    return code;
  }
  const workers = parseWorkerCount(values.workers ?? process.env.LATCH_WORKERS);
  if (workers === 1) return serveOneProcess(config, { migrate });
  return runPrimary(config, { migrate, workers });
}

/** One server in this process until SIGTERM/SIGINT, then a graceful close (requests in flight finish). */
async function serveOneProcess(config: Config, options: { migrate: boolean }): Promise<number> {
  const server = await startServer(config, options);
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

async function runPrimary(config: Config, options: { migrate: boolean; workers: number }): Promise<number> {
  const log = pino({ level: config.logLevel }).child({ role: 'primary' });
  if (options.migrate) {
    const storageOptions = storageOptionsFromConfig(config);
    const storage = await openStorage(config.databaseUrl, { ...storageOptions, migrate: false });
    try {
      await migrateToLatest(storage.db, storageOptions);
      // The first signing keys too, once, so that the workers only load them rather than each generate some.
      await ensureSigningKeys(storage, createKeyEncryption(config.secret));
    } finally {
      await storage.close();
    }
  }

  let stopping = false;
  const restarts: number[] = [];
  // Our own count of live workers: cluster.workers drops a worker only once it has both exited and disconnected.
  const live = new Set<number>();
  const fork = () => live.add(cluster.fork().id);

  return new Promise<number>((resolve) => {
    let exitCode = 0;
    cluster.on('exit', (worker, code, signal) => {
      live.delete(worker.id);
      if (stopping) {
        if (live.size === 0) {
          log.info('all workers have stopped');
          resolve(exitCode);
        }
        return;
      }
      log.error({ pid: worker.process.pid, code, signal }, 'a worker died; starting another');
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
      if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
        log.fatal(`${restarts.length} worker restarts in a minute; stopping (see the workers' errors above)`);
        exitCode = 1;
        stop('crash loop');
        return;
      }
      fork();
    });

    const stop = (reason: string) => {
      if (stopping) return;
      stopping = true;
      log.info(`${reason}; asking ${live.size} workers to finish requests in flight`);
      if (live.size === 0) resolve(exitCode);
      for (const worker of Object.values(cluster.workers ?? {})) if (worker && live.has(worker.id)) worker.process.kill('SIGTERM');
    };
    process.once('SIGTERM', () => stop('SIGTERM received'));
    process.once('SIGINT', () => stop('SIGINT received'));

    log.info(`starting ${options.workers} workers`);
    for (let i = 0; i < options.workers; i++) fork();
  });
}
