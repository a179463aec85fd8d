/**
 * Graceful shutdown of a real `latch serve` process: on SIGTERM it stops taking connections, finishes the
 * requests in flight, and exits 0; a request that never finishes does not hold it past
 * LATCH_SHUTDOWN_TIMEOUT_SECONDS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startLatchProcess } from '../helpers/latch-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'latch-shutdown-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Opens a connection and sends a token request whose body is cut short: the request stays in flight. */
async function startSlowTokenRequest(baseUrl: string, body: string, sentBytes: number): Promise<{ socket: Socket; response: Promise<string> }> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  const response = new Promise<string>((resolve) => {
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  socket.write(
    `POST /oauth2/token HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, sentBytes)}`,
  );
  return { socket, response };
}

async function waitForLog(process: { output(): string }, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 200 && !pattern.test(process.output()); i++) await new Promise((r) => setTimeout(r, 25));
  assert.match(process.output(), pattern);
}

test('SIGTERM lets a request in flight finish with a full response, refuses new connections, and exits 0', async () => {
  const latch = await startLatchProcess({ env: { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'a.db')}` } });
  try {
    const body = 'grant_type=authorization_code&code=abc&client_id=nobody&client_secret=wrong';
    const { socket, response } = await startSlowTokenRequest(latch.baseUrl, body, 10);
    // The server has the request once it answers another one on a second connection.
    assert.equal((await fetch(`${latch.baseUrl}/healthz`)).status, 200);

    latch.child.kill('SIGTERM');
    await waitForLog(latch, /SIGTERM received/);
    await assert.rejects(fetch(`${latch.baseUrl}/healthz`, { headers: { connection: 'close' } }), 'new connections are refused');

    socket.end(body.slice(10));
    const raw = await response;
    assert.match(raw, /^HTTP\/1\.1 401 /, raw);
    assert.match(raw, /"error":"invalid_client"/);
    assert.deepEqual(await latch.exited, { code: 0, signal: null });
  } finally {
    await latch.stop('SIGKILL');
  }
});

test('a request that never completes does not hold shutdown past LATCH_SHUTDOWN_TIMEOUT_SECONDS', async () => {
  const latch = await startLatchProcess({ env: { LATCH_DATABASE_URL: `sqlite:${join(dataDir, 'b.db')}`, LATCH_SHUTDOWN_TIMEOUT_SECONDS: '1' } });
  try {
    const { response } = await startSlowTokenRequest(latch.baseUrl, 'grant_type=authorization_code&code=abc', 5);
    assert.equal((await fetch(`${latch.baseUrl}/healthz`)).status, 200);
    latch.child.kill('SIGTERM');
    const exit = await latch.exited;
    assert.equal(exit.code, 0);
    assert.match(latch.output(), /still in flight after 1 s/);
    assert.doesNotMatch(await response, /^HTTP\/1\.1 200/);
  } finally {
    await latch.stop('SIGKILL');
  }
});
