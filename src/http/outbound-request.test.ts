/**
 * Latch's guarded outbound POST (outbound-request.ts) against local HTTP servers: private addresses are refused
 * unless allowed (an IP literal and a name that resolves to one), the connection goes to the address that was
 * checked (one resolution, no second lookup a rebinding DNS server could answer), a slow server times out,
 * redirects are answers and not followed, and a large body is not read to its end.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { OutboundRequestError, postForm } from './outbound-request.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handler(request, body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function rejection(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundRequestError, `expected an OutboundRequestError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request was expected to fail');
}

describe('guarded outbound POST', () => {
  const received: Array<{ path: string; host: string | undefined; contentType: string | undefined; body: string }> = [];
  let receiver: { server: Server; url: string };
  let port: number;
  let bigBodyClosedEarly: Promise<boolean>;
  let signalBigBody: (closedEarly: boolean) => void;

  before(async () => {
    bigBodyClosedEarly = new Promise((resolve) => (signalBigBody = resolve));
    receiver = await listen((request, body, response) => {
      received.push({ path: request.url ?? '', host: request.headers.host, contentType: request.headers['content-type'], body });
      if (request.url === '/slow') return; // never answers
      if (request.url === '/redirect') return void response.writeHead(302, { location: '/elsewhere' }).end();
      if (request.url === '/big') {
        // 10 MiB, written as fast as the client reads: a client that stops reading leaves most of it unsent.
        response.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const write = () => {
          while (sent < 10 * 1024 * 1024) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', write);
          }
          response.end();
        };
        response.on('close', () => signalBigBody(sent < 10 * 1024 * 1024));
        write();
        return;
      }
      response.writeHead(request.url === '/fails' ? 500 : 204).end();
    });
    port = Number(new URL(receiver.url).port);
  });
  after(async () => {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  test('POSTs the fields form-urlencoded and resolves with the status', async () => {
    const response = await postForm(`${receiver.url}/ok`, { logout_token: 'a.b.c', 'x y': 'ü&=' }, { allowPrivateAddresses: true });
    assert.equal(response.status, 204);
    const last = received.at(-1)!;
    assert.equal(last.contentType, 'application/x-www-form-urlencoded');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(last.body)), { logout_token: 'a.b.c', 'x y': 'ü&=' });
  });

  test('any HTTP answer resolves; its status is for the caller to judge', async () => {
    assert.equal((await postForm(`${receiver.url}/fails`, {}, { allowPrivateAddresses: true })).status, 500);
  });

  test('an IP-literal loopback host is refused without LATCH_OUTBOUND_ALLOW_PRIVATE, and nothing is sent', async () => {
    const before = received.length;
    const error = await rejection(postForm(`${receiver.url}/ok`, {}, { allowPrivateAddresses: false }));
    assert.deepEqual(error.failure, { kind: 'refused_address', address: '127.0.0.1', range: 'loopback' });
    assert.equal(received.length, before);
  });

  test('an IPv6 literal is judged too (brackets stripped): [::1] and IPv4-mapped [::ffff:7f00:1]', async () => {
    for (const host of ['[::1]', '[::ffff:127.0.0.1]']) {
      const error = await rejection(postForm(`http://${host}:${port}/ok`, {}, { allowPrivateAddresses: false }));
      assert.equal(error.failure.kind, 'refused_address');
      assert.equal((error.failure as { range: string }).range, 'loopback');
    }
  });

  test('a name that resolves only to private addresses is refused; one public address among them is the one used', async () => {
    const privateOnly = async () => [{ address: '10.0.0.7', family: 4 }, { address: '127.0.0.1', family: 4 }];
    const error = await rejection(postForm(`http://rp.example.test:${port}/ok`, {}, { allowPrivateAddresses: false, resolve: privateOnly }));
    assert.deepEqual(error.failure, { kind: 'refused_address', address: '10.0.0.7', range: 'private' });
    assert.match(error.message, /10\.0\.0\.7.*private/);
  });

  test('the connection goes to the address that was checked: one resolution, no second lookup', async () => {
    // rp.example.test exists in no DNS: the request reaches the receiver only through the checked address.
    let resolutions = 0;
    const resolve = async () => {
      resolutions += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const response = await postForm(`http://rp.example.test:${port}/ok`, { a: '1' }, { allowPrivateAddresses: true, resolve });
    assert.equal(response.status, 204);
    assert.equal(resolutions, 1);
    assert.equal(received.at(-1)!.host, `rp.example.test:${port}`, 'the Host header names the URL host');
  });

  test('a name the system resolves to loopback (localhost) is refused', async () => {
    const error = await rejection(postForm(`http://localhost:${port}/ok`, {}, { allowPrivateAddresses: false }));
    assert.equal(error.failure.kind, 'refused_address');
  });

  test('a server that does not answer in time is a timeout', async () => {
    const started = Date.now();
    const error = await rejection(postForm(`${receiver.url}/slow`, {}, { allowPrivateAddresses: true, timeoutMs: 300 }));
    assert.deepEqual(error.failure, { kind: 'timeout', timeoutMs: 300 });
    assert.ok(Date.now() - started < 2000);
  });

  test('a redirect is an answer and is not followed', async () => {
    const before = received.length;
    assert.equal((await postForm(`${receiver.url}/redirect`, {}, { allowPrivateAddresses: true })).status, 302);
    assert.equal(received.length, before + 1, 'nothing was sent to /elsewhere');
  });

  test('the response body is not read beyond the limit', async () => {
    const response = await postForm(`${receiver.url}/big`, {}, { allowPrivateAddresses: true, maxResponseBytes: 1024 });
    assert.equal(response.status, 200);
    assert.equal(await bigBodyClosedEarly, true, 'the connection closed before the 10 MiB were sent');
  });

  test('a refused connection, a URL that is not http(s) and one with credentials say so', async () => {
    const closed = await listen(() => {});
    const url = closed.url;
    await new Promise((resolve) => closed.server.close(resolve));
    assert.deepEqual((await rejection(postForm(`${url}/x`, {}, { allowPrivateAddresses: true }))).failure, { kind: 'network', code: 'ECONNREFUSED' });
    assert.equal((await rejection(postForm('ftp://rp.example.com/x', {}, { allowPrivateAddresses: true }))).failure.kind, 'invalid_url');
    assert.equal((await rejection(postForm('/relative', {}, { allowPrivateAddresses: true }))).failure.kind, 'invalid_url');
    const withCredentials = await rejection(postForm(`http://app:s3cret@127.0.0.1:${port}/ok`, {}, { allowPrivateAddresses: true }));
    assert.equal(withCredentials.failure.kind, 'invalid_url');
    assert.ok(!withCredentials.message.includes('s3cret'), 'the password is not repeated');
  });
});
