/**
 * Fault suite, scenario 5 (reliability issue, item 8): requests that never finish.
 *
 * With LATCH_REQUEST_TIMEOUT_SECONDS=2 and LATCH_KEEP_ALIVE_TIMEOUT_SECONDS=2: a body that stops short of its
 * Content-Length, a chunked body that never ends, and headers that never finish (slowloris, one header line
 * every 500 ms) are each closed by Latch (408 or a plain close) within about timeout + 2 s; an idle keep-alive
 * connection is closed after about 2 s; meanwhile /healthz keeps answering fast.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startLatchProcess, type LatchProcess } from '../helpers/latch-process.js';
import { httpRequest, sleep, type HttpResult } from '../helpers/load.js';

const TIMEOUT_SECONDS = 2;
/** What "within about timeout + 2 s" allows, measured from the first byte sent. */
const CLOSE_WITHIN_MS = (TIMEOUT_SECONDS + 2) * 1000 + 500;
/** Give up on a connection after this long: Latch never closed it. */
const GIVE_UP_MS = 15_000;

const dir = mkdtempSync(join(tmpdir(), 'latch-fault-slow-'));
let latch: LatchProcess | undefined;
after(async () => {
  await latch?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Watched {
  socket: Socket;
  startedAt: number;
  /** When the first bytes of a response arrived. */
  firstResponseAt?: number;
  received: string;
  /** Resolves with the time the connection closed (null: still open after GIVE_UP_MS, then destroyed by us). */
  closed: Promise<number | null>;
}

async function open(baseUrl: string): Promise<Watched> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const watched: Watched = { socket, startedAt: Date.now(), received: '', closed: undefined as never };
  watched.closed = new Promise((resolve) => {
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, GIVE_UP_MS);
    socket.on('data', (chunk) => {
      watched.firstResponseAt ??= Date.now();
      watched.received += chunk.toString();
    });
    const done = () => {
      clearTimeout(giveUp);
      resolve(Date.now());
    };
    socket.once('close', done);
    socket.on('error', () => {});
  });
  return watched;
}

function describeEnd(name: string, w: Watched, closedAt: number | null): string {
  const answer = w.received ? w.received.split('\r\n')[0] : 'no answer';
  return `${name}: ${closedAt === null ? `still open after ${GIVE_UP_MS} ms` : `closed after ${closedAt - w.startedAt} ms`} (${answer})`;
}

test('unfinished bodies, endless chunked bodies and slowloris headers are cut off; idle keep-alive closed; /healthz stays fast', { timeout: 60_000 }, async (t) => {
  latch = await startLatchProcess({
    env: {
      LATCH_DATABASE_URL: `sqlite:${join(dir, 'latch.db')}`,
      LATCH_REQUEST_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
      LATCH_KEEP_ALIVE_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    },
  });
  const { host } = new URL(latch.baseUrl);

  // 1. A body that stops 90 bytes short of its Content-Length.
  const shortBody = await open(latch.baseUrl);
  shortBody.socket.write(`POST /oauth2/token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type`);

  // 2. A chunked body whose last chunk never comes.
  const chunked = await open(latch.baseUrl);
  chunked.socket.write(`POST /oauth2/token HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\na\r\ngrant_type\r\n`);

  // 3. Slowloris: a header line every 500 ms, never the blank line that ends them.
  const slowloris = await open(latch.baseUrl);
  slowloris.socket.write(`GET /oauth2/userinfo HTTP/1.1\r\nHost: ${host}\r\n`);
  let drip = 0;
  const dripper = setInterval(() => {
    if (!slowloris.socket.destroyed) slowloris.socket.write(`X-Slow-${drip++}: ${'a'.repeat(10)}\r\n`);
  }, 500);

  // 4. A keep-alive connection left idle after one complete request.
  const idle = await open(latch.baseUrl);
  idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);

  // Meanwhile /healthz on fresh connections, every 200 ms, until the slow ones are all closed.
  const probes: HttpResult[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      probes.push(await httpRequest(`${latch!.baseUrl}/healthz`, { timeoutMs: 5000 }));
      await sleep(200);
    }
  })();

  const [shortClosed, chunkedClosed, slowClosed, idleClosed] = await Promise.all([shortBody.closed, chunked.closed, slowloris.closed, idle.closed]);
  clearInterval(dripper);
  probing = false;
  await prober;

  const latencies = probes.map((p) => p.endedAt - p.startedAt);
  const idleAfterResponse = idleClosed !== null && idle.firstResponseAt ? idleClosed - idle.firstResponseAt : null;
  t.diagnostic(describeEnd('body short of its Content-Length', shortBody, shortClosed));
  t.diagnostic(describeEnd('chunked body never ended', chunked, chunkedClosed));
  t.diagnostic(`${describeEnd('slowloris headers', slowloris, slowClosed)}, ${drip} header lines dripped`);
  t.diagnostic(`idle keep-alive: ${idle.received.split('\r\n')[0] || 'no answer'}, then closed ${idleAfterResponse ?? 'never'} ms after the response`);
  t.diagnostic(
    `/healthz meanwhile: ${probes.length} probes, ${probes.filter((p) => p.status === 200).length} answered 200, slowest ${Math.max(...latencies)} ms`,
  );

  for (const [name, w, closedAt] of [
    ['a body short of its Content-Length', shortBody, shortClosed],
    ['a chunked body that never ends', chunked, chunkedClosed],
    ['headers that never finish', slowloris, slowClosed],
  ] as const) {
    assert.notEqual(closedAt, null, `${name}: Latch closes the connection (it was still open after ${GIVE_UP_MS} ms)`);
    const after = closedAt! - w.startedAt;
    assert.ok(after <= CLOSE_WITHIN_MS, `${name}: closed within ${CLOSE_WITHIN_MS} ms (${after} ms)`);
    assert.ok(after >= TIMEOUT_SECONDS * 1000 - 500, `${name}: not before the timeout (${after} ms)`);
    assert.ok(w.received === '' || /^HTTP\/1\.1 (408|400) /.test(w.received), `${name}: a close or a 408 (got ${w.received.split('\r\n')[0]})`);
    assert.doesNotMatch(w.received, /^HTTP\/1\.1 (200|5\d\d) /);
  }
  assert.match(idle.received, /^HTTP\/1\.1 200 /, 'the keep-alive request was answered');
  assert.notEqual(idleAfterResponse, null, 'the idle keep-alive connection is closed by Latch');
  assert.ok(
    idleAfterResponse! >= TIMEOUT_SECONDS * 1000 - 500 && idleAfterResponse! <= CLOSE_WITHIN_MS,
    `the idle keep-alive connection is closed about ${TIMEOUT_SECONDS} s after the response (${idleAfterResponse} ms)`,
  );
  assert.ok(probes.length >= 5, `/healthz was probed meanwhile (${probes.length})`);
  assert.deepEqual(
    probes.filter((p) => p.status !== 200).map((p) => `${p.ending} ${p.status ?? p.error}`),
    [],
    'every /healthz probe answered 200',
  );
  assert.ok(Math.max(...latencies) < 1000, `/healthz stays fast (slowest ${Math.max(...latencies)} ms)`);
});
