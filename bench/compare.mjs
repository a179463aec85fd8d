/**
 * `npm run compare -- VARIANT [VARIANT …]`: Latch alone, for trying a change. Each variant is a Latch build
 * (a folder with bin/ and dist/, default the repository) with extra environment; every variant gets a fresh
 * data folder. Rounds run the variants in turn, alternating their order, so that a noisy moment on the machine
 * hits all of them; the figure is server CPU per request (or per flow) from /proc, median over the rounds,
 * which moves far less from run to run on a shared machine than requests per second.
 *
 *   VARIANT   name=NAME[,root=DIR][,env=K=V;K=V][,args=--flag;--flag][,prefill=N][,db=postgres][,workers=N]
 *             e.g. name=now  name=info,env=LATCH_LOG_LEVEL=info  name=stgc,args=--single-threaded-gc (args go to node)
 *             prefill=N: N unused codes and N tokens in the database before the first round, as a long-running
 *             server (or the full bench, by its fixed-load runs) has
 *             db=postgres: Latch on a fresh database of the local PostgreSQL (lib/postgres.mjs) instead of SQLite;
 *             PostgreSQL's CPU per request is reported beside Latch's (its backends for that database and its
 *             background writers, as run.mjs counts it)
 *             workers=N: `latch serve --workers N` (the CPU is the whole process tree's, primary and workers)
 *
 * Environment: COMPARE_SCENARIOS (c,d1,e; also g, the refresh grant, and h, introspection; c, d1, g and h at a fixed
 * rate, e at saturation with virtual users), COMPARE_ROUNDS (3), COMPARE_SECONDS (5), COMPARE_RATE_C (8000),
 * COMPARE_RATE_D1 (4000), COMPARE_RATE_G (4000), COMPARE_RATE_H (8000); a rate of 0 is saturation,
 * COMPARE_SERVER_CPUS (a CPU list for taskset: the servers and all their threads run there).
 * Not a benchmark for the report: `npm run bench` is, beside the peer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { authorizePath, fullFlow, pkcePair, walkToRedirectUri } from './lib/flows.mjs';
import { buildRequest, runRequests, runVirtualUsers } from './lib/http-load.mjs';
import { basicAuthorization, ensureLatchBuilt, HOST, mintLatch, REDIRECT_URI, ROOT, setUpLatchData, startLatch } from './lib/latch.mjs';
import { cpuMilliseconds, stopProcess } from './lib/processes.mjs';
import { summarize } from './lib/stats.mjs';
import { createBenchDatabase, postgresCpuBetween, postgresCpuByPid } from './lib/postgres.mjs';

const env = process.env;
const SCENARIOS = (env.COMPARE_SCENARIOS ?? 'c,d1,e').split(',');
const ROUNDS = Number(env.COMPARE_ROUNDS ?? 3);
const DURATION_MS = Number(env.COMPARE_SECONDS ?? 5) * 1000;
const RATE = { c: Number(env.COMPARE_RATE_C ?? 8000), d1: Number(env.COMPARE_RATE_D1 ?? 4000), g: Number(env.COMPARE_RATE_G ?? 4000), h: Number(env.COMPARE_RATE_H ?? 8000) };
const log = (message) => process.stderr.write(`${message}\n`);

function parseVariant(text) {
  const variant = { name: text, root: ROOT, env: {}, nodeArgs: [], prefill: 0, db: 'sqlite', workers: 1 };
  for (const part of text.split(',')) {
    const [key, ...rest] = part.split('=');
    const value = rest.join('=');
    if (key === 'name') variant.name = value;
    else if (key === 'root') variant.root = resolve(value);
    else if (key === 'args') variant.nodeArgs = value.split(';').filter(Boolean);
    else if (key === 'prefill') variant.prefill = Number(value);
    else if (key === 'db') variant.db = value;
    else if (key === 'workers') variant.workers = Number(value);
    else if (key === 'env') for (const pair of value.split(';').filter(Boolean)) variant.env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
    else throw new Error(`unknown variant part ${part}`);
  }
  return variant;
}

const variants = process.argv.slice(2).map(parseVariant);
if (variants.length === 0) variants.push(parseVariant('name=repository'));
ensureLatchBuilt(log);
const workDir = mkdtempSync(join(os.tmpdir(), 'latch-compare-'));
const servers = [];
const databases = [];
try {
  for (const variant of variants) {
    const dataDir = join(workDir, variant.name);
    const database = variant.db === 'postgres' ? await createBenchDatabase(`compare_${servers.length}`) : undefined;
    if (database?.skip) throw new Error(`${variant.name}: PostgreSQL ${database.skip}`);
    if (database) databases.push(database);
    const setup = setUpLatchData(dataDir, variant.root, database?.databaseUrl);
    const extraArgs = variant.workers > 1 ? ['--workers', String(variant.workers)] : [];
    const server = await startLatch(variant.name, dataDir, { env: variant.env, root: variant.root, nodeArgs: variant.nodeArgs, databaseUrl: database?.databaseUrl, extraArgs });
    server.postgres = database?.name;
    // COMPARE_SERVER_CPUS=1: the server and all its threads on that CPU list (taskset), e.g. with the client on another.
    if (env.COMPARE_SERVER_CPUS) execFileSync('taskset', ['-a', '-p', '-c', env.COMPARE_SERVER_CPUS, String(server.pid)], { stdio: 'ignore' });
    for (let done = 0; done < variant.prefill; done += 100_000) {
      const count = Math.min(100_000, variant.prefill - done);
      mintLatch(server, setup, { kind: 'code', count, scope: ['profile'] });
      mintLatch(server, setup, { kind: 'token', count, scope: ['profile'] });
    }
    servers.push({ variant, setup, server, results: {} });
  }

  async function measure(entry, scenario) {
    const { server, setup } = entry;
    const host = `${HOST}:${server.port}`;
    let run;
    if (scenario === 'c') {
      const tokens = mintLatch(server, setup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
      const requests = tokens.map((token) => buildRequest({ path: '/oauth2/userinfo', host, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }));
      run = () => runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE.c || undefined, next: (i) => requests[i % requests.length] });
    } else if (scenario === 'd1') {
      const codes = mintLatch(server, setup, { kind: 'code', count: Math.ceil(((RATE.d1 || 30_000) * DURATION_MS) / 1000) + 200, scope: ['profile'] });
      const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
      const body = (code) => `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
      const next = (i) =>
        i < codes.length ? buildRequest({ method: 'POST', path: '/oauth2/token', host, headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' }, body: body(codes[i]) }) : null;
      run = () => runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE.d1 || undefined, next });
    } else if (scenario === 'g') {
      // The refresh_token grant with rotation, each refresh token fresh and presented once (run.mjs's g).
      const tokens = mintLatch(server, setup, { kind: 'refresh', count: Math.ceil(((RATE.g || 20_000) * DURATION_MS) / 1000) + 200, scope: ['offline_access', 'profile'] });
      const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
      const next = (i) =>
        i < tokens.length
          ? buildRequest({ method: 'POST', path: '/oauth2/token', host, headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&refresh_token=${tokens[i]}` })
          : null;
      run = () => runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE.g || undefined, next });
    } else if (scenario === 'h') {
      // Introspection of the client's own live access tokens, a pool of 1000 round robin (run.mjs's h).
      const tokens = mintLatch(server, setup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
      const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
      const requests = tokens.map((token) =>
        buildRequest({ method: 'POST', path: '/oauth2/introspect', host, headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}&token_type_hint=access_token` }),
      );
      run = () => runRequests({ host: HOST, port: server.port, connections: 32, durationMs: DURATION_MS, ratePerSecond: RATE.h || undefined, next: (i) => requests[i % requests.length] });
    } else if (scenario === 'e') {
      const client = setup.es256;
      run = () =>
        runVirtualUsers({
          host: HOST,
          port: server.port,
          users: 8,
          durationMs: DURATION_MS,
          setup: async (agent) => {
            if (!agent.state.ready) await walkToRedirectUri(agent, authorizePath(client.clientId, pkcePair(), 'openid profile'));
            agent.state.ready = true;
          },
          flow: (agent) => fullFlow(agent, client, 'openid profile'),
        });
    } else {
      throw new Error(`unknown scenario ${scenario}`);
    }
    const before = cpuMilliseconds(server.pid);
    const postgresBefore = server.postgres ? postgresCpuByPid(server.postgres) : undefined;
    const result = await run();
    const cpuMs = cpuMilliseconds(server.pid) - before;
    const postgresMs = postgresBefore ? postgresCpuBetween(postgresBefore, postgresCpuByPid(server.postgres)) : undefined;
    if (result.errors > 0) throw new Error(`${entry.variant.name} ${scenario}: ${result.errors} errors (${result.errorSamples[0]})`);
    return { cpuMicros: (cpuMs * 1000) / result.requests, postgresMicros: postgresMs === undefined ? undefined : (postgresMs * 1000) / result.requests, rps: result.rps, p99: result.p99 };
  }

  for (const scenario of SCENARIOS) {
    for (const entry of servers) await measure(entry, scenario); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const entry of order) {
        const result = await measure(entry, scenario);
        (entry.results[scenario] ??= []).push(result);
        const postgres = result.postgresMicros === undefined ? '' : ` + PostgreSQL ${result.postgresMicros.toFixed(1)} µs`;
        log(`  ${scenario} ${entry.variant.name} #${round + 1}: ${result.cpuMicros.toFixed(1)} µs CPU${postgres}, ${result.rps.toFixed(0)}/s, p99 ${result.p99.toFixed(2)} ms`);
      }
    }
  }
  for (const scenario of SCENARIOS) {
    process.stdout.write(`\n(${scenario}) server CPU per ${scenario === 'e' ? 'flow' : 'request'}, median (min–max) over ${ROUNDS} rounds${scenario === 'e' ? '' : ` at ${RATE[scenario]}/s`}\n`);
    for (const entry of servers) {
      const cpu = summarize(entry.results[scenario].map((r) => r.cpuMicros));
      const rps = summarize(entry.results[scenario].map((r) => r.rps));
      const p99 = summarize(entry.results[scenario].map((r) => r.p99));
      const postgres = entry.server.postgres ? summarize(entry.results[scenario].map((r) => r.postgresMicros)) : undefined;
      const postgresText = postgres ? `   PostgreSQL ${postgres.median.toFixed(1)} µs (${postgres.min.toFixed(1)}–${postgres.max.toFixed(1)})` : '';
      process.stdout.write(
        `  ${entry.variant.name.padEnd(16)} ${cpu.median.toFixed(1).padStart(7)} µs (${cpu.min.toFixed(1)}–${cpu.max.toFixed(1)})${postgresText}   ${rps.median.toFixed(0).padStart(6)}/s (${rps.min.toFixed(0)}–${rps.max.toFixed(0)})   p99 ${p99.median.toFixed(2)} ms\n`,
      );
    }
  }
} finally {
  for (const { server } of servers) await stopProcess(server.child);
  for (const database of databases) await database.drop();
  rmSync(workDir, { recursive: true, force: true });
}
