/**
 * A real Latch for tests: a fresh SQLite file in a temporary folder, the real app listening on a free port
 * (its issuer http://127.0.0.1:<port>, fixed before the app is built), and helpers to seed users and clients through the same code the CLI uses.
 *
 * With `LATCH_TEST_DATABASE=postgres` (or `database: 'postgres'`) the server runs on PostgreSQL instead, in a
 * schema created for it and dropped when it stops (test/helpers/postgres.ts), so the same tests cover both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUserAccount } from '../../src/accounts/user-accounts.js';
import { registerClient } from '../../src/clients/client-registration.js';
import { buildLoggerOptions } from '../../src/app.js';
import { countDoubleSends } from '../../src/http/batched-writes.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createKeyEncryption } from '../../src/crypto/key-encryption.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../src/crypto/signing-algorithms.js';
import { generateSigningKeyMaterial, sealSigningKey, type SigningKeyMaterial } from '../../src/keys/signing-keys.js';
import { openStorage, storageOptionsFromConfig } from '../../src/storage/open-storage.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { User } from '../../src/storage/storage.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason } from './postgres.js';

export interface TestServer extends RunningServer {
  baseUrl: string;
  config: Config;
  dataDir: string;
  createUser(overrides?: Partial<{ email: string; name: string; password: string; avatarUrl: string | null; emailVerified: boolean }>): Promise<{ user: User; password: string }>;
  createClient(
    overrides?: Partial<{ name: string; redirectUris: string[]; idTokenSignedResponseAlg: SigningAlgorithm }>,
  ): Promise<{ clientId: string; clientSecret: string; redirectUris: string[]; name: string }>;
  /** The JSON log lines written so far (only with `captureLog`). */
  logLines(): Array<Record<string, any>>;
  /** Stops the server and removes its data (unless keepData). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

let userCounter = 0;

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Reuse an existing data folder (restart tests). */
  dataDir?: string;
  /** Keep the log lines (level info, with the production serializers and redaction) for `logLines()`. */
  captureLog?: boolean;
  /**
   * Which database to run on; default from `LATCH_TEST_DATABASE` (`sqlite` or `postgres`), else SQLite.
   * `postgres-unreachable` points at a port where nothing listens (with `migrate: false`), for outage tests.
   */
  database?: 'sqlite' | 'postgres' | 'postgres-unreachable';
  /** Run migrations at start (default true), as `latch serve` does unless `--no-migrate`. */
  migrate?: boolean;
  /** On PostgreSQL: use this existing schema (kept at stop) instead of a fresh one. */
  postgresSchema?: string;
  /**
   * The issuer's host, with the port chosen here (default 127.0.0.1): `localhost` for WebAuthn, which refuses an IP
   * address as relying-party id. Better than naming a PORT, which cannot be chosen again when another process takes it.
   */
  issuerHost?: string;
  /**
   * The signing keys of a fresh database. 'reused' (the default): before the start, this process's one key per
   * algorithm is put in, sealed under this server's LATCH_SECRET, as if Latch had generated it; new RSA primes cost
   * about 150 ms of CPU, and the suite starts a few hundred servers. 'generated': Latch generates its own at first
   * start, as in production (test/oidc/signing-keys.test.ts tests that).
   */
  signingKeys?: 'reused' | 'generated';
}

/** One key pair per algorithm for every server of this process (see `signingKeys`). */
const reusedKeyMaterial = new Map<SigningAlgorithm, Promise<SigningKeyMaterial>>();

async function putReusedSigningKeys(config: Config): Promise<void> {
  const storage = await openStorage(config.databaseUrl, { ...storageOptionsFromConfig(config), migrate: true });
  try {
    const encryption = createKeyEncryption(config.secret);
    const now = new Date();
    for (const alg of SIGNING_ALGORITHMS) {
      let material = reusedKeyMaterial.get(alg);
      if (!material) reusedKeyMaterial.set(alg, (material = generateSigningKeyMaterial(alg)));
      await storage.signingKeys.insert(sealSigningKey(await material, encryption, now, now));
    }
  } finally {
    await storage.close();
  }
}

/** The database the tests run on, from `LATCH_TEST_DATABASE`. */
export function testDatabaseKind(): 'sqlite' | 'postgres' {
  const kind = process.env.LATCH_TEST_DATABASE || 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`LATCH_TEST_DATABASE must be sqlite or postgres (got "${kind}")`);
  return kind;
}

async function databaseEnv(options: TestServerOptions, dataDir: string): Promise<{ env: Record<string, string>; dropSchema?: () => Promise<void> }> {
  const kind = options.database ?? testDatabaseKind();
  if (kind === 'sqlite') return { env: { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}` } };
  if (kind === 'postgres-unreachable') {
    return { env: { LATCH_DATABASE_URL: 'postgres://latch@127.0.0.1:9/latch', LATCH_SECRET: 'test-secret-shared-by-every-latch-process-0123456789' } };
  }
  const unavailable = await postgresUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const schema = options.postgresSchema ? undefined : await createTestSchema();
  return {
    env: {
      LATCH_DATABASE_URL: POSTGRES_TEST_URL,
      LATCH_DATABASE_SCHEMA: options.postgresSchema ?? schema!.name,
      LATCH_SECRET: 'test-secret-shared-by-every-latch-process-0123456789',
    },
    dropSchema: schema?.drop,
  };
}

/** A port that was free a moment ago, so that the issuer (which names it) is known before the app is built. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Another process may take the chosen port before Latch listens on it: then a new one is chosen. */
const PORT_ATTEMPTS = 5;

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'latch-test-'));
  const database = await databaseEnv(options, dataDir);
  const captured: string[] = [];
  // The count is per process, and a test process runs many files (scripts/run-tests.mjs): what this server's stop
  // checks is the double sends since it started, so that one bug fails its own file, not every file after it.
  const doubleSendsBefore = countDoubleSends();
  const fresh = options.dataDir === undefined && options.postgresSchema === undefined && (options.migrate ?? true) && options.database !== 'postgres-unreachable';
  if (fresh && (options.signingKeys ?? 'reused') === 'reused') {
    // The port is not known yet; nothing storage needs depends on it.
    await putReusedSigningKeys(loadConfig({ ...database.env, PORT: '0', HOST: '127.0.0.1', LATCH_LOG_LEVEL: 'silent', ...options.env }));
  }
  let started: { config: Config; server: RunningServer } | undefined;
  for (let attempt = 1; !started; attempt += 1) {
    const port = options.env?.PORT ?? String(await freePort());
    // Tests use the listening URL as the issuer, unless they set one.
    const config = loadConfig({
      ...database.env,
      PORT: port,
      HOST: '127.0.0.1',
      LATCH_ISSUER: `http://${options.issuerHost ?? '127.0.0.1'}:${port}`,
      LATCH_LOG_LEVEL: process.env.LATCH_LOG_LEVEL ?? 'silent',
      ...options.env,
    });
    const logger = options.captureLog
      ? { ...(buildLoggerOptions({ ...config, logLevel: 'info' }) as object), stream: { write: (line: string) => void captured.push(line) } }
      : undefined;
    try {
      started = { config, server: await startServer(config, { logger, migrate: options.migrate ?? true }) };
    } catch (error) {
      const portTaken = (error as { code?: unknown }).code === 'EADDRINUSE';
      if (!portTaken || options.env?.PORT !== undefined || attempt === PORT_ATTEMPTS) throw error;
      captured.length = 0;
    }
  }
  const { config, server } = started;
  const baseUrl = server.url.replace('[::1]', '127.0.0.1');
  return {
    ...server,
    baseUrl,
    config,
    dataDir,
    async createUser(overrides = {}) {
      userCounter += 1;
      const password = overrides.password ?? `correct horse battery ${userCounter}`;
      const user = await createUserAccount(server.storage, {
        email: overrides.email ?? `user${userCounter}-${Date.now()}@example.com`,
        name: overrides.name ?? `Test User ${userCounter}`,
        avatarUrl: overrides.avatarUrl === undefined ? 'https://images.example.com/avatar.png' : overrides.avatarUrl,
        password,
        emailVerified: overrides.emailVerified ?? true,
      });
      return { user, password };
    },
    async createClient(overrides = {}) {
      const redirectUris = overrides.redirectUris ?? ['http://127.0.0.1:9999/callback'];
      const { client, clientSecret } = await registerClient(
        server.storage,
        { name: overrides.name ?? 'Test App', redirectUris, ...(overrides.idTokenSignedResponseAlg && { idTokenSignedResponseAlg: overrides.idTokenSignedResponseAlg }) },
        { developmentMode: false },
      );
      return { clientId: client.clientId, clientSecret, redirectUris: client.redirectUris, name: client.name };
    },
    logLines() {
      return captured.map((line) => JSON.parse(line) as Record<string, any>);
    },
    async stop(stopOptions = {}) {
      await server.close();
      // A route that sent a response without returning the reply (http/batched-writes.ts) fails its test file.
      const doubleSends = countDoubleSends() - doubleSendsBefore;
      if (doubleSends > 0) throw new Error(`${doubleSends} response(s) were sent twice: an async handler sent without returning reply`);
      if (!stopOptions.keepData) {
        rmSync(dataDir, { recursive: true, force: true });
        await database.dropSchema?.();
      }
    },
  };
}
