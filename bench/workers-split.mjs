/**
 * `node workers-split.mjs [VARIANT …]`: `latch serve --workers N` against one process, as run.mjs measures it
 * (userinfo (c) and the code exchange (d1) at saturation, 32 keep-alive connections), with what run.mjs does not
 * show: how the connections split between the workers (established connections per worker pid, from
 * /proc/<pid>/fd and /proc/net/tcp, 1 s into each run) and each worker's share of the server's CPU time.
 *
 *   VARIANT   name=NAME[,workers=N][,root=DIR][,env=K=V;K=V]: a Latch build (default the repository), one
 *             process unless workers=N. e.g. name=one  name=sched-none,workers=2
 *             name=round-robin,workers=2,root=/tmp/latch-rr (a copy whose dist/cli/serve.js keeps Node's default)
 *
 * Environment: SPLIT_SCENARIOS (c,d1), SPLIT_ROUNDS (3), SPLIT_SECONDS (10), SPLIT_WARMUP_SECONDS (5 per variant
 * and scenario). Rounds alternate the variants' order. Not a benchmark for the report.
 */
import { readdirSync, readFileSync, readlinkSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRequest, runRequests } from './lib/http-load.mjs';
import { basicAuthorization, ensureLatchBuilt, HOST, codeExchanges, mintLatch, ROOT, setUpLatchData, startLatch } from './lib/latch.mjs';
import { cpuMilliseconds, processTree, stopProcess } from './lib/processes.mjs';
import { summarize } from './lib/stats.mjs';

const env = process.env;
const SCENARIOS = (env.SPLIT_SCENARIOS ?? 'c,d1').split(',');
const ROUNDS = Number(env.SPLIT_ROUNDS ?? 3);
const DURATION_MS = Number(env.SPLIT_SECONDS ?? 10) * 1000;
const WARMUP_MS = Number(env.SPLIT_WARMUP_SECONDS ?? 5) * 1000;
const CONNECTIONS = 32;
const log = (message) => process.stderr.write(`${message}\n`);

function parseVariant(text) {
  const variant = { name: text, root: ROOT, env: {}, workers: 1 };
  for (const part of text.split(',')) {
    const [key, ...rest] = part.split('=');
    const value = rest.join('=');
    if (key === 'name') variant.name = value;
    else if (key === 'root') variant.root = resolve(value);
    else if (key === 'workers') variant.workers = Number(value);
    else if (key === 'env') for (const pair of value.split(';').filter(Boolean)) variant.env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
    else throw new Error(`unknown variant part ${part}`);
  }
  return variant;
}

/** Inodes of the established TCP sockets whose local port is `port` (the server's side of the load's connections). */
function establishedInodes(port) {
  const inodes = new Set();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const localPort = parseInt(fields[1].split(':')[1], 16);
      if (localPort === port && fields[3] === '01') inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** Established connections on `port` held by each process of `pids`. */
function connectionsPerProcess(pids, port) {
  const inodes = establishedInodes(port);
  return pids.map((pid) => {
    let count = 0;
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (match && inodes.has(match[1])) count += 1;
        } catch {
          // closed meanwhile
        }
      }
    } catch {
      // ended meanwhile
    }
    return count;
  });
}

const variants = process.argv.slice(2).map(parseVariant);
if (variants.length === 0) variants.push(parseVariant('name=one'), parseVariant('name=workers-2,workers=2'));
ensureLatchBuilt(log);
const workDir = mkdtempSync(join(os.tmpdir(), 'latch-workers-split-'));
const entries = [];
try {
  for (const variant of variants) {
    const dataDir = join(workDir, variant.name);
    const setup = setUpLatchData(dataDir);
    const extraArgs = variant.workers > 1 ? ['--workers', String(variant.workers)] : [];
    const server = await startLatch(variant.name, dataDir, { extraArgs, env: variant.env, root: variant.root });
    // Every worker answers before the first run (startLatch waits for one answer only).
    for (let i = 0; i < 50 && processTree(server.pid).length - 1 < (variant.workers > 1 ? variant.workers : 0); i++) await sleep(100);
    await sleep(variant.workers > 1 ? 1000 : 0);
    const tokens = mintLatch(server, setup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
    entries.push({ variant, server, setup, tokens, results: {} });
  }

  async function measure(entry, scenario, durationMs) {
    const { server, setup, tokens } = entry;
    const host = `${HOST}:${server.port}`;
    let next;
    if (scenario === 'c') {
      const requests = tokens.map((token) => buildRequest({ path: '/oauth2/userinfo', host, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }));
      next = (i) => requests[i % requests.length];
    } else {
      const codes = mintLatch(server, setup, { kind: 'code', count: Math.ceil((25_000 * durationMs) / 1000), scope: ['profile'] });
      const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
      next = codeExchanges(codes, authorization, host);
    }
    await sleep(500);
    const tree = processTree(server.pid);
    const workers = entry.variant.workers > 1 ? tree.slice(1) : [server.pid];
    const cpuBefore = workers.map((pid) => cpuMilliseconds(pid));
    const treeCpuBefore = cpuMilliseconds(server.pid);
    let split = null;
    const sampler = sleep(Math.min(1000, durationMs / 2)).then(() => (split = connectionsPerProcess(workers, server.port)));
    const result = await runRequests({ host: HOST, port: server.port, connections: CONNECTIONS, durationMs, next });
    await sampler;
    const workerCpu = workers.map((pid, i) => cpuMilliseconds(pid) - cpuBefore[i]);
    const serverCpuMs = cpuMilliseconds(server.pid) - treeCpuBefore;
    if (result.errors > 0) throw new Error(`${entry.variant.name} ${scenario}: ${result.errors} errors (${result.errorSamples[0]})`);
    if (result.exhausted) throw new Error(`${entry.variant.name} ${scenario}: the pool of codes ran out`);
    return { ...result, split, workerCpu, cpuMicros: (serverCpuMs * 1000) / result.requests };
  }

  for (const scenario of SCENARIOS) {
    for (const entry of entries) await measure(entry, scenario, WARMUP_MS);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? entries : [...entries].reverse();
      for (const entry of order) {
        const result = await measure(entry, scenario, DURATION_MS);
        (entry.results[scenario] ??= []).push(result);
        const cpuTotal = result.workerCpu.reduce((a, b) => a + b, 0);
        const shares = result.workerCpu.map((ms) => `${((ms / cpuTotal) * 100).toFixed(0)}%`).join('/');
        log(
          `  ${scenario} ${entry.variant.name.padEnd(12)} #${round + 1}: ${result.rps.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} p99 ${result.p99.toFixed(2)} ms, ` +
            `${result.cpuMicros.toFixed(0)} µs CPU/req; connections per process ${result.split.join('/')}, CPU share ${shares}`,
        );
      }
    }
  }
  for (const scenario of SCENARIOS) {
    process.stdout.write(`\n(${scenario}) at saturation, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s, median (min–max) over ${ROUNDS} rounds\n`);
    for (const entry of entries) {
      const runs = entry.results[scenario];
      const rps = summarize(runs.map((r) => r.rps));
      const p99 = summarize(runs.map((r) => r.p99));
      const splits = runs.map((r) => r.split.join('/')).join(', ');
      process.stdout.write(
        `  ${entry.variant.name.padEnd(12)} ${rps.median.toFixed(0).padStart(6)}/s (${rps.min.toFixed(0)}–${rps.max.toFixed(0)})  p99 ${p99.median.toFixed(2)} ms (${p99.min.toFixed(2)}–${p99.max.toFixed(2)})` +
          `${entry.variant.workers > 1 ? `  connections per worker: ${splits}` : ''}\n`,
      );
    }
  }
} finally {
  for (const { server } of entries) await stopProcess(server.child);
  rmSync(workDir, { recursive: true, force: true });
}
