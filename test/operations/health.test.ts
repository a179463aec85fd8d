/**
 * GET /healthz (the process is up) and GET /readyz (the database answers and the migrations are current):
 * what a load balancer or orchestrator reads before sending a process traffic.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStorage, storageOptionsFromConfig } from '../../src/storage/open-storage.js';
import { startTestServer } from '../helpers/test-server.js';

async function getJson(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json(), cacheControl: response.headers.get('cache-control') };
}

test('healthz and readyz answer 200 on a migrated, reachable database', async () => {
  const server = await startTestServer();
  try {
    const health = await getJson(`${server.baseUrl}/healthz`);
    assert.deepEqual(health, { status: 200, body: { status: 'ok' }, cacheControl: 'no-store' });
    const ready = await getJson(`${server.baseUrl}/readyz`);
    assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', migrations: 'current' } });
    assert.equal(ready.status, 200);
  } finally {
    await server.stop();
  }
});

test('readyz is 503 with migrations pending (serve --no-migrate before latch migrate), then 200 once they ran', async () => {
  const server = await startTestServer({ migrate: false });
  try {
    const before = await getJson(`${server.baseUrl}/readyz`);
    assert.equal(before.status, 503);
    assert.deepEqual(before.body, { status: 'not_ready', checks: { database: 'ok', migrations: 'pending' } });
    assert.equal((await getJson(`${server.baseUrl}/healthz`)).status, 200);

    const migrator = await openStorage(server.config.databaseUrl, storageOptionsFromConfig(server.config));
    await migrator.close();
    const after = await getJson(`${server.baseUrl}/readyz`);
    assert.equal(after.status, 200);
  } finally {
    await server.stop();
  }
});

test('readyz is 503 when the database is unreachable, while healthz stays 200', async () => {
  const server = await startTestServer({
    migrate: false,
    database: 'postgres-unreachable',
  });
  try {
    const ready = await getJson(`${server.baseUrl}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'not_ready', checks: { database: 'unreachable', migrations: 'unknown' } });
    assert.equal((await getJson(`${server.baseUrl}/healthz`)).status, 200);
  } finally {
    await server.stop();
  }
});

test('Latch starts with the longest request timeout its configuration allows (Node checks it against headersTimeout)', async () => {
  const server = await startTestServer({ env: { LATCH_REQUEST_TIMEOUT_SECONDS: '3600' } });
  try {
    assert.equal((await getJson(`${server.baseUrl}/healthz`)).status, 200);
  } finally {
    await server.stop();
  }
});
