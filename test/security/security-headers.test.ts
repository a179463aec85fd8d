/**
 * Helmet's headers are asked of helmet once at start (src/http/security-headers.ts) instead of on every
 * request: every response must still carry exactly what helmet itself sets.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import helmet, { type HelmetOptions } from 'helmet';
import { computeHelmetHeaders } from '../../src/http/security-headers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The headers helmet's own middleware puts on a real node:http response. */
async function headersFromHelmetMiddleware(options: HelmetOptions): Promise<Record<string, string>> {
  const middleware = helmet(options);
  const server = http.createServer((request, response) => middleware(request, response, () => response.end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await response.arrayBuffer();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
    });
    return headers;
  } finally {
    server.close();
  }
}

const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

describe('security headers', () => {
  test('computed once, they are the headers helmet sets itself', async () => {
    const optionsToCheck: HelmetOptions[] = [
      {
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
        frameguard: { action: 'deny' },
        referrerPolicy: { policy: 'no-referrer' },
        crossOriginResourcePolicy: { policy: 'same-site' },
        strictTransportSecurity: false,
      },
      { strictTransportSecurity: { maxAge: 31536000 } },
      {},
    ];
    for (const options of optionsToCheck) {
      assert.deepEqual({ ...computeHelmetHeaders(options) }, await headersFromHelmetMiddleware(options));
    }
  });

  describe('on Latch', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    test('API responses, errors included, carry the strict defaults', async () => {
      for (const [path, init] of [
        ['/oauth2/userinfo', {}],
        ['/oauth2/token', { method: 'POST' }],
        ['/oauth2/no-such-endpoint', {}],
        ['/.well-known/openid-configuration', {}],
        ['/oauth2/jwks', {}],
        ['/healthz', {}],
      ] as const) {
        const response = await fetch(`${server.baseUrl}${path}`, init);
        await response.arrayBuffer();
        assert.equal(response.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'", path);
        assert.equal(response.headers.get('x-frame-options'), 'DENY', path);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
        assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
        // Discovery and JWKS are meant to be fetched cross-origin (their own CORP); the rest stays same-site.
        const publicDocument = path.startsWith('/.well-known/') || path === '/oauth2/jwks';
        assert.equal(response.headers.get('cross-origin-resource-policy'), publicDocument ? 'cross-origin' : 'same-site', path);
        assert.equal(response.headers.get('strict-transport-security'), null, `${path}: no HSTS on an http issuer`);
        assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, path);
        for (const name of DOCUMENT_ONLY) assert.equal(response.headers.get(name), null, `${path}: ${name} is for documents only`);
      }
    });

    test('pages, the authorize flow and HTML 404 pages carry the headers that only documents need as well', async () => {
      for (const path of ['/login', '/oauth2/authorize?client_id=nobody', '/no-such-page']) {
        const response = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });
        await response.arrayBuffer();
        assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin', path);
        assert.equal(response.headers.get('origin-agent-cluster'), '?1', path);
        assert.equal(response.headers.get('x-dns-prefetch-control'), 'off', path);
        assert.equal(response.headers.get('x-download-options'), 'noopen', path);
        assert.equal(response.headers.get('x-permitted-cross-domain-policies'), 'none', path);
        assert.equal(response.headers.get('x-xss-protection'), '0', path);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      }
    });

    test('pages keep their own Content-Security-Policy', async () => {
      const response = await fetch(`${server.baseUrl}/login`);
      await response.arrayBuffer();
      assert.match(response.headers.get('content-security-policy') ?? '', /style-src 'self'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
    });
  });
});
