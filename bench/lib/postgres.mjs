/**
 * The PostgreSQL side of the bench: a fresh database on the local server for each Latch that runs on it, and
 * the server's own CPU time, read from /proc like the other processes' (PostgreSQL shares the machine, so
 * what it burns per request is part of what a request costs).
 *
 * BENCH_POSTGRES_URL names the server (default postgres://postgres@127.0.0.1:5432/test, the maintenance
 * database the fresh ones are created from); BENCH_POSTGRES=0 leaves the PostgreSQL rows out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './latch.mjs';

// The driver Latch itself runs on (the root's node_modules), not a second copy in bench/.
const pg = createRequire(join(ROOT, 'package.json'))('pg');

export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const CLOCK_TICKS_PER_SECOND = 100;

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** True while a process with this pid runs (on this machine: the bench's databases name the pid that made them). */
function processRuns(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * The databases of bench runs that were killed before their `drop()` (a bench stopped with Ctrl-C or `kill`): those
 * whose maker's pid no longer runs. A run still going, here or by another user, keeps its database.
 */
async function dropAbandonedDatabases(client) {
  const { rows } = await client.query(`select datname from pg_database where datname like 'latch\\_bench\\_%'`);
  for (const { datname } of rows) {
    const pid = Number(/_(\d+)_[0-9a-z]+$/.exec(datname)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !processRuns(pid)) await client.query(`drop database if exists ${datname} with (force)`).catch(() => {});
  }
}

/**
 * A new, empty database for one Latch (its migrations make the tables), or `{ skip }` saying why PostgreSQL
 * is left out. `drop()` removes it at the end of the run; a killed run's database is dropped by the next run.
 */
export async function createBenchDatabase(label) {
  if (process.env.BENCH_POSTGRES === '0') return { skip: 'BENCH_POSTGRES=0' };
  const name = `latch_bench_${label}_${process.pid}_${Date.now().toString(36)}`;
  try {
    const { version, synchronousCommit } = await withClient(POSTGRES_URL, async (client) => {
      await dropAbandonedDatabases(client);
      await client.query(`create database ${name}`);
      const version = (await client.query('show server_version')).rows[0].server_version;
      const synchronousCommit = (await client.query('show synchronous_commit')).rows[0].synchronous_commit;
      return { version, synchronousCommit };
    });
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return {
      name,
      databaseUrl: url.href,
      version,
      synchronousCommit,
      drop: () => withClient(POSTGRES_URL, (client) => client.query(`drop database if exists ${name} with (force)`)).catch(() => {}),
    };
  } catch (error) {
    return { skip: `PostgreSQL at ${new URL(POSTGRES_URL).host} is not reachable (${error.message})` };
  }
}

/**
 * CPU milliseconds (user + system) of PostgreSQL's work for `databaseName`: the backends connected to it
 * (their process title names the database) and the server's shared background processes (WAL writer,
 * background writer, checkpointer), which work for every database; another program using this PostgreSQL at
 * the same time shows in the latter. Per pid, so that a backend that connects during a run counts from zero.
 */
export function postgresCpuByPid(databaseName) {
  const byPid = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return byPid;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (!title.startsWith('postgres: ')) continue;
      const mine = title.includes(` ${databaseName} `);
      const shared = /: (walwriter|background writer|checkpointer)\s*$/.test(title);
      if (!mine && !shared) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of /proc/<pid>/stat (11 and 12 after the command).
      byPid.set(entry, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return byPid;
}

/** CPU milliseconds between two postgresCpuByPid snapshots (a pid new in `after` counts from zero). */
export function postgresCpuBetween(before, after) {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
