/**
 * `node backup-under-load.mjs [VARIANT …]`: what one `latch db backup` costs a serving Latch. Latch alone on a
 * database prefilled to a realistic size; rounds of the code exchange (d1) at a fixed rate, alternating a round
 * with no backup and a round with one `latch db backup` started BACKUP_START_SECONDS into it (one such round per
 * variant). Prints, per kind of round, the exchange's p50/p99/max (median and min–max over the rounds), and for
 * the backups their wall time, the snapshot time the CLI reports, and the CLI's CPU time (user + system of the
 * whole process, all threads, from process.resourceUsage() at its exit).
 *
 *   VARIANT   name=NAME[,root=DIR][,nice=N]: the Latch build whose CLI takes the backup (default the
 *             repository; the server is always the repository's), optionally started under `nice -n N`.
 *             e.g. name=vacuum-into,root=/tmp/latch-old  name=online-backup
 *
 * Environment: BACKUP_PREFILL (200000: unused codes and tokens minted before the first round; 200,000 of each
 * make a database of about 120 MB), BACKUP_RATE (2000 exchanges/s), BACKUP_SECONDS (10 recorded per round,
 * after BACKUP_SETTLE_SECONDS, 1, of the same rate unrecorded), BACKUP_START_SECONDS (2: when the backup starts,
 * counted from the start of the recorded part), BACKUP_ROUNDS (3 of each kind).
 * Not a benchmark for the report: BENCHMARKS.md quotes its figures by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runRequests } from './lib/http-load.mjs';
import { basicAuthorization, ensureLatchBuilt, HOST, codeExchanges, mintLatch, ROOT, setUpLatchData, startLatch } from './lib/latch.mjs';
import { cpuMilliseconds, stopProcess } from './lib/processes.mjs';
import { summarize } from './lib/stats.mjs';

const env = process.env;
const PREFILL = Number(env.BACKUP_PREFILL ?? 200_000);
const RATE = Number(env.BACKUP_RATE ?? 2000);
const DURATION_MS = Number(env.BACKUP_SECONDS ?? 10) * 1000;
const SETTLE_MS = Number(env.BACKUP_SETTLE_SECONDS ?? 1) * 1000;
const START_MS = Number(env.BACKUP_START_SECONDS ?? 2) * 1000;
const ROUNDS = Number(env.BACKUP_ROUNDS ?? 3);
const log = (message) => process.stderr.write(`${message}\n`);

function parseVariant(text) {
  const variant = { name: text, root: ROOT, nice: null };
  for (const part of text.split(',')) {
    const [key, ...rest] = part.split('=');
    const value = rest.join('=');
    if (key === 'name') variant.name = value;
    else if (key === 'root') variant.root = resolve(value);
    else if (key === 'nice') variant.nice = Number(value);
    else throw new Error(`unknown variant part ${part}`);
  }
  return variant;
}

/** The CLI's CPU time, all threads, written to stderr at its exit (a preload: no change to the CLI). */
const CPU_PRELOAD = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write(`\\nbench-cpu ${u.userCPUTime} ${u.systemCPUTime}\\n`); });",
)}`;

/** One `latch db backup` of the server's database, as an operator runs it; resolves with its figures. */
function runBackup(variant, server, file) {
  const command = [process.execPath, '--import', CPU_PRELOAD, join(variant.root, 'bin', 'latch.js'), 'db', 'backup', file];
  const [program, ...args] = variant.nice === null ? command : ['nice', '-n', String(variant.nice), ...command];
  const started = performance.now();
  const child = spawn(program, args, { cwd: variant.root, env: { ...process.env, LATCH_DATABASE_URL: server.databaseUrl, LATCH_LOG_LEVEL: 'silent' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolveRun, reject) => {
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`latch db backup exited with ${code}: ${stderr}${stdout}`));
      const cpu = /bench-cpu (\d+) (\d+)/.exec(stderr);
      const snapshot = /taken in ([\d.]+) (ms|s)/.exec(stdout);
      resolveRun({
        wallMs,
        cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) / 1000 : NaN,
        snapshotMs: snapshot ? Number(snapshot[1]) * (snapshot[2] === 's' ? 1000 : 1) : NaN,
        bytes: statSync(file).size,
      });
    });
  });
}

const variants = process.argv.slice(2).map(parseVariant);
if (variants.length === 0) variants.push(parseVariant('name=backup'));
ensureLatchBuilt(log);
const workDir = mkdtempSync(join(os.tmpdir(), 'latch-backup-load-'));
let server;
try {
  const dataDir = join(workDir, 'data');
  const setup = setUpLatchData(dataDir);
  server = await startLatch('latch', dataDir);
  const prefillStarted = performance.now();
  for (let done = 0; done < PREFILL; done += 100_000) {
    const count = Math.min(100_000, PREFILL - done);
    mintLatch(server, setup, { kind: 'code', count, scope: ['profile'] });
    mintLatch(server, setup, { kind: 'token', count, scope: ['profile'] });
  }
  log(`prefilled ${PREFILL} codes and ${PREFILL} tokens in ${((performance.now() - prefillStarted) / 1000).toFixed(0)} s`);
  const host = `${HOST}:${server.port}`;
  const authorization = basicAuthorization(setup.clientId, setup.clientSecret);

  /** One round of d1 at RATE; with a variant, one backup by it START_MS into the recorded part. */
  async function round(variant) {
    const codes = mintLatch(server, setup, { kind: 'code', count: Math.ceil((RATE * (DURATION_MS + SETTLE_MS)) / 1000) + 200, scope: ['profile'] });
    const next = codeExchanges(codes, authorization, host);
    await sleep(500);
    const file = join(workDir, `backup-${Date.now()}.db`);
    const cpuBefore = cpuMilliseconds(server.pid);
    const load = runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE, settleMs: SETTLE_MS, next });
    const backup = variant ? sleep(SETTLE_MS + START_MS).then(() => runBackup(variant, server, file)) : Promise.resolve(null);
    const [result, taken] = await Promise.all([load, backup]);
    const serverCpuMs = cpuMilliseconds(server.pid) - cpuBefore;
    rmSync(file, { force: true });
    if (result.errors > 0) throw new Error(`${result.errors} errors (${result.errorSamples[0]})`);
    if (result.exhausted) throw new Error('the pool of codes ran out');
    return { ...result, serverCpuMs, backup: taken };
  }

  const kinds = [{ name: 'no backup', variant: null }, ...variants.map((variant) => ({ name: variant.name, variant }))];
  const results = new Map(kinds.map((kind) => [kind.name, []]));
  await round(null); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? kinds : [...kinds].reverse();
    for (const kind of order) {
      const result = await round(kind.variant);
      results.get(kind.name).push(result);
      const taken = result.backup
        ? `; backup ${(result.backup.bytes / 1_048_576).toFixed(0)} MB in ${result.backup.wallMs.toFixed(0)} ms (snapshot ${result.backup.snapshotMs.toFixed(0)} ms), CLI CPU ${result.backup.cpuMs.toFixed(0)} ms`
        : '';
      log(`  #${r + 1} ${kind.name.padEnd(14)} p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} max ${result.max.toFixed(1)} ms, ${result.rps.toFixed(0)}/s${taken}`);
    }
  }
  const database = statSync(join(dataDir, 'latch.db')).size;
  process.stdout.write(
    `\n(d1) code exchange at ${RATE}/s for ${DURATION_MS / 1000} s, 32 connections, database ${(database / 1_048_576).toFixed(0)} MB; ` +
      `median (min–max) over ${ROUNDS} rounds of each; the backup starts ${START_MS / 1000} s in\n`,
  );
  const range = (values, digits) => {
    const s = summarize(values);
    return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
  };
  for (const kind of kinds) {
    const runs = results.get(kind.name);
    let line = `  ${kind.name.padEnd(14)} p50 ${range(runs.map((x) => x.p50), 2)}  p99 ${range(runs.map((x) => x.p99), 2)}  max ${range(runs.map((x) => x.max), 1)} ms  server CPU ${range(runs.map((x) => x.serverCpuMs), 0)} ms`;
    if (kind.variant) {
      const backups = runs.map((x) => x.backup);
      line += `\n  ${''.padEnd(14)} backup ${range(backups.map((b) => b.wallMs), 0)} ms (snapshot ${range(backups.map((b) => b.snapshotMs), 0)} ms), CLI CPU ${range(backups.map((b) => b.cpuMs), 0)} ms`;
    }
    process.stdout.write(`${line}\n`);
  }
} finally {
  if (server) await stopProcess(server.child);
  rmSync(workDir, { recursive: true, force: true });
}
