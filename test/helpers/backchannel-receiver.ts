/**
 * An app's back-channel logout endpoint for tests (OIDC Back-Channel Logout 1.0 §2.5, §2.8): a local HTTP
 * server that records every request and answers with the statuses it is told to (200 by default), plus the
 * checks the OpenID conformance suite makes on what it receives (ExtractLogoutTokenFromBackchannelLogoutRequest,
 * CheckForUnexpectedParametersInBackchannelLogoutRequest, ValidateLogoutTokenSignature,
 * ValidateLogoutTokenClaims, CheckIdTokenSubMatchesLogoutToken, CheckIdTokenSidMatchesLogoutToken,
 * CheckLogoutTokenNoNonce, CheckLogoutTokenHasSubOrSid).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { TestServer } from './test-server.js';

export interface ReceivedLogout {
  path: string;
  method: string;
  contentType: string | undefined;
  /** The form body, parsed. */
  form: Record<string, string>;
  receivedAt: number;
}

export class BackchannelReceiver {
  readonly received: ReceivedLogout[] = [];
  /** Statuses to answer with, in order; 200 once they run out. */
  readonly statuses: number[] = [];
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<BackchannelReceiver> {
    let receiver: BackchannelReceiver | undefined;
    const server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        receiver!.received.push({
          path: request.url ?? '',
          method: request.method ?? '',
          contentType: request.headers['content-type'],
          form: Object.fromEntries(new URLSearchParams(body)),
          receivedAt: Date.now(),
        });
        const status = receiver!.statuses.shift() ?? 200;
        // §2.8: the answer carries Cache-Control: no-store.
        response.writeHead(status, { 'cache-control': 'no-store' }).end();
        for (const wake of receiver!.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    receiver = new BackchannelReceiver(server, `http://${host}:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Waits until `count` requests have arrived in all, or fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedLogout[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      assert.ok(left > 0, `expected ${count} back-channel request(s) within ${timeoutMs} ms, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * The checks of the conformance suite on one back-channel request, with the signature verified against Latch's
 * published JWKS. `idToken` is the id_token claims of the same sign-in: sub and sid must match it.
 */
export async function expectValidLogoutRequest(
  server: TestServer,
  request: ReceivedLogout,
  expected: { clientId: string; alg?: string; idToken: JWTPayload },
): Promise<JWTPayload> {
  assert.equal(request.method, 'POST', '§2.5: an HTTP POST');
  assert.equal(request.contentType, 'application/x-www-form-urlencoded', '§2.5: application/x-www-form-urlencoded');
  assert.deepEqual(Object.keys(request.form), ['logout_token'], 'CheckForUnexpectedParametersInBackchannelLogoutRequest: logout_token only');
  const token = request.form.logout_token!;
  const header = decodeProtectedHeader(token);
  assert.equal(header.typ, 'logout+jwt', '§2.4: typ logout+jwt');
  assert.equal(header.alg, expected.alg ?? 'RS256', 'signed with the client id_token algorithm');
  assert.ok(header.kid, 'the key is named');
  const jwks = createLocalJWKSet(await (await fetch(`${server.baseUrl}/oauth2/jwks`)).json());
  // ValidateLogoutTokenSignature; jwtVerify also refuses an exp in the past.
  const { payload } = await jwtVerify(token, jwks, { issuer: server.config.issuer, audience: expected.clientId, typ: 'logout+jwt', algorithms: [header.alg!] });
  // ValidateLogoutTokenClaims.
  const now = Math.floor(Date.now() / 1000);
  assert.equal(payload.iss, server.config.issuer);
  assert.equal(payload.aud, expected.clientId);
  assert.ok(typeof payload.iat === 'number' && payload.iat <= now + 300 && payload.iat >= now - 86400, 'iat not in the future, not older than a day');
  assert.ok(typeof payload.exp === 'number' && payload.exp - payload.iat === 120, 'exp two minutes after iat');
  assert.ok(typeof payload.jti === 'string' && payload.jti.length >= 16, 'jti present');
  assert.deepEqual(payload.events, { 'http://schemas.openid.net/event/backchannel-logout': {} }, 'events: exactly the one member, whose value is {}');
  // CheckIdTokenSubMatchesLogoutToken, CheckIdTokenSidMatchesLogoutToken, CheckLogoutTokenHasSubOrSid.
  assert.equal(payload.sub, expected.idToken.sub, 'sub is the id_token sub');
  assert.equal(typeof expected.idToken.sid, 'string', 'the id_token carries sid (backchannel_logout_session_supported)');
  assert.equal(payload.sid, expected.idToken.sid, 'sid is the id_token sid');
  // CheckLogoutTokenNoNonce.
  assert.equal('nonce' in payload, false, '§2.4: no nonce');
  return payload;
}
