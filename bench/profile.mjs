/**
 * `npm run profile -- c|d1|d2|d3|e|g|h [seconds]`: one scenario against Latch alone, with Latch under
 * `node --cpu-prof`, then a summary of where its time went. At saturation, or at a fixed offered load with
 * BENCH_RATE=<requests a second> (open loop, as the bench's fixed-load runs). The .cpuprofile is kept in bench/results/profiles/
 * (open it in Chrome DevTools or speedscope for the flame graph). BENCH_DATABASE=postgres runs Latch on a fresh database of
 * the local PostgreSQL instead of SQLite.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { buildRequest, runRequests, runVirtualUsers } from './lib/http-load.mjs';
import { authorizePath, fullFlow, pkcePair, walkToRedirectUri } from './lib/flows.mjs';
import { basicAuthorization, BENCH_DIR, codeExchanges, ensureLatchBuilt, HOST, mintLatch, setUpLatchData, startLatch } from './lib/latch.mjs';
import { cpuMilliseconds, stopProcess } from './lib/processes.mjs';
import { summarizeProfile } from './lib/profile-summary.mjs';
import { createBenchDatabase } from './lib/postgres.mjs';

const scenario = process.argv[2] ?? 'c';
const seconds = Number(process.argv[3] ?? process.env.BENCH_DURATION_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ratePerSecond = Number(process.env.BENCH_RATE ?? 0) || undefined;
const log = (message) => process.stderr.write(`${message}\n`);

ensureLatchBuilt(log);
const profileDir = join(BENCH_DIR, 'results', 'profiles');
mkdirSync(profileDir, { recursive: true });
const before = new Set(readdirSync(profileDir));
const workDir = mkdtempSync(join(os.tmpdir(), 'latch-profile-'));
// BENCH_DATABASE=postgres: Latch on a fresh database of the local PostgreSQL (lib/postgres.mjs), as the bench's PostgreSQL rows.
const database = process.env.BENCH_DATABASE === 'postgres' ? await createBenchDatabase('profile') : undefined;
if (database?.skip) throw new Error(`PostgreSQL: ${database.skip}`);
const setup = setUpLatchData(workDir, undefined, database?.databaseUrl);
const latch = await startLatch('Latch', workDir, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], databaseUrl: database?.databaseUrl });
try {
  const host = `${HOST}:${latch.port}`;
  let next;
  if (scenario === 'c') {
    const tokens = mintLatch(latch, setup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
    const requests = tokens.map((token) => buildRequest({ path: '/oauth2/userinfo', host, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }));
    next = (i) => requests[i % requests.length];
  } else if (scenario === 'd1' || scenario === 'd2' || scenario === 'd3') {
    const scope = scenario === 'd1' ? ['profile'] : ['openid', 'profile'];
    // (d3): the client registered for ES256 id_tokens; (d2): the default client, RS256.
    const client = scenario === 'd3' ? setup.es256 : setup;
    const codes = mintLatch(latch, client, { kind: 'code', count: Math.round(seconds * 14000), scope, nonce: scenario === 'd1' ? null : 'n' });
    const authorization = basicAuthorization(client.clientId, client.clientSecret);
    next = codeExchanges(codes, authorization, host);
  } else if (scenario === 'g') {
    // The refresh_token grant with rotation, every refresh token fresh and presented once (run.mjs's g).
    const tokens = mintLatch(latch, setup, { kind: 'refresh', count: Math.round(seconds * 10000), scope: ['offline_access', 'profile'] });
    const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
    next = (i) =>
      i < tokens.length
        ? buildRequest({ method: 'POST', path: '/oauth2/token', host, headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=refresh_token&refresh_token=${tokens[i]}` })
        : null;
  } else if (scenario === 'h') {
    // Introspection of the client's own live access tokens, a pool of 1000 round robin (run.mjs's h).
    const tokens = mintLatch(latch, setup, { kind: 'token', count: 1000, scope: ['openid', 'profile'] });
    const authorization = basicAuthorization(setup.clientId, setup.clientSecret);
    const requests = tokens.map((token) =>
      buildRequest({ method: 'POST', path: '/oauth2/introspect', host, headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${token}&token_type_hint=access_token` }),
    );
    next = (i) => requests[i % requests.length];
  } else if (scenario !== 'e') {
    throw new Error(`unknown scenario ${scenario}; use c, d1, d2, d3, e, g or h`);
  }
  const cpuBefore = cpuMilliseconds(latch.pid);
  // (e): the full flow with 8 virtual users, signed in and consented before the clock starts (run.mjs's e).
  const result =
    scenario === 'e'
      ? await runVirtualUsers({
          host: HOST,
          port: latch.port,
          users: 8,
          durationMs: seconds * 1000,
          setup: (agent) => walkToRedirectUri(agent, authorizePath(setup.es256.clientId, pkcePair(), 'openid profile')),
          flow: (agent) => fullFlow(agent, setup.es256, 'openid profile'),
        })
      : await runRequests({ host: HOST, port: latch.port, connections, durationMs: seconds * 1000, next, ratePerSecond });
  const cpuMs = cpuMilliseconds(latch.pid) - cpuBefore;
  log(`${scenario}${ratePerSecond ? ` at ${ratePerSecond}/s` : ''}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}${result.errorSamples[0] ? ` (${result.errorSamples[0]})` : ''}, ${(cpuMs / result.requests).toFixed(3)} ms CPU/request${result.exhausted ? ' (code pool ran out)' : ''}`);
} finally {
  await stopProcess(latch.child);
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
}
const written = readdirSync(profileDir).filter((name) => !before.has(name) && name.endsWith('.cpuprofile'));
for (const name of written) process.stdout.write(`${summarizeProfile(join(profileDir, name), 25)}\n`);
