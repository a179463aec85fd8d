/**
 * Latch's guarded outbound GET of a document (outbound-request.ts getDocument, used for client metadata documents)
 * against a local HTTP server: the body and headers come back whole; private addresses are refused unless allowed
 * (an IP literal, and a name that resolves to one); a larger body than the limit is refused, whether it says its
 * length or not; a slow body times out; a redirect is an answer, not followed.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getDocument, OutboundRequestError } from './outbound-request.js';

async function rejection(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundRequestError, `expected an OutboundRequestError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request was expected to fail');
}

describe('guarded outbound GET of a document', () => {
  let server: Server;
  let base: string;
  const paths: string[] = [];
  const allowed = { allowPrivateAddresses: true, maxResponseBytes: 100, timeoutMs: 1000 };

  before(async () => {
    server = createServer((request, response) => {
      paths.push(request.url ?? '');
      if (request.url === '/doc') return void response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end('{"a":1}');
      if (request.url === '/declared-large') return void response.writeHead(200, { 'content-length': '101' }).end('x'.repeat(101));
      if (request.url === '/chunked-large') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('x'.repeat(60));
        return void setTimeout(() => response.end('x'.repeat(60)), 20);
      }
      if (request.url === '/slow-body') {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.write('{');
      }
      if (request.url === '/redirect') return void response.writeHead(302, { location: '/doc' }).end();
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('returns the status, the headers and the whole body', async () => {
    const document = await getDocument(`${base}/doc`, 'application/json', allowed);
    assert.equal(document.status, 200);
    assert.equal(document.headers['cache-control'], 'max-age=60');
    assert.equal(document.body.toString(), '{"a":1}');
  });

  test('refuses a loopback IP literal unless private addresses are allowed, before connecting', async () => {
    const before = paths.length;
    const error = await rejection(getDocument(`${base}/doc`, 'application/json', { ...allowed, allowPrivateAddresses: false }));
    assert.equal(error.failure.kind, 'refused_address');
    assert.equal(paths.length, before, 'nothing was sent');
  });

  test('refuses a name that resolves to a private address', async () => {
    const error = await rejection(
      getDocument('https://metadata.example.com/client.json', 'application/json', {
        ...allowed,
        allowPrivateAddresses: false,
        resolve: async () => [{ address: '10.0.0.7', family: 4 }],
      }),
    );
    assert.equal(error.failure.kind, 'refused_address');
    assert.match(error.message, /10\.0\.0\.7.*private/);
  });

  test('refuses a body larger than the limit, by its content-length or as it arrives', async () => {
    for (const path of ['/declared-large', '/chunked-large']) {
      const error = await rejection(getDocument(`${base}${path}`, 'application/json', allowed));
      assert.deepEqual(error.failure, { kind: 'too_large', limitBytes: 100 }, path);
    }
  });

  test('a body that does not finish in time is a timeout', async () => {
    const error = await rejection(getDocument(`${base}/slow-body`, 'application/json', { ...allowed, timeoutMs: 200 }));
    assert.deepEqual(error.failure, { kind: 'timeout', timeoutMs: 200 });
  });

  test('a redirect is an answer, not followed', async () => {
    const before = paths.length;
    const document = await getDocument(`${base}/redirect`, 'application/json', allowed);
    assert.equal(document.status, 302);
    assert.equal(paths.length, before + 1);
  });
});
