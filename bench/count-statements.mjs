/**
 * Statements per request on PostgreSQL (issue 15): Latch on a fresh database with `log_statement = all` set
 * on it, 20 sequential userinfo calls, code exchanges, refreshes and full flows, each section's statements counted from
 * the server's log (COUNT_LOG, default the Debian path; the log must be readable and name the database, as
 * the default log_line_prefix does).
 *
 *   node count-statements.mjs
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createBenchDatabase } from './lib/postgres.mjs';
import { setUpLatchData, startLatch, mintLatch, basicAuthorization, REDIRECT_URI, ROOT } from './lib/latch.mjs';
import { stopProcess } from './lib/processes.mjs';
import { Connection, headerValues, buildRequest } from './lib/http-load.mjs';
import { authorizePath, fullFlow, pkcePair, walkToRedirectUri } from './lib/flows.mjs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
const pg = createRequire(join(ROOT, 'package.json'))('pg');
const LOG = process.env.COUNT_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const db = await createBenchDatabase('count');
const dir = join(tmpdir(), `latch-count-${Date.now()}`);
const setup = setUpLatchData(dir, ROOT, db.databaseUrl);
const c = new pg.Client({ connectionString: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
await c.connect();
await c.query(`alter database ${db.name} set log_statement = 'all'`);
const latch = await startLatch('count', dir, { databaseUrl: db.databaseUrl });
const auth = basicAuthorization(setup.clientId, setup.clientSecret);
const base = `http://127.0.0.1:${latch.port}`;
async function section(label, fn, n = 20) {
  await new Promise((r) => setTimeout(r, 300));
  const start = statSync(LOG).size;
  for (let i = 0; i < n; i++) await fn(i);
  await new Promise((r) => setTimeout(r, 300));
  const text = readFileSync(LOG, 'utf8').slice(start);
  const lines = text.split('\n').filter((l) => l.includes(`@${db.name} `) && /(statement|execute [^:]*|parse [^:]*|bind [^:]*):/.test(l));
  const kinds = {};
  for (const l of lines) {
    const m = /(LOG|DETAIL):\s+(statement|execute [^:]*|parse [^:]*|bind [^:]*):\s*(.{0,60})/.exec(l);
    if (!m) continue;
    const k = `${m[2].replace(/<unnamed>|latch_\d+/, 'S')} ${m[3].replace(/\s+/g, ' ')}`;
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  console.log(`\n${label}: ${lines.length / n} logged statements per request`);
  for (const [k, v] of Object.entries(kinds).sort((a, b) => b[1] - a[1])) console.log(`  ${(v / n).toFixed(2)}  ${k}`);
}
const tokens = mintLatch(latch, setup, { kind: 'token', count: 40, scope: ['openid', 'profile'] });
const codes = mintLatch(latch, setup, { kind: 'code', count: 40, scope: ['profile'] });
const refresh = mintLatch(latch, setup, { kind: 'refresh', count: 40, scope: ['offline_access', 'profile'] });
const post = (body) => fetch(`${base}/oauth2/token`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body }).then(async (r) => { if (r.status !== 200) throw new Error(await r.text()); });
await section('userinfo (c)', (i) => fetch(`${base}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens[i]}` } }).then((r) => r.text()));
await section('code exchange (d1)', (i) => post(`grant_type=authorization_code&code=${codes[i]}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`));
await section('refresh (g)', (i) => post(`grant_type=refresh_token&refresh_token=${encodeURIComponent(refresh[i])}`));
// The full flow (e) as one virtual user of run.mjs walks it: signed in and consented before the count.
const connection = new Connection('127.0.0.1', latch.port);
await connection.connect();
const agent = { cookies: new Map(), state: {} };
agent.send = async (request) => {
  const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await connection.request(buildRequest({ ...request, host: `127.0.0.1:${latch.port}`, headers: { ...request.headers, ...(cookie && { Cookie: cookie }) } }));
  for (const setCookie of headerValues(response.headerText, 'set-cookie')) {
    const pair = setCookie.split(';', 1)[0];
    const eq = pair.indexOf('=');
    agent.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return response;
};
await walkToRedirectUri(agent, authorizePath(setup.es256.clientId, pkcePair(), 'openid profile'));
await section('full flow (e): authorize, exchange with an ES256 id_token, userinfo', () => fullFlow(agent, setup.es256, 'openid profile'));
connection.close();
await stopProcess(latch.child);
await c.end();
await db.drop();
rmSync(dir, { recursive: true, force: true });
