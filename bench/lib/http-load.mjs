/**
 * The bench's own HTTP/1.1 load client: keep-alive connections over raw sockets, one request in flight per
 * connection, and the latency of every single response kept (no histogram buckets), so p50 and p99 are exact.
 *
 * Two drivers share one connection type:
 *  - runRequests: each connection sends the next request from a generator (fixed GETs, or a pool of
 *    single-use codes), either as fast as the server answers (saturation) or at a fixed offered rate
 *    (open loop: latency counts from the scheduled send time, so a slow server cannot hide queueing).
 *  - runVirtualUsers: each connection is one user agent that runs a scripted multi-step flow and keeps
 *    its own cookies; latency is per flow.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const CRLF2 = Buffer.from('\r\n\r\n');

/** A keep-alive connection with one request in flight; resolves each request with status, headers, body. */
export class Connection {
  constructor(host, port) {
    this.host = host;
    this.port = port;
    this.socket = null;
    this.buffer = Buffer.alloc(0);
    this.pending = null;
  }

  connect() {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
      socket.once('connect', () => resolve());
      socket.once('error', reject);
      socket.on('data', (chunk) => this.onData(chunk));
      socket.on('close', () => {
        if (this.pending) {
          const { reject: rejectPending } = this.pending;
          this.pending = null;
          rejectPending(new Error('connection closed by the server'));
        }
        this.socket = null;
      });
      socket.on('error', () => {});
      this.socket = socket;
      this.buffer = Buffer.alloc(0);
    });
  }

  /** Sends one request (a Buffer or string of complete HTTP/1.1 bytes); reconnects if the server closed. */
  async request(bytes) {
    if (!this.socket) await this.connect();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, headerEnd: -1, bodyLength: -1, chunked: false, status: 0, headerText: '' };
      this.socket.write(bytes);
    });
  }

  onData(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const pending = this.pending;
    if (!pending) return;
    if (pending.headerEnd < 0) {
      const end = this.buffer.indexOf(CRLF2);
      if (end < 0) return;
      pending.headerEnd = end + 4;
      const headerText = this.buffer.toString('latin1', 0, end);
      pending.headerText = headerText;
      pending.status = Number(headerText.slice(9, 12));
      const length = /\r\ncontent-length: *(\d+)/i.exec(headerText);
      if (length) pending.bodyLength = Number(length[1]);
      else if (/\r\ntransfer-encoding: *chunked/i.test(headerText)) pending.chunked = true;
      else pending.bodyLength = 0;
    }
    let body;
    let consumed;
    if (pending.chunked) {
      const parsed = parseChunked(this.buffer, pending.headerEnd);
      if (!parsed) return;
      ({ body, consumed } = parsed);
    } else {
      consumed = pending.headerEnd + pending.bodyLength;
      if (this.buffer.length < consumed) return;
      body = this.buffer.subarray(pending.headerEnd, consumed);
    }
    this.buffer = this.buffer.length === consumed ? Buffer.alloc(0) : this.buffer.subarray(consumed);
    this.pending = null;
    pending.resolve({ status: pending.status, headerText: pending.headerText, body });
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
  }
}

function parseChunked(buffer, start) {
  const parts = [];
  let offset = start;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', offset, 'latin1');
    if (lineEnd < 0) return null;
    const size = parseInt(buffer.toString('latin1', offset, lineEnd), 16);
    if (size === 0) {
      const end = buffer.indexOf(CRLF2, lineEnd - 2);
      if (end < 0) return null;
      return { body: Buffer.concat(parts), consumed: end + 4 };
    }
    if (buffer.length < lineEnd + 2 + size + 2) return null;
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** Every value of one response header (case-insensitive name). */
export function headerValues(headerText, name) {
  const values = [];
  const prefix = `\r\n${name.toLowerCase()}:`;
  const lower = headerText.toLowerCase();
  let at = lower.indexOf(prefix);
  while (at >= 0) {
    const start = at + prefix.length;
    const end = headerText.indexOf('\r\n', start);
    values.push(headerText.slice(start, end < 0 ? undefined : end).trim());
    at = lower.indexOf(prefix, start);
  }
  return values;
}

/** Complete request bytes. */
export function buildRequest({ method = 'GET', path, host, headers = {}, body }) {
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (body !== undefined) head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  head += '\r\n';
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

class LatencyLog {
  constructor() {
    this.values = new Float64Array(1 << 16);
    this.length = 0;
  }
  push(ms) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = ms;
  }
  /** Exact percentiles from every recorded value (nearest rank). */
  summary() {
    const sorted = this.values.slice(0, this.length).sort();
    const at = (p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
    return { count: sorted.length, p50: at(50), p99: at(99), max: sorted.length ? sorted[sorted.length - 1] : NaN };
  }
}

/**
 * Drives `connections` connections for `durationMs`. `next(i)` returns the bytes of request i, or null when
 * its pool is exhausted (the run then ends early and says so). `isOk(response)` decides what counts as an
 * error (default: any non-2xx). With `ratePerSecond`, requests are sent on a fixed schedule instead of back to
 * back (runPaced).
 */
export async function runRequests({ host, port, connections, durationMs, next, isOk = (r) => r.status >= 200 && r.status < 300, ratePerSecond, settleMs = 0 }) {
  const pool = [];
  for (let c = 0; c < connections; c++) {
    const connection = new Connection(host, port);
    await connection.connect();
    pool.push(connection);
  }
  const run = new RunTally(isOk);
  const start = performance.now();
  if (ratePerSecond) await runPaced({ pool, start, durationMs, next, ratePerSecond, run, settleMs });
  else await Promise.all(pool.map((connection) => runBackToBack({ connection, deadline: start + durationMs, next, run })));
  const elapsedMs = performance.now() - start - (ratePerSecond ? settleMs : 0);
  for (const connection of pool) connection.close();
  return run.result(elapsedMs);
}

/** What one run counts: every latency, errors with a few samples, how many were sent. */
class RunTally {
  constructor(isOk) {
    this.isOk = isOk;
    this.latencies = new LatencyLog();
    this.errors = 0;
    this.errorSamples = [];
    this.sent = 0;
    this.completed = 0;
    this.exhausted = false;
  }
  /** The bytes of the next request, or null once the pool is exhausted. */
  take(next) {
    if (this.exhausted) return null;
    const bytes = next(this.sent);
    if (bytes === null) this.exhausted = true;
    else this.sent += 1;
    return bytes;
  }
  /** A response; `recorded` false while a fixed-rate run settles (it still counts as an error if it is one). */
  answered(response, latencyMs, recorded = true) {
    if (recorded) {
      this.completed += 1;
      this.latencies.push(latencyMs);
    }
    if (!this.isOk(response)) this.failed(`${response.status} ${response.body.toString('utf8').slice(0, 200)}`);
  }
  failed(sample) {
    this.errors += 1;
    if (this.errorSamples.length < 3) this.errorSamples.push(sample);
  }
  result(elapsedMs) {
    const summary = this.latencies.summary();
    return {
      requests: this.completed,
      elapsedMs,
      rps: (this.completed / elapsedMs) * 1000,
      p50: summary.p50,
      p99: summary.p99,
      max: summary.max,
      errors: this.errors,
      errorSamples: this.errorSamples,
      exhausted: this.exhausted,
    };
  }
}

/** Saturation: one connection sends its next request as soon as the last one is answered. */
async function runBackToBack({ connection, deadline, next, run }) {
  while (performance.now() < deadline) {
    const bytes = run.take(next);
    if (bytes === null) return;
    const sentAt = performance.now();
    try {
      const response = await connection.request(bytes);
      run.answered(response, performance.now() - sentAt);
    } catch (error) {
      run.failed(String(error.message));
    }
  }
}

/**
 * A fixed offered rate, open loop: request i is due at start + i / rate. A request that goes out late (the
 * client's timer fired late, or every connection was still waiting on the server) counts from its due time,
 * so neither a slow server nor a slow client can hide queueing; one sent a little early counts from when it
 * was sent.
 *
 * The pacing sleeps on timers and never spins. The client before this one polled (setImmediate) for each exact
 * send time and kept a whole core busy doing it (100% of a core at 2,600/s, against 15% now): on the 2-core
 * machine that left the server one core for its event loop, its helper threads and the kernel, so the p99
 * measured that contention as much as the server (Latch's CPU per exchange at a fixed 1,550/s: 320 µs with
 * the polling client, 250 µs with this one). A timer wakes about once a millisecond, at best, so each wake
 * sends what is due up to SEND_AHEAD_MS ahead: the offered rate is the same over any millisecond, and no
 * request waits a whole timer tick that would count in its latency (the bare server's p50 at 2,600/s: 0.45 ms
 * this way, 0.9 ms when each request waited for its due time).
 *
 * With `settleMs`, the run first offers the same rate for that long without recording it, then for
 * `durationMs`: what is measured is the server at that load, not its way out of the idle pause before the run
 * (see the bench's README).
 */
const SEND_AHEAD_MS = 0.5;
function runPaced({ pool, start, durationMs, next, ratePerSecond, run, settleMs }) {
  const intervalMs = 1000 / ratePerSecond;
  const recordFrom = start + settleMs;
  const deadline = recordFrom + durationMs;
  const idle = [...pool];
  /** Due times of requests that came due while every connection was busy, oldest first. */
  const waiting = [];
  let scheduled = 0;
  let inFlight = 0;
  let schedulingDone = false;
  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (schedulingDone && inFlight === 0 && waiting.length === 0) resolve();
    };
    const send = (connection, dueAt) => {
      const bytes = run.take(next);
      if (bytes === null) {
        idle.push(connection);
        waiting.length = 0;
        schedulingDone = true;
        finishIfDone();
        return;
      }
      inFlight += 1;
      const sentAt = performance.now();
      connection.request(bytes).then(
        (response) => run.answered(response, performance.now() - Math.min(dueAt, sentAt), dueAt >= recordFrom),
        (error) => run.failed(String(error.message)),
      ).finally(() => {
        inFlight -= 1;
        if (waiting.length > 0 && !run.exhausted) send(connection, waiting.shift());
        else idle.push(connection);
        finishIfDone();
      });
    };
    const tick = () => {
      const sendUntil = performance.now() + SEND_AHEAD_MS;
      for (;;) {
        const dueAt = start + scheduled * intervalMs;
        if (dueAt > sendUntil || dueAt >= deadline || run.exhausted) break;
        scheduled += 1;
        const connection = idle.pop();
        if (connection) send(connection, dueAt);
        else waiting.push(dueAt);
      }
      const nextDueAt = start + scheduled * intervalMs;
      if (nextDueAt >= deadline || run.exhausted) {
        schedulingDone = true;
        finishIfDone();
        return;
      }
      setTimeout(tick, Math.max(0, nextDueAt - performance.now()));
    };
    tick();
  });
}

/**
 * Runs `users` virtual users for `durationMs`; each loops `flow(user)` (which makes its own requests through
 * `user.send`) and counts one completed flow per loop. `setup(user)` runs once per user before the clock
 * starts (sign-in, consent). A flow that throws counts as an error.
 */
export async function runVirtualUsers({ host, port, users, durationMs, setup, flow }) {
  const agents = [];
  for (let u = 0; u < users; u++) {
    const connection = new Connection(host, port);
    await connection.connect();
    const agent = { index: u, connection, cookies: new Map(), requests: 0, state: {} };
    agent.send = async (request) => {
      const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const bytes = buildRequest({ ...request, host: `${host}:${port}`, headers: { ...request.headers, ...(cookie && { Cookie: cookie }) } });
      const response = await connection.request(bytes);
      agent.requests += 1;
      // A bench-side jar: name=value pairs are enough for two first-party servers on one origin.
      for (const setCookie of headerValues(response.headerText, 'set-cookie')) {
        const pair = setCookie.split(';', 1)[0];
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (/max-age=0|expires=thu, 01 jan 1970/i.test(setCookie) || value === '') agent.cookies.delete(name);
        else agent.cookies.set(name, value);
      }
      return response;
    };
    await setup(agent);
    agents.push(agent);
  }
  const latencies = new LatencyLog();
  let errors = 0;
  let flows = 0;
  const errorSamples = [];
  for (const agent of agents) agent.requests = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    agents.map(async (agent) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await flow(agent);
          flows += 1;
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors += 1;
          if (errorSamples.length < 3) errorSamples.push(String(error.message).slice(0, 300));
          if (errors > 50) return;
        }
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  for (const agent of agents) agent.connection.close();
  const summary = latencies.summary();
  return {
    requests: flows,
    httpRequests: agents.reduce((sum, a) => sum + a.requests, 0),
    elapsedMs,
    rps: (flows / elapsedMs) * 1000,
    p50: summary.p50,
    p99: summary.p99,
    max: summary.max,
    errors,
    errorSamples,
    exhausted: false,
  };
}
