/**
 * `npm run bench`: Latch beside node-oidc-provider 9 and a bare node:http ceiling, all on this machine, in
 * one run. See bench/README.md for what each scenario measures and how to read the table.
 *
 * Environment:
 *   BENCH_DURATION_SECONDS  seconds per measured run (default 10; ~2 for a smoke run)
 *   BENCH_REPEATS           runs per scenario and server, alternating Latch and the peer (default 3)
 *   BENCH_WARMUP_SECONDS    warm-up per server and scenario before the runs (default 0.8 × the duration, at most 8)
 *   BENCH_CONNECTIONS       keep-alive connections of the load client (default 32)
 *   BENCH_VIRTUAL_USERS     browser-like users with cookie jars in the full-flow scenario (default 8)
 *   BENCH_SCENARIOS         comma-separated subset, e.g. "a,c,d1" (default: all)
 *   BENCH_WORKERS           1 to also compare `latch serve --workers 2` with one process, when available (default 1)
 *   BENCH_WRITE_REPORT      0 to skip writing BENCHMARKS.md (default 1; it keeps everything from "## Measured separately" on)
 *   BENCH_LATCH_NODE_ARGS   node options for the Latch process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" (default none)
 *   BENCH_LATCH_ENV         extra environment for the Latch process, e.g. "LATCH_LOG_LEVEL=warn" (default none)
 *   BENCH_ONLY_LATCH        1 to measure Latch alone (the peer's runs are skipped): for trying a change, not for the report
 *   BENCH_POSTGRES          0 to leave out Latch on PostgreSQL (default: included when the server answers, lib/postgres.mjs);
 *                           only to leave out Latch on SQLite instead (for trying a change, not for the report)
 *   BENCH_POSTGRES_URL      the PostgreSQL server and maintenance database (default postgres://postgres@127.0.0.1:5432/test)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { buildRequest, runRequests, runVirtualUsers } from './lib/http-load.mjs';
import { authorizePath, formBody, fullFlow, htmlInputValue, pkcePair, walkToRedirectUri } from './lib/flows.mjs';
import { basicAuthorization, BENCH_DIR, ensureLatchBuilt, HOST, latchSupportsWorkers, mintLatch, REDIRECT_URI, ROOT, setUpLatchData, startLatch, USER_EMAIL, USER_PASSWORD } from './lib/latch.mjs';
import { cpuMilliseconds, rssBytes, startListeningScript, stopProcess } from './lib/processes.mjs';
import { createBenchDatabase, postgresCpuBetween, postgresCpuByPid } from './lib/postgres.mjs';
import { renderMarkdown, renderTerminal, rewriteBenchmarks } from './lib/report.mjs';
import { machineCpuMilliseconds, summarize } from './lib/stats.mjs';

const env = process.env;
const DURATION_MS = Number(env.BENCH_DURATION_SECONDS ?? 10) * 1000;
// Warm-up per server and scenario before the measured runs. On the 2-core VM a freshly loaded process served
// userinfo at ~14k req/s and settled at 18-21k after about 8 s of load (JIT, heap growth, the guest's memory
// being faulted in): a 2 s warm-up measured whichever server ran first cold. BENCH_WARMUP_SECONDS overrides.
const WARMUP_MS = env.BENCH_WARMUP_SECONDS !== undefined ? Number(env.BENCH_WARMUP_SECONDS) * 1000 : Math.min(8000, Math.max(500, DURATION_MS * 0.8));
// A fixed-rate run offers its rate for this long before it records: each run follows an idle pause (the next
// pool of codes minted, the machine quiet), and the p99 is the server's at that load, not its way out of the
// pause (V8's idle-time GC, cold caches: a third of the event loop's stalls of a 10 s run fell in its first
// second, bench/README.md). The same for Latch, the peer and the bare server.
const FIXED_LOAD_SETTLE_MS = Number(env.BENCH_SETTLE_SECONDS ?? 1) * 1000;
const REPEATS = Number(env.BENCH_REPEATS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const VIRTUAL_USERS = Number(env.BENCH_VIRTUAL_USERS ?? 8);
const ONLY_LATCH = env.BENCH_ONLY_LATCH === '1';
const POSTGRES_ONLY = env.BENCH_POSTGRES === 'only';
// The scenarios Latch on PostgreSQL runs (issue 15): the hot read, the two token grants, introspection, the flow.
const POSTGRES_SCENARIOS = new Set(['c', 'd1', 'e', 'g', 'h']);
const ONLY = env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',').map((s) => s.trim())) : null;

const log = (message) => process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------------------
// Build and set up

// ---------------------------------------------------------------------------------------------------------
// Minting codes and tokens, through each server's own code path

let messageId = 0;
function askPeer(peer, message) {
  return new Promise((resolvePromise, reject) => {
    const id = ++messageId;
    const onMessage = (reply) => {
      if (reply.id !== id) return;
      peer.child.off('message', onMessage);
      if (reply.error) reject(new Error(reply.error));
      else resolvePromise(reply.values);
    };
    peer.child.on('message', onMessage);
    peer.child.send({ id, ...message });
  });
}

async function mintPeer(peer, { kind, count, scope, clientId, nonce }) {
  const values = [];
  for (let done = 0; done < count; done += 20_000) {
    const batch = Math.min(20_000, count - done);
    const type = { code: 'mint-codes', token: 'mint-tokens', refresh: 'mint-refresh-tokens' }[kind];
    values.push(...(await askPeer(peer, { type, count: batch, scope, clientId, redirectUri: REDIRECT_URI, nonce })));
  }
  return values;
}

// ---------------------------------------------------------------------------------------------------------
// Measuring one run

/**
 * Waits until the machine is quiet before a run: a server measured just before may still be collecting its
 * garbage (the peer's heap holds every code and token it was given), which would land on the next server's
 * figures, on the same two cores. Quiet is under 10% of one core busy over a quarter of a second; after 10 s
 * the run starts anyway, and the noise gauge of the run says so.
 */
async function waitUntilQuiet() {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    const before = machineCpuMilliseconds();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = machineCpuMilliseconds();
    if (after.busy - before.busy < 25) {
      if (Date.now() - started > 1000) log(`    (waited ${((Date.now() - started) / 1000).toFixed(1)} s for the machine to be quiet)`);
      return;
    }
  }
  log('    (the machine was still busy after 10 s; running anyway)');
}

async function measure(target, run) {
  await waitUntilQuiet();
  const cpuBefore = cpuMilliseconds(target.pid);
  const postgresBefore = target.postgres ? postgresCpuByPid(target.postgres) : null;
  const machineBefore = machineCpuMilliseconds();
  const selfBefore = process.cpuUsage();
  const startedAt = new Date();
  const result = await run();
  const endedAt = new Date();
  // Wall time of the whole run (a fixed-rate run's settling second included), for the CPU shares.
  const wallMs = endedAt.getTime() - startedAt.getTime();
  const self = process.cpuUsage(selfBefore);
  const machineAfter = machineCpuMilliseconds();
  const cpuMs = cpuMilliseconds(target.pid) - cpuBefore;
  // Latch on PostgreSQL: the database server's CPU for this run (its backends for Latch's database and its
  // shared WAL writer, background writer and checkpointer), beside Latch's own.
  const postgresMs = postgresBefore ? postgresCpuBetween(postgresBefore, postgresCpuByPid(target.postgres)) : null;
  const ownMs = cpuMs + (postgresMs ?? 0) + (self.user + self.system) / 1000;
  const busyMs = machineAfter.busy - machineBefore.busy;
  return {
    ...result,
    cpuMsPerRequest: result.requests > 0 ? cpuMs / result.requests : NaN,
    serverCpuPercent: (cpuMs / wallMs) * 100,
    ...(postgresMs !== null && {
      postgresCpuMsPerRequest: result.requests > 0 ? postgresMs / result.requests : NaN,
      postgresCpuPercent: (postgresMs / wallMs) * 100,
    }),
    // The load client's own share of a core: what it leaves the server on a 2-core machine.
    clientCpuPercent: (((self.user + self.system) / 1000) / wallMs) * 100,
    // Wall-clock bounds, to line a run up with a trace of the server (lib/stall-trace.mjs).
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    // Everything else that ran on the machine meanwhile (other programs, minting children): a noise gauge.
    otherCpuPercent: Math.max(0, ((busyMs - ownMs) / wallMs) * 100),
    rssBytes: rssBytes(target.pid),
  };
}

/** A POST of a form to `path` with HTTP Basic client authentication, as every token-endpoint scenario sends it. */
function formPost(target, path, credentials, body) {
  return buildRequest({
    method: 'POST',
    path,
    host: `${HOST}:${target.port}`,
    headers: { Authorization: credentials, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body,
  });
}

function tokenRequest(target, credentials, code) {
  const body = `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
  return buildRequest({
    method: 'POST',
    path: '/oauth2/token',
    host: `${HOST}:${target.port}`,
    headers: { Authorization: credentials, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body,
  });
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios

function wanted(id) {
  return ONLY === null || ONLY.has(id);
}

async function main() {
  ensureLatchBuilt(log);
  const startedAt = new Date();
  const workDir = mkdtempSync(join(os.tmpdir(), 'latch-bench-'));
  const results = { scenarios: [], fixedLoad: [], workers: null, notes: [], argon2: null, clientCheck: null };
  const servers = [];
  let postgresDatabases = [];
  try {
    // Latch's data: a fresh SQLite database, one user, one client, through the CLI.
    const latchDir = join(workDir, 'latch');
    const latchSetup = setUpLatchData(latchDir);

    log('starting the bare server, Latch and node-oidc-provider');
    const bare = { name: 'bare', kind: 'bare', ...(await startListeningScript(join(BENCH_DIR, 'servers', 'bare.mjs'), { cwd: BENCH_DIR, env: { ...env, PORT: '0' } })) };
    servers.push(bare);
    // BENCH_LATCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=results/profiles", profiles Latch through a whole run.
    const latch = await startLatch('Latch', latchDir, {
      nodeArgs: env.BENCH_LATCH_NODE_ARGS ? env.BENCH_LATCH_NODE_ARGS.split(' ') : [],
      env: Object.fromEntries((env.BENCH_LATCH_ENV ?? '').split(' ').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
    });
    servers.push(latch);
    // Latch on PostgreSQL (issue 15): the same command and shipped settings on a fresh database of the local
    // server; its rows are left out, and say so, when PostgreSQL does not answer.
    const postgresDatabase = await createBenchDatabase('serve');
    postgresDatabases.push(postgresDatabase);
    let latchPg = { name: 'Latch on PostgreSQL', kind: 'latchpg' };
    let latchPgSetup = null;
    if (postgresDatabase.skip) {
      log(`Latch on PostgreSQL: skipped (${postgresDatabase.skip})`);
      results.notes.push(`Latch on PostgreSQL: skipped (${postgresDatabase.skip})`);
    } else {
      const latchPgDir = join(workDir, 'latch-postgres');
      latchPgSetup = setUpLatchData(latchPgDir, ROOT, postgresDatabase.databaseUrl);
      latchPg = await startLatch('Latch on PostgreSQL', latchPgDir, {
        databaseUrl: postgresDatabase.databaseUrl,
        nodeArgs: env.BENCH_LATCH_NODE_ARGS ? env.BENCH_LATCH_NODE_ARGS.split(' ') : [],
        env: Object.fromEntries((env.BENCH_LATCH_ENV ?? '').split(' ').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
      });
      latchPg.kind = 'latchpg';
      latchPg.postgres = postgresDatabase.name;
      servers.push(latchPg);
      results.postgres = { version: postgresDatabase.version, synchronousCommit: postgresDatabase.synchronousCommit };
    }
    /** Latch on PostgreSQL's target for a scenario, or a skipped one saying why. */
    const postgresTarget = (make) => (postgresDatabase.skip ? { server: latchPg, skip: postgresDatabase.skip } : make());
    const startPeer = (port) => startListeningScript(join(BENCH_DIR, 'servers', 'peer.mjs'), { cwd: BENCH_DIR, env: { ...env, PORT: String(port) }, ipc: true });
    const peer = { name: 'node-oidc-provider', kind: 'peer', ...(await startPeer(0)) };
    servers.push(peer);
    /**
     * A new peer process on the same port, before each scenario it runs in and before its fixed-load runs: its
     * adapter never evicts, so a peer kept for the whole run holds every code and token of the scenarios before
     * (2.4 GB of RSS by (g) in the run of 2026-11-28 11:42) and slows down, which flattered the ratios of the
     * scenarios that come late (BENCHMARKS.md, "The refresh's 3.88× is the peer slowing down"). Latch keeps its
     * process: its database is on disk and its caches are bounded.
     */
    const freshPeer = async () => {
      await stopProcess(peer.child);
      Object.assign(peer, await startPeer(peer.port));
    };
    /** Values minted on the peer for one of its processes: minted again once a fresh process has replaced it. */
    const perPeerProcess = (mint) => {
      let minted = null;
      return async () => {
        if (minted?.pid !== peer.pid) minted = { pid: peer.pid, values: await mint() };
        return minted.values;
      };
    };
    /** A target's values: a list, or a function that mints them (perPeerProcess). */
    const valuesOf = async (values) => (typeof values === 'function' ? values() : values);
    const { PEER_CLIENT, PEER_CLIENT_ES256 } = await import('./servers/peer-clients.mjs');
    const credentials = {
      latch: basicAuthorization(latchSetup.clientId, latchSetup.clientSecret),
      latchPg: latchPgSetup && basicAuthorization(latchPgSetup.clientId, latchPgSetup.clientSecret),
      peer: basicAuthorization(PEER_CLIENT.client_id, PEER_CLIENT.client_secret),
      peerEs256: basicAuthorization(PEER_CLIENT_ES256.client_id, PEER_CLIENT_ES256.client_secret),
    };

    const getRequest = (target, path, headers = {}) => buildRequest({ path, host: `${HOST}:${target.port}`, headers: { Accept: 'application/json', ...headers } });

    // Probes: what this Latch build offers (discovery and id_tokens land with the OIDC work).
    const probe = async (target, request) => {
      const response = await fetch(`http://${HOST}:${target.port}${request.path}`, request.init);
      return { status: response.status, body: await response.text() };
    };
    const latchDiscovery = await probe(latch, { path: '/.well-known/openid-configuration' });
    const latchHasDiscovery = latchDiscovery.status === 200;
    const probeIdTokenAlg = async (setup) => {
      if (!setup) return null;
      const [code] = mintLatch(latch, setup, { kind: 'code', count: 1, scope: ['openid', 'profile'], nonce: 'probe' });
      const response = await fetch(`http://${HOST}:${latch.port}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basicAuthorization(setup.clientId, setup.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: formBody({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
      });
      const body = await response.json();
      return body.id_token ? JSON.parse(Buffer.from(body.id_token.split('.')[0], 'base64url').toString('utf8')).alg : null;
    };
    const latchIdTokenAlg = await probeIdTokenAlg(latchSetup);
    const latchEcIdTokenAlg = await probeIdTokenAlg(latchSetup.es256);
    log(`Latch: discovery ${latchHasDiscovery ? 'yes' : 'not yet'}, id_token ${latchIdTokenAlg ?? 'not yet'}, second client ${latchEcIdTokenAlg ?? 'none'}`);

    /**
     * One scenario: warm-up, then REPEATS runs alternating the order of Latch and the peer. `prepare(target,
     * expectedRequests)` returns the load options for one run (a request generator, or a flow).
     */
    async function scenario(definition) {
      if (!wanted(definition.id)) return null;
      const entry = { id: definition.id, title: definition.title, unit: definition.unit ?? 'req/s', runs: {}, notes: [...(definition.notes ?? [])] };
      results.scenarios.push(entry);
      if (ONLY_LATCH) for (const t of definition.targets) if (t.server.kind === 'peer' && t.skip === undefined) t.skip = 'BENCH_ONLY_LATCH=1';
      if (POSTGRES_ONLY) for (const t of definition.targets) if (t.server.kind === 'latch' && t.skip === undefined) t.skip = 'BENCH_POSTGRES=only';
      const targets = definition.targets.filter((t) => t.skip === undefined);
      for (const skipped of definition.targets.filter((t) => t.skip !== undefined)) {
        entry.notes.push(`${skipped.server.name}: ${skipped.skip}`);
        entry.runs[skipped.server.kind] = { skipped: skipped.skip };
      }
      if (targets.some((t) => t.server === peer)) await freshPeer();
      const rateEstimate = new Map();
      const runOnce = async (target, durationMs, ratePerSecond, { warmUp = false } = {}) => {
        // The warm-up runs before the JIT has settled, so its rate can be well below a measured run's: the pool
        // is sized from the larger of the guess and the best rate seen, three times over.
        const expectedRate = Math.max(rateEstimate.get(target) ?? 0, target.rateGuess ?? 4000, ratePerSecond ?? 0);
        const settleMs = ratePerSecond ? FIXED_LOAD_SETTLE_MS : 0;
        const expected = Math.ceil(((expectedRate * (durationMs + settleMs)) / 1000) * (ratePerSecond ? 1.1 : 3)) + CONNECTIONS * 4;
        const load = await target.prepare(Math.min(expected, 400_000));
        const result = await measure(target.server, () =>
          load.flow
            ? runVirtualUsers({ host: HOST, port: target.server.port, users: load.users, durationMs, setup: load.setup, flow: load.flow })
            : runRequests({ host: HOST, port: target.server.port, connections: CONNECTIONS, durationMs, next: load.next, isOk: load.isOk, ratePerSecond, settleMs }),
        );
        if (!ratePerSecond) rateEstimate.set(target, Math.max(rateEstimate.get(target) ?? 0, result.rps));
        // A warm-up that runs out of codes has done its job (it sizes the pools of the measured runs); a measured
        // run that does is reported.
        if (result.exhausted && !warmUp) entry.notes.push(`${target.server.name}: the pool of single-use codes or refresh tokens ran out before the end of a run; its rate is over the time it lasted`);
        return result;
      };
      for (const target of targets) {
        log(`  ${definition.id} ${target.server.name}: warm-up`);
        await runOnce(target, WARMUP_MS, undefined, { warmUp: true });
      }
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const order = repeat % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          const result = await runOnce(target, DURATION_MS);
          (entry.runs[target.server.kind] ??= { results: [] }).results.push(result);
          log(`  ${definition.id} ${target.server.name} #${repeat + 1}: ${result.rps.toFixed(0)} ${entry.unit}, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}${result.errorSamples.length ? ` (${result.errorSamples[0]})` : ''}, cpu ${result.cpuMsPerRequest.toFixed(3)} ms/req${result.postgresCpuMsPerRequest !== undefined ? ` + PostgreSQL ${result.postgresCpuMsPerRequest.toFixed(3)}` : ''}, others ${result.otherCpuPercent.toFixed(0)}%`);
        }
      }
      for (const run of Object.values(entry.runs)) {
        if (!run.results) continue;
        run.rps = summarize(run.results.map((r) => r.rps));
        run.p50 = summarize(run.results.map((r) => r.p50));
        run.p99 = summarize(run.results.map((r) => r.p99));
        run.cpuMsPerRequest = summarize(run.results.map((r) => r.cpuMsPerRequest));
        run.serverCpuPercent = summarize(run.results.map((r) => r.serverCpuPercent));
        if (run.results[0].postgresCpuMsPerRequest !== undefined) {
          run.postgresCpuMsPerRequest = summarize(run.results.map((r) => r.postgresCpuMsPerRequest));
          run.postgresCpuPercent = summarize(run.results.map((r) => r.postgresCpuPercent));
        }
        run.errors = run.results.reduce((sum, r) => sum + r.errors, 0);
        run.otherCpuPercent = summarize(run.results.map((r) => r.otherCpuPercent));
      }
      entry.runOnce = runOnce;
      entry.targets = targets;
      return entry;
    }

    const okJson = (response) => response.status >= 200 && response.status < 300;

    // (a) the bare ceiling. The same target gives the floor at a fixed offered load further down.
    const bareTarget = { server: bare, rateGuess: 15000, prepare: async () => { const bytes = getRequest(bare, '/'); return { next: () => bytes, isOk: okJson }; } };
    await scenario({
      id: 'a',
      title: 'bare node:http ceiling (fixed small JSON)',
      targets: [bareTarget],
    });
    const ceiling = results.scenarios.find((s) => s.id === 'a')?.runs.bare?.rps.median;

    // The load client's own ceiling, checked against autocannon on the bare server.
    if (wanted('a')) {
      const { default: autocannon } = await import('autocannon');
      const check = await autocannon({ url: `http://${HOST}:${bare.port}/`, connections: CONNECTIONS, duration: Math.max(1, Math.round(DURATION_MS / 2000)) });
      results.clientCheck = { autocannonRps: check.requests.average, ownClientRps: ceiling };
      log(`  load client check on bare: own ${ceiling?.toFixed(0)} req/s, autocannon ${check.requests.average.toFixed(0)} req/s`);
    }

    // (b) discovery
    await scenario({
      id: 'b',
      title: 'discovery document',
      targets: [
        latchHasDiscovery
          ? { server: latch, prepare: async () => { const bytes = getRequest(latch, '/.well-known/openid-configuration'); return { next: () => bytes, isOk: okJson }; } }
          : { server: latch, skip: 'no /.well-known/openid-configuration in this build yet (it lands with the OIDC work)' },
        { server: peer, prepare: async () => { const bytes = getRequest(peer, '/.well-known/openid-configuration'); return { next: () => bytes, isOk: okJson }; } },
      ],
    });

    // (c) userinfo with a valid token (a pool of 1000 tokens, round robin)
    const latchTokens = wanted('c') ? mintLatch(latch, latchSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] }) : [];
    const peerTokens = perPeerProcess(() => mintPeer(peer, { kind: 'token', count: 1000, scope: 'openid profile', clientId: PEER_CLIENT.client_id }));
    const userinfoTarget = (server, tokens) => ({
      server,
      prepare: async () => {
        const requests = (await valuesOf(tokens)).map((token) => getRequest(server, '/oauth2/userinfo', { Authorization: `Bearer ${token}` }));
        return { next: (i) => requests[i % requests.length], isOk: okJson };
      },
    });
    const userinfoEntry = await scenario({
      id: 'c',
      title: 'userinfo with a valid token',
      targets: [
        userinfoTarget(latch, latchTokens),
        postgresTarget(() => userinfoTarget(latchPg, !wanted('c') ? [] : mintLatch(latchPg, latchPgSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] }))),
        userinfoTarget(peer, peerTokens),
      ],
    });

    // (d1–d3) code exchange, every code fresh and used once
    const codeTargets = (variant) => {
      const latchTarget = { server: latch, rateGuess: 4000 };
      const peerTarget = { server: peer, rateGuess: 2000 };
      const setup = variant.latchSetup ?? latchSetup;
      latchTarget.prepare = async (count) => {
        const codes = mintLatch(latch, setup, { kind: 'code', count, scope: variant.latchScope, nonce: variant.nonce });
        const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
        return { next: (i) => (i < codes.length ? tokenRequest(latch, authorization, codes[i]) : null), isOk: variant.isOk };
      };
      peerTarget.prepare = async (count) => {
        const client = variant.peerClient;
        const codes = await mintPeer(peer, { kind: 'code', count, scope: variant.peerScope, clientId: client.client_id, nonce: variant.nonce });
        const authorization = basicAuthorization(client.client_id, client.client_secret);
        return { next: (i) => (i < codes.length ? tokenRequest(peer, authorization, codes[i]) : null), isOk: variant.isOk };
      };
      return [latchTarget, peerTarget];
    };
    const exchangeOk = (response) => response.status === 200;
    const withIdToken = (alg) => (response) => {
      if (response.status !== 200) return false;
      const idToken = JSON.parse(response.body.toString('utf8')).id_token;
      return typeof idToken === 'string' && JSON.parse(Buffer.from(idToken.split('.')[0], 'base64url').toString('utf8')).alg === alg;
    };
    const exchangeEntry = await scenario({
      id: 'd1',
      title: 'code exchange, scope=profile',
      targets: ((variant) => {
        const [latchTarget, peerTarget] = codeTargets(variant);
        const latchPgTarget = postgresTarget(() => ({ server: latchPg, rateGuess: 3000 }));
        if (!latchPgTarget.skip) {
          latchPgTarget.prepare = async (count) => {
            const codes = mintLatch(latchPg, latchPgSetup, { kind: 'code', count, scope: variant.latchScope });
            return { next: (i) => (i < codes.length ? tokenRequest(latchPg, credentials.latchPg, codes[i]) : null), isOk: variant.isOk };
          };
        }
        return [latchTarget, latchPgTarget, peerTarget];
      })({ latchScope: ['profile'], peerScope: 'profile', peerClient: PEER_CLIENT, isOk: exchangeOk }),
    });
    {
      const [latchTarget, peerTarget] = codeTargets({ latchScope: ['openid', 'profile'], peerScope: 'openid profile', peerClient: PEER_CLIENT, nonce: 'bench-nonce', isOk: withIdToken('RS256') });
      await scenario({
        id: 'd2',
        title: 'code exchange + RS256 id_token',
        targets: [latchIdTokenAlg === 'RS256' ? latchTarget : { server: latch, skip: `this build ${latchIdTokenAlg ? `signs id_tokens with ${latchIdTokenAlg}` : 'issues no id_token yet (it lands with the OIDC work)'}` }, peerTarget],
      });
    }
    {
      // Both servers sign with ES256 here: the peer through its second client registration, Latch through a
      // client created with --id-token-alg ES256.
      const ecAlg = latchEcIdTokenAlg ?? 'ES256';
      const [latchTarget, peerTarget] = codeTargets({ latchScope: ['openid', 'profile'], latchSetup: latchSetup.es256, peerScope: 'openid profile', peerClient: PEER_CLIENT_ES256, nonce: 'bench-nonce', isOk: withIdToken(ecAlg) });
      peerTarget.prepare = ((prepare) => async (count) => ({ ...(await prepare(count)), isOk: withIdToken('ES256') }))(peerTarget.prepare);
      await scenario({
        id: 'd3',
        title: `code exchange + ${ecAlg} id_token`,
        targets: [
          latchEcIdTokenAlg === 'ES256' || latchEcIdTokenAlg === 'EdDSA' ? latchTarget : { server: latch, skip: `this build ${latchIdTokenAlg ? 'has no per-client ES256/EdDSA id_tokens' : 'issues no id_token yet (it lands with the OIDC work)'}` },
          peerTarget,
        ],
      });
    }

    // (e) the full flow with a live session and remembered consent: authorize → code → token → userinfo, with
    // state, PKCE and nonce. Both servers run it with openid (the peer's userinfo refuses a token without it:
    // 403 insufficient_scope), so both sign an id_token per exchange: ES256 in (e), through the same clients
    // as (d3); RS256, both servers' default, in (e-rs256), where as in (d2) the RSA signature is most of the
    // work on both sides. (e-rs256) is reported beside (e), without a target of its own.
    const flowTarget = (server, client) => ({
      server,
      prepare: async () => ({
        users: VIRTUAL_USERS,
        flow: (agent) => fullFlow(agent, client, 'openid profile'),
        setup: async (agent) => {
          if (agent.state.ready) return;
          const callback = await walkToRedirectUri(agent, authorizePath(client.clientId, pkcePair(), 'openid profile'));
          if (!callback.searchParams.get('code')) throw new Error(`setup ended without a code: ${callback.href}`);
          agent.state.ready = true;
        },
      }),
    });
    const flowVariants = [
      { id: 'e', alg: latchEcIdTokenAlg ?? 'ES256', latchClient: latchSetup.es256, latchPgClient: latchPgSetup?.es256, peerClient: PEER_CLIENT_ES256 },
      { id: 'e-rs256', alg: 'RS256', latchClient: latchSetup, peerClient: PEER_CLIENT },
    ];
    for (const { id, alg, latchClient, latchPgClient, peerClient } of flowVariants) {
      await scenario({
        id,
        title: `full flow: authorize → code → token → userinfo, ${alg} id_token`,
        unit: 'flows/s',
        notes: [
          `${VIRTUAL_USERS} virtual users, each with its own cookie jar and keep-alive connection, signed in and consented once before the clock starts; scope openid profile with state, nonce and PKCE; an ${alg} id_token per exchange on both servers`,
        ],
        targets: [
          latchClient ? flowTarget(latch, latchClient) : { server: latch, skip: 'this build has no per-client ES256/EdDSA id_tokens' },
          ...(id === 'e' ? [postgresTarget(() => flowTarget(latchPg, latchPgClient))] : []),
          flowTarget(peer, { clientId: peerClient.client_id, clientSecret: peerClient.client_secret }),
        ],
      });
    }

    // (f) password sign-ins, and argon2id alone
    if (wanted('f')) {
      await scenario({
        id: 'f',
        title: 'password sign-ins (argon2id at shipped parameters)',
        unit: 'sign-ins/s',
        notes: ['the peer has no password store of its own: compared with argon2id alone instead'],
        targets: [
          {
            server: latch,
            prepare: async () => ({
              users: CONNECTIONS,
              setup: async (agent) => {
                const page = await agent.send({ path: '/login' });
                agent.state.csrf = htmlInputValue(page.body.toString('utf8'), '_csrf');
              },
              flow: async (agent) => {
                const response = await agent.send({
                  method: 'POST',
                  path: '/login',
                  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
                  body: formBody({ _csrf: agent.state.csrf, return_to: '/', email: USER_EMAIL, password: USER_PASSWORD }),
                });
                if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`);
              },
            }),
          },
        ],
      });
      const argon2Runs = [];
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const output = execFileSync(process.execPath, [join(BENCH_DIR, 'argon2-alone.mjs'), JSON.stringify({ durationMs: DURATION_MS, inFlight: CONNECTIONS })], { cwd: BENCH_DIR, env, encoding: 'utf8' });
        argon2Runs.push(JSON.parse(output));
        log(`  f argon2id alone #${repeat + 1}: ${argon2Runs.at(-1).perSecond.toFixed(1)} verifications/s`);
      }
      results.argon2 = { perSecond: summarize(argon2Runs.map((r) => r.perSecond)), options: argon2Runs[0].options, threadPoolSize: argon2Runs[0].threadPoolSize };
    }

    // (g) the refresh_token grant with rotation: every request presents a fresh refresh token once (minted ahead,
    // as the codes of d1 are), with the client authentication of d1, and gets a new refresh token and access
    // token back. Scope offline_access profile on both servers: no id_token, as in d1.
    const refreshOk = (response) => response.status === 200 && response.body.includes('"refresh_token"');
    const refreshTargets = () => {
      const refreshBody = (token) => `grant_type=refresh_token&refresh_token=${encodeURIComponent(token)}`;
      return [
        {
          server: latch,
          rateGuess: 4000,
          prepare: async (count) => {
            const tokens = mintLatch(latch, latchSetup, { kind: 'refresh', count, scope: ['offline_access', 'profile'] });
            return { next: (i) => (i < tokens.length ? formPost(latch, '/oauth2/token', credentials.latch, refreshBody(tokens[i])) : null), isOk: refreshOk };
          },
        },
        postgresTarget(() => ({
          server: latchPg,
          rateGuess: 2000,
          prepare: async (count) => {
            const tokens = mintLatch(latchPg, latchPgSetup, { kind: 'refresh', count, scope: ['offline_access', 'profile'] });
            return { next: (i) => (i < tokens.length ? formPost(latchPg, '/oauth2/token', credentials.latchPg, refreshBody(tokens[i])) : null), isOk: refreshOk };
          },
        })),
        {
          server: peer,
          rateGuess: 2000,
          prepare: async (count) => {
            const tokens = await mintPeer(peer, { kind: 'refresh', count, scope: 'offline_access profile', clientId: PEER_CLIENT.client_id });
            return { next: (i) => (i < tokens.length ? formPost(peer, '/oauth2/token', credentials.peer, refreshBody(tokens[i])) : null), isOk: refreshOk };
          },
        },
      ];
    };
    const refreshEntry = await scenario({
      id: 'g',
      title: 'refresh_token grant with rotation',
      notes: ['every refresh token fresh and presented once; scope offline_access profile (no id_token); HTTP Basic client authentication; the answer holds the rotated refresh token'],
      targets: refreshTargets(),
    });

    // (h) token introspection (RFC 7662): the client asks about one of its own live access tokens (a pool of
    // 1000, round robin, as in c), with HTTP Basic client authentication and token_type_hint=access_token.
    const introspectionOk = (response) => response.status === 200 && response.body.includes('"active":true');
    const introspectionTarget = (server, authorization, tokens) => ({
      server,
      prepare: async () => {
        const requests = (await valuesOf(tokens)).map((token) => formPost(server, '/oauth2/introspect', authorization, `token=${encodeURIComponent(token)}&token_type_hint=access_token`));
        return { next: (i) => requests[i % requests.length], isOk: introspectionOk };
      },
    });
    const introspectionEntry = await scenario({
      id: 'h',
      title: 'token introspection, a live access token',
      notes: ['the client introspects its own access tokens (a pool of 1000, round robin); scope openid profile; HTTP Basic client authentication'],
      targets: [
        introspectionTarget(latch, credentials.latch, wanted('h') ? mintLatch(latch, latchSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] }) : []),
        postgresTarget(() => introspectionTarget(latchPg, credentials.latchPg, wanted('h') ? mintLatch(latchPg, latchPgSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] }) : [])),
        introspectionTarget(peer, credentials.peer, perPeerProcess(() => mintPeer(peer, { kind: 'token', count: 1000, scope: 'openid profile', clientId: PEER_CLIENT.client_id }))),
      ],
    });

    // p99 at a fixed offered load: half of the peer's maximum, for (c), (d1), (g) and (h). The bare server runs at the
    // same rate beside Latch and the peer: its p99 is the floor this machine and load client set (timer and
    // scheduling jitter, two cores shared by client and server), below which no server's figure can go.
    let bareWarm = wanted('a');
    for (const entry of [userinfoEntry, exchangeEntry, refreshEntry, introspectionEntry]) {
      if (!entry || !entry.runs.peer?.rps) continue;
      const rate = Math.round(entry.runs.peer.rps.median / 2);
      const fixed = { id: entry.id, title: entry.title, ratePerSecond: rate, runs: {} };
      const targets = [...entry.targets, bareTarget];
      if (!bareWarm) {
        log(`  ${entry.id} at ${rate}/s bare: warm-up`);
        await entry.runOnce(bareTarget, WARMUP_MS, rate, { warmUp: true });
        bareWarm = true;
      }
      const peerTarget = entry.targets.find((t) => t.server === peer);
      if (peerTarget) {
        await freshPeer();
        log(`  ${entry.id} at ${rate}/s ${peer.name}: warm-up`);
        await entry.runOnce(peerTarget, WARMUP_MS, rate, { warmUp: true });
      }
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const order = repeat % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          const result = await entry.runOnce(target, DURATION_MS, rate);
          (fixed.runs[target.server.kind] ??= { results: [] }).results.push(result);
          log(`  ${entry.id} at ${rate}/s ${target.server.name} #${repeat + 1}: achieved ${result.rps.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}, client ${result.clientCpuPercent.toFixed(0)}%, others ${result.otherCpuPercent.toFixed(0)}% (${result.startedAt.slice(11, 19)}–${result.endedAt.slice(11, 19)})`);
        }
      }
      for (const run of Object.values(fixed.runs)) {
        run.rps = summarize(run.results.map((r) => r.rps));
        run.p50 = summarize(run.results.map((r) => r.p50));
        run.p99 = summarize(run.results.map((r) => r.p99));
        run.errors = run.results.reduce((sum, r) => sum + r.errors, 0);
      }
      results.fixedLoad.push(fixed);
    }

    // Latch --workers 2 against one process, on (c) and (d1)
    if ((env.BENCH_WORKERS ?? '1') !== '0' && (wanted('c') || wanted('d1'))) {
      if (!latchSupportsWorkers()) {
        results.notes.push('latch serve --workers is not in this build yet (it lands with the scale work): the one-process/two-worker comparison is left out');
      } else {
        const workersDir = join(workDir, 'latch-workers');
        const workersSetup = setUpLatchData(workersDir);
        const latch2 = await startLatch('Latch --workers 2', workersDir, { extraArgs: ['--workers', '2'] });
        latch2.kind = 'latch2';
        servers.push(latch2);
        results.workers = { scenarios: [] };
        const workerCredentials = basicAuthorization(workersSetup.clientId, workersSetup.clientSecret);
        const tokens = mintLatch(latch2, workersSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
        const definitions = [
          { id: 'c', target: userinfoTarget(latch2, tokens) },
          {
            id: 'd1',
            target: {
              server: latch2,
              rateGuess: 6000,
              prepare: async (count) => {
                const codes = mintLatch(latch2, workersSetup, { kind: 'code', count, scope: ['profile'] });
                return { next: (i) => (i < codes.length ? tokenRequest(latch2, workerCredentials, codes[i]) : null), isOk: exchangeOk };
              },
            },
          },
        ];
        for (const { id, target } of definitions) {
          const single = results.scenarios.find((s) => s.id === id);
          if (!single?.runs.latch?.rps) continue;
          await single.runOnce(target, WARMUP_MS, undefined, { warmUp: true });
          const runs = [];
          for (let repeat = 0; repeat < REPEATS; repeat++) {
            runs.push(await single.runOnce(target, DURATION_MS));
            log(`  ${id} Latch --workers 2 #${repeat + 1}: ${runs.at(-1).rps.toFixed(0)} req/s, p99 ${runs.at(-1).p99.toFixed(2)} ms, errors ${runs.at(-1).errors}`);
          }
          results.workers.scenarios.push({
            id,
            title: single.title,
            single: single.runs.latch.rps,
            workers: summarize(runs.map((r) => r.rps)),
            p99: summarize(runs.map((r) => r.p99)),
            errors: runs.reduce((sum, r) => sum + r.errors, 0),
          });
        }
      }
    }

    // Latch --workers 2 on PostgreSQL against one process on PostgreSQL, on (c) and (d1): a fresh database of its own.
    if ((env.BENCH_WORKERS ?? '1') !== '0' && (wanted('c') || wanted('d1')) && !postgresDatabase.skip && latchSupportsWorkers()) {
      const workersDatabase = await createBenchDatabase('workers');
      if (!workersDatabase.skip) {
        postgresDatabases.push(workersDatabase);
        const workersDir = join(workDir, 'latch-postgres-workers');
        const workersSetup = setUpLatchData(workersDir, ROOT, workersDatabase.databaseUrl);
        const latchPg2 = await startLatch('Latch on PostgreSQL --workers 2', workersDir, { extraArgs: ['--workers', '2'], databaseUrl: workersDatabase.databaseUrl });
        latchPg2.kind = 'latchpg2';
        latchPg2.postgres = workersDatabase.name;
        servers.push(latchPg2);
        results.postgresWorkers = { scenarios: [] };
        const workerCredentials = basicAuthorization(workersSetup.clientId, workersSetup.clientSecret);
        const tokens = mintLatch(latchPg2, workersSetup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
        const definitions = [
          { id: 'c', target: userinfoTarget(latchPg2, tokens) },
          {
            id: 'd1',
            target: {
              server: latchPg2,
              rateGuess: 3000,
              prepare: async (count) => {
                const codes = mintLatch(latchPg2, workersSetup, { kind: 'code', count, scope: ['profile'] });
                return { next: (i) => (i < codes.length ? tokenRequest(latchPg2, workerCredentials, codes[i]) : null), isOk: exchangeOk };
              },
            },
          },
        ];
        for (const { id, target } of definitions) {
          const single = results.scenarios.find((s) => s.id === id);
          if (!single?.runs.latchpg?.rps) continue;
          await single.runOnce(target, WARMUP_MS, undefined, { warmUp: true });
          const runs = [];
          for (let repeat = 0; repeat < REPEATS; repeat++) {
            runs.push(await single.runOnce(target, DURATION_MS));
            log(`  ${id} Latch on PostgreSQL --workers 2 #${repeat + 1}: ${runs.at(-1).rps.toFixed(0)} req/s, p99 ${runs.at(-1).p99.toFixed(2)} ms, errors ${runs.at(-1).errors}, PostgreSQL ${runs.at(-1).postgresCpuMsPerRequest.toFixed(3)} ms/req`);
          }
          results.postgresWorkers.scenarios.push({
            id,
            title: single.title,
            single: single.runs.latchpg.rps,
            workers: summarize(runs.map((r) => r.rps)),
            p99: summarize(runs.map((r) => r.p99)),
            cpuMsPerRequest: summarize(runs.map((r) => r.cpuMsPerRequest)),
            postgresCpuMsPerRequest: summarize(runs.map((r) => r.postgresCpuMsPerRequest)),
            errors: runs.reduce((sum, r) => sum + r.errors, 0),
          });
        }
      }
    }

    const machine = {
      date: startedAt.toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryBytes: os.totalmem(),
      loadAverageAtEnd: os.loadavg(),
      durationSeconds: DURATION_MS / 1000,
      warmupSeconds: WARMUP_MS / 1000,
      fixedLoadSettleSeconds: FIXED_LOAD_SETTLE_MS / 1000,
      repeats: REPEATS,
      connections: CONNECTIONS,
      virtualUsers: VIRTUAL_USERS,
      ceiling,
      peerVersion: JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', 'oidc-provider', 'package.json'), 'utf8')).version,
    };
    for (const entry of results.scenarios) {
      delete entry.runOnce;
      delete entry.targets;
    }
    const report = { machine, ...results };
    mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
    writeFileSync(join(BENCH_DIR, 'results', `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));
    process.stdout.write(`${renderTerminal(report)}\n`);
    if ((env.BENCH_WRITE_REPORT ?? '1') !== '0' && !ONLY_LATCH && !POSTGRES_ONLY) {
      const target = join(ROOT, 'BENCHMARKS.md');
      // The sections from "## Measured separately" on (and memory.mjs's) are not this run's: kept as they are.
      writeFileSync(target, rewriteBenchmarks(renderMarkdown(report), existsSync(target) ? readFileSync(target, 'utf8') : ''));
      log(`wrote ${join(ROOT, 'BENCHMARKS.md')}`);
    }
  } finally {
    for (const server of servers.reverse()) await stopProcess(server.child);
    for (const database of postgresDatabases ?? []) await database.drop?.();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
