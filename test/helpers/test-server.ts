/**
 * A real Latch for tests: a fresh SQLite file in a temporary folder, the real app listening on an ephemeral
 * port, and helpers to seed users and clients through the same code the CLI uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUserAccount } from '../../src/accounts/user-accounts.js';
import { registerClient } from '../../src/clients/client-registration.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { User } from '../../src/storage/storage.js';

export interface TestServer extends RunningServer {
  baseUrl: string;
  config: Config;
  dataDir: string;
  createUser(overrides?: Partial<{ email: string; name: string; password: string; avatarUrl: string | null; emailVerified: boolean }>): Promise<{ user: User; password: string }>;
  createClient(overrides?: Partial<{ name: string; redirectUris: string[] }>): Promise<{ clientId: string; clientSecret: string; redirectUris: string[]; name: string }>;
  /** Stops the server and removes its data (unless keepData). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

let userCounter = 0;

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Reuse an existing data folder (restart tests). */
  dataDir?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'latch-test-'));
  const config = loadConfig({
    LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'latch.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    LATCH_LOG_LEVEL: process.env.LATCH_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const server = await startServer(config);
  const baseUrl = server.url.replace('[::1]', '127.0.0.1');
  // The issuer is only known once the port is: tests use the listening URL as the issuer.
  if (!options.env?.LATCH_ISSUER) config.issuer = baseUrl;
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
      const { client, clientSecret } = await registerClient(server.storage, { name: overrides.name ?? 'Test App', redirectUris }, { developmentMode: false });
      return { clientId: client.clientId, clientSecret, redirectUris: client.redirectUris, name: client.name };
    },
    async stop(stopOptions = {}) {
      await server.close();
      if (!stopOptions.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
