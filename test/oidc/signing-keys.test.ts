import assert from 'node:assert/strict';
import { after, afterEach, describe, mock, test } from 'node:test';
import { createKeyEncryption, KeyDecryptionError } from '../../src/crypto/key-encryption.js';
import { SigningKeyStartupError } from '../../src/keys/signing-key-cache.js';
import { openStorage, storageOptionsFromConfig } from '../../src/storage/open-storage.js';
import { runLatchCli } from '../helpers/cli.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/test-server.js';

async function jwksKids(server: TestServer, alg?: string): Promise<string[]> {
  const { keys } = await (await fetch(`${server.baseUrl}/oauth2/jwks`)).json();
  return keys.filter((k: any) => alg === undefined || k.alg === alg).map((k: any) => k.kid);
}

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';

/** Options that start another process on the same database (SQLite file or PostgreSQL schema). */
function sameDatabaseAs(server: TestServer): TestServerOptions {
  return { dataDir: server.dataDir, ...(server.config.databaseSchema && { postgresSchema: server.config.databaseSchema }) };
}

/** The environment of an operator running the CLI against the same database. */
function cliEnv(server: TestServer): Record<string, string> {
  return {
    LATCH_DATABASE_URL: server.config.databaseUrl,
    ...(server.config.databaseSchema && { LATCH_DATABASE_SCHEMA: server.config.databaseSchema }),
    LATCH_SECRET: SECRET,
  };
}

describe('signing keys at rest', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers.reverse()) await s.stop();
  });

  test('are generated on first start, stored encrypted, and reused after a restart', async () => {
    const first = await startTestServer({ env: { LATCH_SECRET: SECRET }, signingKeys: 'generated' });
    assert.equal((await first.storage.signingKeys.listAll()).length, 3, 'one key per algorithm, generated at the start');
    const kids = await jwksKids(first);
    assert.equal(kids.length, 3);
    const rows = await first.storage.signingKeys.listAll();
    assert.deepEqual(rows.map((r) => r.kid).sort(), [...kids].sort());
    for (const row of rows) {
      // The stored private part is AES-GCM ciphertext: no JWK member of it is readable.
      assert.match(row.privateJwkEncrypted, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.ok(!row.privateJwkEncrypted.includes('"d"'));
      assert.equal((row.publicJwk as any).d, undefined);
      const privateJwk = JSON.parse(createKeyEncryption(SECRET).decrypt(row.privateJwkEncrypted, row.kid));
      assert.ok(typeof privateJwk.d === 'string', 'decrypts to the private JWK with the right secret');
      // The kid is bound as associated data: a ciphertext moved to another row does not decrypt.
      assert.throws(() => createKeyEncryption(SECRET).decrypt(row.privateJwkEncrypted, 'another-kid'), KeyDecryptionError);
    }
    await first.stop({ keepData: true });

    const restarted = await startTestServer({ ...sameDatabaseAs(first), env: { LATCH_SECRET: SECRET } });
    servers.push(restarted);
    assert.deepEqual((await jwksKids(restarted)).sort(), [...kids].sort());
  });

  test('a process with another LATCH_SECRET refuses to start instead of serving unusable keys', async () => {
    const owner = await startTestServer({ env: { LATCH_SECRET: SECRET } });
    servers.push(owner);
    await assert.rejects(
      startTestServer({ ...sameDatabaseAs(owner), env: { LATCH_SECRET: 'a-different-secret-that-is-long-enough-987654' } }),
      (error: unknown) => error instanceof SigningKeyStartupError && /LATCH_SECRET/.test(error.message),
    );
  });

  test('a process started before the migrations (serve --no-migrate) generates and loads its keys on first use', async () => {
    const server = await startTestServer({ migrate: false });
    servers.push(server);
    assert.equal(server.signingKeys.isLoaded, false);
    const early = await fetch(`${server.baseUrl}/oauth2/jwks`);
    assert.equal(early.status, 503);
    assert.equal((await early.json()).error, 'temporarily_unavailable');

    const migrator = await openStorage(server.config.databaseUrl, storageOptionsFromConfig(server.config));
    await migrator.close();
    assert.equal((await jwksKids(server)).length, 3);
    assert.equal(server.signingKeys.isLoaded, true);
  });

  test('are held in memory: JWKS and signing keep working without reading keys from the database per request', async () => {
    const server = await startTestServer();
    servers.push(server);
    const kids = await jwksKids(server);
    // Take the rows away behind the running process: a per-request read would now find nothing.
    for (const key of await server.storage.signingKeys.listAll()) await server.storage.signingKeys.retireNow(key.kid, new Date(0));
    await server.storage.signingKeys.deleteRetired(new Date());
    assert.equal((await server.storage.signingKeys.listAll()).length, 0);
    assert.deepEqual(await jwksKids(server), kids);
    assert.ok(kids.includes(server.signingKeys.signingKey('RS256').kid));
  });
});

describe('key rotation across processes', () => {
  let a: TestServer;
  let b: TestServer;
  afterEach(() => mock.timers.reset());
  after(async () => {
    await b?.stop({ keepData: true });
    await a?.stop();
  });

  test('latch keys rotate publishes the new key before it signs, and retires the old one after its tokens expire', async () => {
    a = await startTestServer({ env: { LATCH_SECRET: SECRET } });
    b = await startTestServer({ ...sameDatabaseAs(a), env: { LATCH_SECRET: SECRET } });
    const [oldKid] = await jwksKids(a, 'RS256');
    assert.ok(oldKid);
    assert.deepEqual(await jwksKids(b, 'RS256'), [oldKid], 'the second process reuses the keys of the first');

    const cli = await runLatchCli(['keys', 'rotate', '--alg', 'RS256', '--lead-seconds', '600', '--json'], cliEnv(a));
    assert.equal(cli.code, 0, cli.stderr);
    const [rotation] = JSON.parse(cli.stdout);
    const newKid: string = rotation.kid;
    assert.deepEqual(rotation.replaces, [oldKid]);
    assert.equal(rotation.state, 'pending');
    const retiresAt = Date.parse(rotation.replaced_keys_retire_at);
    const activatesAt = Date.parse(rotation.activates_at);
    // Retirement waits for the last token of the old key: refresh interval + id_token lifetime + skew after the switch.
    assert.equal(retiresAt - activatesAt, (60 + 3600 + 60) * 1000);

    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    for (const server of [a, b]) {
      await server.signingKeys.refresh();
      assert.deepEqual((await jwksKids(server, 'RS256')).sort(), [oldKid, newKid].sort(), 'published before it signs');
      assert.equal(server.signingKeys.signingKey('RS256').kid, oldKid, 'the old key signs during the lead time');
    }

    mock.timers.setTime(activatesAt + 1000);
    for (const server of [a, b]) {
      assert.equal(server.signingKeys.signingKey('RS256').kid, newKid, 'every process switches at the activation time');
      assert.deepEqual((await jwksKids(server, 'RS256')).sort(), [oldKid, newKid].sort(), 'the old key stays published');
      assert.ok(server.signingKeys.verificationKey(oldKid));
    }

    mock.timers.setTime(retiresAt + 1000);
    for (const server of [a, b]) {
      await server.signingKeys.refresh();
      assert.deepEqual(await jwksKids(server, 'RS256'), [newKid], 'retired after every token it signed has expired');
      assert.equal(server.signingKeys.verificationKey(oldKid), undefined);
    }

    const list = await runLatchCli(['keys', 'list', '--json'], cliEnv(a));
    const states = Object.fromEntries(JSON.parse(list.stdout).map((k: any) => [k.kid, k.state]));
    // The command runs in this process (helpers/cli.ts), on the same moved clock as the servers: it sees the rotation done.
    assert.equal(states[oldKid], 'retired');
    assert.equal(states[newKid], 'active');
  });

  test('latch keys retire refuses to leave an algorithm without a key that can sign', async () => {
    const env = cliEnv(a);
    const [esKid] = await jwksKids(a, 'ES256');
    const refused = await runLatchCli(['keys', 'retire', esKid!], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /rotate/);

    assert.equal((await runLatchCli(['keys', 'rotate', '--alg', 'ES256', '--lead-seconds', '0'], env)).code, 0);
    const retired = await runLatchCli(['keys', 'retire', esKid!], env);
    assert.equal(retired.code, 0, retired.stderr);
    await a.signingKeys.refresh();
    const published = await jwksKids(a, 'ES256');
    assert.equal(published.length, 1);
    assert.ok(!published.includes(esKid!), 'a retired key leaves the JWKS at once');
    assert.notEqual(a.signingKeys.signingKey('ES256').kid, esKid);
  });

  test('latch keys retire takes a KID that starts with "-" as a KID (one thumbprint in 64 does), with or without --', async () => {
    const env = cliEnv(a);
    for (const args of [['-RNoSuchKid'], ['--', '-RNoSuchKid']]) {
      const result = await runLatchCli(['keys', 'retire', ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /-RNoSuchKid/);
      assert.doesNotMatch(result.stderr, /Unknown option/);
    }
    const usage = await runLatchCli(['keys', 'retire'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /needs one KID/);
  });
});
