/**
 * Latch as the bench runs it: the real `latch` command on a fresh SQLite data folder with the shipped
 * settings, set up through its CLI, and codes/tokens minted through its store API (latch-mint.mjs).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRequest } from './http-load.mjs';
import { freePort, trackChild, waitUntil } from './processes.mjs';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(BENCH_DIR, '..');
export const HOST = '127.0.0.1';
export const REDIRECT_URI = 'http://127.0.0.1:9999/callback';
export const USER_PASSWORD = 'bench correct horse battery staple';
export const USER_EMAIL = 'bench@example.com';
/** PostgreSQL needs LATCH_SECRET shared by every process on a database (the server, its CLI, the mint script): one per bench run. */
const POSTGRES_SECRET = randomBytes(32).toString('base64url');
const secretFor = (databaseUrl) => (/^postgres(ql)?:/.test(databaseUrl) ? { LATCH_SECRET: POSTGRES_SECRET } : {});

export function ensureLatchBuilt(log) {
  if (existsSync(join(ROOT, 'dist', 'bundle', 'main.js'))) return;
  log('dist/ is missing: building Latch first');
  if (!existsSync(join(ROOT, 'node_modules'))) execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  else execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

export function latchCli(args, dataEnv, input, root = ROOT) {
  const output = execFileSync(process.execPath, [join(root, 'bin', 'latch.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...dataEnv, LATCH_LOG_LEVEL: 'silent' },
    input,
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

/**
 * A fresh data folder with one user and one client, made through the CLI (of the checkout at `root`), on the
 * folder's SQLite file or on `databaseUrl` (a fresh PostgreSQL database, lib/postgres.mjs).
 */
export function setUpLatchData(dataDir, root = ROOT, databaseUrl = undefined) {
  mkdirSync(dataDir, { recursive: true });
  const dataEnv = { LATCH_DATABASE_URL: databaseUrl ?? `sqlite:${join(dataDir, 'latch.db')}`, ...secretFor(databaseUrl ?? '') };
  // The CLI migrates a fresh database on its first write; PostgreSQL needs `latch migrate` first.
  if (databaseUrl) execFileSync(process.execPath, [join(root, 'bin', 'latch.js'), 'migrate'], { cwd: root, env: { ...process.env, ...dataEnv, LATCH_LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  const user = latchCli(['user', 'create', '--email', USER_EMAIL, '--name', 'Bench User', '--avatar-url', 'https://images.example.com/avatar.png', '--password-stdin', '--json'], dataEnv, `${USER_PASSWORD}\n`, root);
  const client = latchCli(['client', 'create', '--name', 'Bench App', '--redirect-uri', REDIRECT_URI, '--json'], dataEnv, undefined, root);
  // The same client registered for ES256 id_tokens (scenario d3), where this build has per-client algorithms.
  let es256 = null;
  try {
    const created = latchCli(['client', 'create', '--name', 'Bench App ES256', '--redirect-uri', REDIRECT_URI, '--id-token-alg', 'ES256', '--json'], dataEnv, undefined, root);
    es256 = { userId: user.id, clientId: created.client_id, clientSecret: created.client_secret };
  } catch {
    // No --id-token-alg in this build.
  }
  return { userId: user.id, clientId: client.client_id, clientSecret: client.client_secret, es256, databaseUrl: dataEnv.LATCH_DATABASE_URL };
}

/** Whether the built Latch knows `serve --workers` (landed with the scale work). */
export function latchSupportsWorkers() {
  try {
    return ['main.js', 'serve.js'].some((file) => existsSync(join(ROOT, 'dist', 'cli', file)) && readFileSync(join(ROOT, 'dist', 'cli', file), 'utf8').includes('--workers'));
  } catch {
    return false;
  }
}

/**
 * Starts `latch serve` on `dataDir` with the shipped settings (nothing turned off; its log, level info,
 * goes to /dev/null). `nodeArgs` go to node (e.g. --cpu-prof), `extraArgs` to `latch serve`; `root` is the
 * Latch checkout to run (compare.mjs runs several builds side by side); `databaseUrl` a PostgreSQL database
 * instead of the folder's SQLite file (with the shipped pool settings: nothing about the pool is set here).
 */
export async function startLatch(name, dataDir, { extraArgs = [], nodeArgs = [], env = {}, root = ROOT, databaseUrl: postgresUrl = undefined } = {}) {
  const port = await freePort();
  const databaseUrl = postgresUrl ?? `sqlite:${join(dataDir, 'latch.db')}`;
  const serverEnv = { ...process.env, ...secretFor(databaseUrl), LATCH_DATABASE_URL: databaseUrl, PORT: String(port), HOST, LATCH_ISSUER: `http://${HOST}:${port}`, ...env };
  const child = trackChild(spawn(process.execPath, [...nodeArgs, join(root, 'bin', 'latch.js'), 'serve', ...extraArgs], { cwd: root, env: serverEnv, stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-10_000);
  });
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`Latch exited: ${stderr}`);
      const response = await fetch(`http://${HOST}:${port}/oauth2/userinfo`);
      await response.arrayBuffer();
      return response.status === 401;
    },
    30_000,
    name,
  );
  return { name, kind: 'latch', child, pid: child.pid, port, databaseUrl, dataDir, root };
}

/**
 * Codes or access tokens through Latch's store API, as its endpoints store them: with the mint script and
 * build of the checkout that serves them (compare.mjs runs builds whose schemas may differ).
 */
export function mintLatch(target, setup, { kind, count, scope, nonce = null }) {
  const out = join(target.dataDir, `minted-${kind}-${process.hrtime.bigint()}.txt`);
  const benchDir = target.root ? join(target.root, 'bench') : BENCH_DIR;
  execFileSync(
    process.execPath,
    [join(benchDir, 'latch-mint.mjs'), JSON.stringify({ databaseUrl: target.databaseUrl, kind, count, clientId: setup.clientId, userId: setup.userId, scope, redirectUri: REDIRECT_URI, nonce, out })],
    { cwd: benchDir, env: { ...process.env, ...secretFor(target.databaseUrl), LATCH_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const secrets = readFileSync(out, 'utf8').trim().split('\n');
  rmSync(out);
  return secrets;
}

export function basicAuthorization(clientId, clientSecret) {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

/** The load's next(i) for code exchanges: request i exchanges codes[i] with HTTP Basic credentials; null when they run out. */
export function codeExchanges(codes, authorization, host) {
  return (i) =>
    i < codes.length
      ? buildRequest({
          method: 'POST',
          path: '/oauth2/token',
          host,
          headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `grant_type=authorization_code&code=${codes[i]}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
        })
      : null;
}
