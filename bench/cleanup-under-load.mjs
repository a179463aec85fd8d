/**
 * `node cleanup-under-load.mjs`: what the periodic cleanup of expired rows costs a serving Latch. Rounds of the
 * code exchange (d1) at a fixed rate, each with CLEANUP_EXPIRED expired access tokens minted beforehand and the
 * cleanup (server.ts deleteExpiredRecords, run by a second process on the same database file, as another
 * worker's would) started CLEANUP_START_SECONDS into it: in batches of 500 rows (as shipped) or in one statement
 * per table (as before). Prints the exchange's p50/p99/max per kind, median and min–max over the rounds, and the
 * cleanup's wall time.
 *
 * Environment: CLEANUP_EXPIRED (100000), CLEANUP_RATE (2000 exchanges/s), CLEANUP_SECONDS (8 recorded per round,
 * after 1 s unrecorded), CLEANUP_START_SECONDS (2), CLEANUP_ROUNDS (3 of each kind).
 * Not a benchmark for the report: BENCHMARKS.md quotes its figures by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runRequests } from './lib/http-load.mjs';
import { basicAuthorization, codeExchanges, ensureLatchBuilt, HOST, mintLatch, ROOT, setUpLatchData, startLatch } from './lib/latch.mjs';
import { stopProcess } from './lib/processes.mjs';
import { summarize } from './lib/stats.mjs';

const env = process.env;
const EXPIRED = Number(env.CLEANUP_EXPIRED ?? 100_000);
const RATE = Number(env.CLEANUP_RATE ?? 2000);
const DURATION_MS = Number(env.CLEANUP_SECONDS ?? 8) * 1000;
const SETTLE_MS = 1000;
const START_MS = Number(env.CLEANUP_START_SECONDS ?? 2) * 1000;
const ROUNDS = Number(env.CLEANUP_ROUNDS ?? 3);
const log = (message) => process.stderr.write(`${message}\n`);

/** deleteExpiredRecords in a process of its own, as of now, with `batchRows` rows a statement; resolves with its wall time. */
function runCleanup(databaseUrl, batchRows) {
  const source = `
    const { openStorage } = await import(${JSON.stringify(join(ROOT, 'dist', 'storage', 'open-storage.js'))});
    const { deleteExpiredRecords } = await import(${JSON.stringify(join(ROOT, 'dist', 'server.js'))});
    const storage = await openStorage(${JSON.stringify(databaseUrl)}, { migrate: false });
    await deleteExpiredRecords(storage, { refreshTokenReuseGraceSeconds: 60 }, new Date(), ${batchRows});
    await storage.close();`;
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], { env: { ...env, LATCH_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolveRun, reject) =>
    child.once('exit', (code) => (code === 0 ? resolveRun(performance.now() - started) : reject(new Error(`cleanup exited with ${code}: ${stderr}`)))),
  );
}

ensureLatchBuilt(log);
const workDir = mkdtempSync(join(os.tmpdir(), 'latch-cleanup-load-'));
let server;
try {
  const dataDir = join(workDir, 'data');
  const setup = setUpLatchData(dataDir);
  server = await startLatch('latch', dataDir);
  const host = `${HOST}:${server.port}`;
  const authorization = basicAuthorization(setup.clientId, setup.clientSecret);

  async function round(batchRows) {
    if (batchRows !== null) {
      // Tokens that expire a second after they are minted.
      process.env.LATCH_ACCESS_TOKEN_TTL_SECONDS = '1';
      mintLatch(server, setup, { kind: 'token', count: EXPIRED, scope: ['profile'] });
      delete process.env.LATCH_ACCESS_TOKEN_TTL_SECONDS;
      await sleep(2100);
    }
    const codes = mintLatch(server, setup, { kind: 'code', count: Math.ceil((RATE * (DURATION_MS + SETTLE_MS)) / 1000) + 200, scope: ['profile'] });
    await sleep(500);
    const load = runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE, settleMs: SETTLE_MS, next: codeExchanges(codes, authorization, host) });
    const cleanup = batchRows === null ? Promise.resolve(null) : sleep(SETTLE_MS + START_MS).then(() => runCleanup(server.databaseUrl, batchRows));
    const [result, wallMs] = await Promise.all([load, cleanup]);
    if (result.errors > 0) throw new Error(`${result.errors} errors (${result.errorSamples[0]})`);
    if (result.exhausted) throw new Error('the pool of codes ran out');
    return { ...result, wallMs };
  }

  const kinds = [
    { name: 'no cleanup', batchRows: null },
    { name: 'batches of 500', batchRows: 500 },
    { name: 'one statement', batchRows: 1_000_000_000 },
  ];
  const results = new Map(kinds.map((kind) => [kind.name, []]));
  await round(null); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const kind of r % 2 === 0 ? kinds : [...kinds].reverse()) {
      const result = await round(kind.batchRows);
      results.get(kind.name).push(result);
      log(`  #${r + 1} ${kind.name.padEnd(15)} p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} max ${result.max.toFixed(1)} ms${result.wallMs ? `; cleanup ${result.wallMs.toFixed(0)} ms` : ''}`);
    }
  }
  const range = (values, digits) => {
    const s = summarize(values);
    return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
  };
  process.stdout.write(`\n(d1) code exchange at ${RATE}/s, ${EXPIRED} expired tokens cleaned up ${START_MS / 1000} s in; median (min–max) over ${ROUNDS} rounds\n`);
  for (const kind of kinds) {
    const runs = results.get(kind.name);
    const wall = kind.batchRows === null ? '' : `  cleanup ${range(runs.map((x) => x.wallMs), 0)} ms`;
    process.stdout.write(`  ${kind.name.padEnd(15)} p50 ${range(runs.map((x) => x.p50), 2)}  p99 ${range(runs.map((x) => x.p99), 2)}  max ${range(runs.map((x) => x.max), 1)} ms${wall}\n`);
  }
} finally {
  if (server) await stopProcess(server.child);
  rmSync(workDir, { recursive: true, force: true });
}
